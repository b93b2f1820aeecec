/** Markdown pieces the Office readers share. */

/** A table cell: pipes escaped, line breaks kept as `<br>` (a markdown table row is one line). */
export const tableCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>').trim();

/** Rows as a GitHub-flavoured markdown table, the first row as its header; '' for no rows. */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  if (!rows.length) return '';
  const width = Math.max(1, ...rows.map((row) => row.length));
  const line = (row: readonly string[]) =>
    `| ${Array.from({ length: width }, (_, i) => tableCell(row[i] ?? '')).join(' | ')} |`;
  const [header = [], ...body] = rows;
  return [line(header), `| ${Array(width).fill('---').join(' | ')} |`, ...body.map(line)].join('\n');
}
