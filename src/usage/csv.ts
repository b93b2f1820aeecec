import type { UsageReport } from '../../shared/api/usage';
import { COUNTERS } from './counters';

/** A cell as RFC 4180 wants it: quoted when it holds a comma, quote or line break; a leading =+-@ defused for spreadsheets. */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A usage report as CSV: a header, one line per row (its key first), and a `total` line. */
export function usageCsv(report: UsageReport): string {
  const lines = [[report.groupBy, ...COUNTERS].join(',')];
  for (const row of report.rows) lines.push([cell(row.key), ...COUNTERS.map((c) => cell(row[c]))].join(','));
  lines.push(['total', ...COUNTERS.map((c) => cell(report.total[c]))].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
