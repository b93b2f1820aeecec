import type { FeedbackList } from '../../shared/api/feedback';
import type { UsageReport } from '../../shared/api/usage';
import { COUNTERS } from './counters';

/** A cell as RFC 4180 wants it: quoted when it holds a comma, quote or line break; a leading =+-@ defused for spreadsheets. */
function cell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const csvOf = (lines: ReadonlyArray<ReadonlyArray<string | number>>) =>
  `${lines.map((line) => line.map(cell).join(',')).join('\r\n')}\r\n`;

/** A usage report as CSV: a header, one line per row (its key first), and a `total` line. */
export function usageCsv(report: UsageReport): string {
  return csvOf([
    [report.groupBy, ...COUNTERS],
    ...report.rows.map((row) => [row.key, ...COUNTERS.map((c) => row[c])]),
    ['total', ...COUNTERS.map((c) => report.total[c])],
  ]);
}

const FEEDBACK_COLUMNS = ['day', 'at', 'user', 'conversation', 'messageId', 'rating', 'comment', 'model'] as const;

/** A feedback listing as CSV: a header, one line per rating (a comment's line breaks kept inside its quotes). */
export function feedbackCsv(list: FeedbackList): string {
  return csvOf([FEEDBACK_COLUMNS, ...list.rows.map((row) => FEEDBACK_COLUMNS.map((c) => row[c] ?? ''))]);
}
