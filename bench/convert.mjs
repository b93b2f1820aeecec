// Conversion CPU (issue 44): the converter Worker (converter/) under `wrangler dev`, called through a service binding
// by a small harness Worker (bench/converter/), as the service calls it. Per document: workerd's CPU time around the
// one request (all workerd threads, from /proc schedstat, in ns), the first conversion after start ("cold": the
// converter's isolate compiles its 2 MB bundle and pdf.js sets itself up) and the median of the next
// CONVERT_RUNS (5, "warm"). A PDF's cost per page is the 40-page document's over 40, and its marginal cost the
// difference from a one-page document over 39. The documents are made here (test/fixtures/documents/).
//
//   npm run bench:convert                 # prints the table and writes its section of BENCHMARKS.md
//   CONVERT_WRITE=0 npm run bench:convert # prints only
import { makeDocx, makePptx, makeXlsx } from '../test/fixtures/documents/office.ts';
import { makePdf } from '../test/fixtures/documents/pdf.ts';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { startWrangler } from './lib/stack.mjs';

const PORT = Number(process.env.CONVERT_PORT ?? 8850);
const RUNS = Number(process.env.CONVERT_RUNS ?? 5);
const WRITE = process.env.CONVERT_WRITE !== '0';
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

const words = 'the team reviews overdue tasks every monday and estimates each new task before it starts'.split(' ');
const sentence = (i) => Array.from({ length: 12 }, (_, j) => words[(i * 7 + j) % words.length]).join(' ');
const page = (p) => [
  `Chapter ${p}: policies and practice`,
  ...Array.from({ length: 40 }, (_, i) => `${sentence(p + i)}.`),
];

const documents = [
  {
    name: 'PDF, 40 pages of text',
    format: 'pdf',
    pages: 40,
    bytes: await makePdf(
      Array.from({ length: 40 }, (_, i) => page(i + 1)),
      'Handbook',
    ),
  },
  { name: 'PDF, 1 page', format: 'pdf', pages: 1, bytes: await makePdf([page(1)], 'One page') },
  {
    name: 'DOCX, 60 sections (headings, lists, a table each)',
    format: 'docx',
    bytes: makeDocx(
      Array.from({ length: 60 }, (_, s) => [
        { heading: 2, text: `Section ${s + 1}` },
        { paragraph: `${sentence(s)}. ${sentence(s + 1)}. ${sentence(s + 2)}.` },
        { bullet: sentence(s + 3) },
        { numbered: sentence(s + 4) },
        {
          table: [
            ['Item', 'Owner', 'Due'],
            ...Array.from({ length: 5 }, (_, r) => [`item ${r}`, `person ${r}`, `2026-0${1 + (r % 9)}-1${r}`]),
          ],
        },
      ]).flat(),
    ),
  },
  {
    name: 'XLSX, 5 sheets × 1,000 rows × 6 columns',
    format: 'xlsx',
    bytes: makeXlsx(
      Array.from({ length: 5 }, (_, s) => ({
        name: `Sheet ${s + 1}`,
        rows: [
          ['Task', 'Owner', 'Estimate', 'Spent', 'Opened', 'State'],
          ...Array.from({ length: 1000 }, (_, r) => [
            `task ${r}`,
            `person ${r % 17}`,
            r % 13,
            (r * 1.5) % 20,
            new Date(Date.UTC(2026, r % 12, 1 + (r % 28))),
            r % 3 ? 'open' : 'done',
          ]),
        ],
      })),
    ),
  },
  {
    name: 'PPTX, 30 slides (bullets, notes)',
    format: 'pptx',
    bytes: makePptx(
      Array.from({ length: 30 }, (_, i) => ({
        title: `Slide ${i + 1}`,
        bullets: [sentence(i), [1, sentence(i + 1)], sentence(i + 2)],
        notes: sentence(i + 3),
      })),
    ),
  },
  {
    name: 'HTML, 500 KB page',
    format: 'html',
    bytes: new TextEncoder().encode(
      `<html><head><title>Docs</title><script>var x = 1;</script></head><body><nav><a href="/">Home</a></nav><main>${Array.from(
        { length: 1200 },
        (_, i) =>
          `<h2>Part ${i}</h2><p>${sentence(i)} <a href="/p/${i}">more</a>.</p><ul><li>${sentence(i + 1)}</li><li>${sentence(i + 2)}</li></ul>`,
      ).join('')}</main></body></html>`,
    ),
  },
];

const stack = await startWrangler({
  port: PORT,
  inspectorPort: PORT + 1,
  vars: {},
  config: 'bench/converter/wrangler.toml',
  args: ['--config', 'converter/wrangler.toml'],
});
const results = [];
try {
  for (const document of documents) {
    const runs = [];
    let summary;
    for (let run = 0; run <= RUNS; run++) {
      const before = stack.workerd().cpuNs;
      const response = await fetch(`${stack.base}/${document.format}`, { method: 'POST', body: document.bytes });
      summary = await response.json();
      runs.push((stack.workerd().cpuNs - before) / 1e6);
      if (!summary.ok) throw new Error(`${document.name}: ${JSON.stringify(summary)}`);
    }
    const [first, ...warm] = runs;
    results.push({ ...document, bytes: document.bytes.length, first, warm: median(warm), summary });
    console.log(
      `${document.name}: first ${first.toFixed(1)} ms, warm ${median(warm).toFixed(1)} ms CPU, ${summary.chars} chars`,
    );
  }
} finally {
  await stack.stop();
}

const pdf40 = results[0];
const pdf1 = results[1];
const perPage = { first: pdf40.first / 40, warm: pdf40.warm / 40, marginal: (pdf40.warm - pdf1.warm) / 39 };
const m = machine();
const lines = [
  '## Document conversion: CPU per document',
  '',
  `Command: \`npm run bench:convert\` · ${machineLine(m)}`,
  '',
  `The converter Worker (converter/) under \`wrangler dev\`, called through a service binding by a harness Worker ` +
    `(bench/converter/) as the service calls it; workerd's CPU time around each request (all threads, /proc schedstat). ` +
    `"first": the first conversion of that kind after the session started (for the first row, the converter's isolate ` +
    `also compiles its bundle); "warm": the median of the next ${RUNS}. Documents made by the bench ` +
    `(test/fixtures/documents/). A text PDF page: **${perPage.warm.toFixed(1)} ms CPU warm** (40 pages / 40), ` +
    `${perPage.marginal.toFixed(1)} ms marginal (40 pages − 1 page, / 39), ${perPage.first.toFixed(1)} ms in the first conversion; target ≤ 30 ms.`,
  '',
  '| document | bytes | text (chars) | first | warm |',
  '|---|---|---|---|---|',
  ...results.map(
    (r) =>
      `| ${r.name} | ${r.bytes.toLocaleString('en-US')} | ${r.summary.chars.toLocaleString('en-US')} | ${r.first.toFixed(1)} ms | ${r.warm.toFixed(1)} ms |`,
  ),
];
console.log(
  `BENCH_RESULT convert ${JSON.stringify({ perPage, results: results.map(({ name, bytes, first, warm }) => ({ name, bytes, first, warm })), machine: m })}`,
);
console.log(lines.join('\n'));
if (WRITE) writeSection('BENCHMARKS.md', 'bench-convert', lines.join('\n'));
