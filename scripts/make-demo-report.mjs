// Writes the demo MCP server's quarterly report: a three-page PDF with a text
// layer (Helvetica, WinAnsi), an Info dictionary with its title, and a valid
// xref table — small enough to keep as base64 in src/demo/content/report-pdf.ts.
// Run again after changing the text: node scripts/make-demo-report.mjs
import { writeFileSync } from 'node:fs';

const PAGES = [
  [
    ['h', 'Quarterly report Q3 - Task board'],
    ['p', 'Period: July 1 to September 30. Source: the team task board.'],
    ['h2', 'Summary'],
    ['p', 'Tasks opened: 148. Tasks completed: 131. Completion rate: 89 percent.'],
    ['p', 'Median time from open to done: 4.2 days (Q2: 5.1 days).'],
    ['p', 'Estimates within 20 percent of the actual time: 71 percent of tasks.'],
    ['p', 'Page 2 covers overdue tasks; page 3 the plan for next quarter.'],
  ],
  [
    ['h', 'Overdue tasks'],
    ['p', 'At the end of the quarter 9 tasks were overdue, down from 14 in Q2.'],
    ['p', 'The oldest overdue task, "Migrate billing exports", is 23 days late:'],
    ['p', "it waits on the finance team's new export format."],
    ['p', 'Six of the nine overdue tasks had no estimate when they were opened.'],
    ['p', 'Rule adopted: a task without an estimate is not started (see the'],
    ['p', 'team guidelines), and overdue tasks are reviewed every Monday.'],
  ],
  [
    ['h', 'Next quarter'],
    ['p', 'Goals for Q4: overdue tasks below 5 at any time; every task estimated.'],
    ['p', 'Release checks follow the test matrix for every platform.'],
    ['p', 'Owner of this report: the team lead. Next report: January 10.'],
  ],
];

const esc = (s) => s.replace(/[\\()]/g, (c) => `\\${c}`);
const stream = (lines) => {
  let y = 760;
  const ops = ['BT'];
  for (const [kind, text] of lines) {
    const size = kind === 'h' ? 20 : kind === 'h2' ? 14 : 11;
    y -= kind === 'h' ? 0 : kind === 'h2' ? 34 : 18;
    ops.push(`/F1 ${size} Tf`, `1 0 0 1 56 ${y} Tm`, `(${esc(text)}) Tj`);
    if (kind === 'h') y -= 18;
  }
  ops.push('ET');
  return ops.join('\n');
};

const objects = [];
const add = (body) => objects.push(body) && objects.length;
const catalog = add(null);
const pagesId = add(null);
const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
const kids = [];
for (const page of PAGES) {
  const content = stream(page);
  const contentId = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
  kids.push(
    add(
      `<< /Type /Page /Parent ${pagesId} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${contentId} 0 R >>`,
    ),
  );
}
objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesId} 0 R >>`;
objects[pagesId - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
const info = add(
  '<< /Title (Quarterly report Q3) /Author (Task board demo) /Producer (mcp-ondemand scripts/make-demo-report.mjs) >>',
);

let pdf = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
const offsets = [];
objects.forEach((body, i) => {
  offsets.push(Buffer.byteLength(pdf, 'latin1'));
  pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
});
const xref = Buffer.byteLength(pdf, 'latin1');
pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`;
pdf += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`;

const base64 = Buffer.from(pdf, 'latin1').toString('base64');
writeFileSync(
  new URL('../src/demo/content/report-pdf.ts', import.meta.url),
  `// The demo's quarterly report: a three-page PDF with a text layer, written by scripts/make-demo-report.mjs (run it\n// again after changing the report's text there). Kept as base64 because that is how MCP carries blobs anyway.\n\nexport const REPORT_PDF_BASE64 =\n  '${base64}';\n`,
);
console.log(`report: ${PAGES.length} pages, ${Buffer.byteLength(pdf, 'latin1')} bytes`);
