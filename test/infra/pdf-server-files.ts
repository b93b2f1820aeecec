// The PDF test/infra/pdf-server.ts puts in server-pdf's folder: made here, without Node modules, so that
// test/server-pdf.test.ts (in workerd) can make the same bytes and know each page's words.
import { makePdf } from './pdf-fixtures';

/** report.pdf: 3 pages; page 2 holds the one finding a question can be answered from. */
export const REPORT_TITLE = 'Bridge inspection';
export const REPORT_PAGES = [
  ['# Summary', 'The east span was inspected in November.'],
  ['# Findings', 'The inspection found 7 cracked bolts on the east span.'],
  ['# Next steps', 'Replace the bolts before the spring.'],
];

export const reportPdf = (): Uint8Array => makePdf({ title: REPORT_TITLE, pages: REPORT_PAGES });
