import type { ConvertedDocument, ConvertLimits } from '../../shared/documents';
import { markdownTable } from './markdown';
import { Refusal } from './refusal';
import { TextOut } from './text-out';
import { attribute, children, coreTitle, descendants, parseXml, relationships, relsOf } from './xml';
import { ZIP_LIMITS } from './zip-limits';
import { openZip, type ZipPackage } from './zip';

/**
 * XLSX → one markdown table per sheet, in the workbook's order, each under `## Sheet: <name>`, with where each sheet
 * starts. Cells as Excel shows their values: shared and inline strings, booleans, numbers (to 15 significant digits,
 * as Excel displays them), dates by their number format (1900 and 1904 systems); formulas by their cached result.
 * Sheet XML can be tens of MiB, so it is scanned with patterns, never built into a tree, and a sheet stops at
 * `MAX_ROWS_PER_SHEET` rows (the note says how many it has).
 */
export const MAX_ROWS_PER_SHEET = 10_000;

export function convertXlsx(bytes: Uint8Array, limits: ConvertLimits): ConvertedDocument {
  const zip = openZip(bytes, ZIP_LIMITS);
  const workbookXml = zip.text('xl/workbook.xml');
  if (!workbookXml) throw new Refusal('not an XLSX file: the package has no xl/workbook.xml');
  const workbook = parseXml(workbookXml);
  const rels = relationships(zip.text(relsOf('xl/workbook.xml')), 'xl/workbook.xml');
  const date1904 = ['1', 'true'].includes(attribute(descendants(workbook, 'workbookPr')[0], 'date1904') ?? '');
  const shared = sharedStrings(zip.text('xl/sharedStrings.xml'));
  const isDateStyle = dateStyles(zip.text('xl/styles.xml'));
  const sheets = descendants(workbook, 'sheet');

  const out = new TextOut(limits.maxChars);
  const names: string[] = [];
  const capped: string[] = [];
  for (const sheet of sheets.slice(0, limits.maxPages)) {
    const name = attribute(sheet, 'name') ?? `Sheet ${names.length + 1}`;
    const state = attribute(sheet, 'state');
    if (!out.part()) break;
    names.push(name);
    const part = rels[attribute(sheet, 'r:id') ?? '']?.target;
    const { rows, total } = sheetRows(zip, part, shared, isDateStyle, date1904);
    if (total > rows.length)
      capped.push(
        `sheet ${name}: first ${rows.length.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} rows`,
      );
    const hidden = state && state !== 'visible' ? ` (${state})` : '';
    if (!out.add(`## Sheet: ${name}${hidden}\n\n${markdownTable(rows) || '_(empty)_'}`)) break;
  }
  return out.paged({
    format: 'xlsx',
    kind: 'sheet',
    count: sheets.length,
    maxPages: limits.maxPages,
    title: coreTitle(zip.text('docProps/core.xml')),
    names,
    notes: [
      capped.length
        ? `${capped.join('; ')} (${MAX_ROWS_PER_SHEET.toLocaleString('en-US')} rows a sheet at most)`
        : undefined,
    ],
  });
}

const ROW = /<(?:\w+:)?row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?row>)/g;
const CELL = /<(?:\w+:)?c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/(?:\w+:)?c>)/g;
const VALUE = /<(?:\w+:)?v>([\s\S]*?)<\//;
const TEXT = /<(?:\w+:)?t\b[^>]*>([\s\S]*?)<\//g;

/** A sheet's rows (dense, trailing empty cells dropped), at most MAX_ROWS_PER_SHEET, and how many it has. */
function sheetRows(
  zip: ZipPackage,
  part: string | undefined,
  shared: string[],
  isDateStyle: boolean[],
  date1904: boolean,
): { rows: string[][]; total: number } {
  const xml = part ? (zip.text(part) ?? '') : '';
  const rows: string[][] = [];
  let total = 0;
  ROW.lastIndex = 0;
  for (let row = ROW.exec(xml); row; row = ROW.exec(xml)) {
    const index = Number(attr(row[1]!, 'r') ?? total + 1) - 1;
    total = Math.max(total, index + 1);
    if (index >= MAX_ROWS_PER_SHEET || index < 0) continue;
    const cells: string[] = [];
    let column = 0;
    CELL.lastIndex = 0;
    for (let cell = CELL.exec(row[2] ?? ''); cell; cell = CELL.exec(row[2] ?? ''), column++) {
      const ref = attr(cell[1]!, 'r');
      if (ref) column = columnOf(ref);
      if (column > 16_383) continue; // past XFD: not Excel's
      cells[column] = cellValue(cell[1]!, cell[2] ?? '', shared, isDateStyle, date1904);
    }
    rows[index] = Array.from(cells, (value) => value ?? '');
  }
  const dense = Array.from(rows, (row) => row ?? []);
  while (dense.length && dense[dense.length - 1]!.every((value) => value === '')) dense.pop();
  return { rows: dense, total: Math.max(total, dense.length) };
}

function cellValue(attrs: string, inner: string, shared: string[], isDateStyle: boolean[], date1904: boolean): string {
  const type = attr(attrs, 't') ?? 'n';
  if (type === 'inlineStr') return [...inner.matchAll(TEXT)].map((m) => decode(m[1]!)).join('');
  const raw = decode(VALUE.exec(inner)?.[1] ?? '');
  if (type === 's') return shared[Number(raw)] ?? '';
  if (type === 'b') return raw === '1' ? 'TRUE' : 'FALSE';
  if (type !== 'n' || raw === '') return raw;
  const number = Number(raw);
  if (!Number.isFinite(number)) return raw;
  if (isDateStyle[Number(attr(attrs, 's') ?? 0)]) return excelDate(number, date1904) ?? raw;
  return String(Number(number.toPrecision(15)));
}

/** Column index of a cell reference ("C7" → 2). */
export function columnOf(ref: string): number {
  let n = 0;
  for (const ch of ref.replace(/\d+$/, '').toUpperCase()) n = n * 26 + ch.charCodeAt(0) - 64;
  return n - 1;
}

/** An Excel serial date as ISO text (a date, or a date and time); undefined past the years JS dates hold. */
export function excelDate(serial: number, date1904: boolean): string | undefined {
  const ms = Math.round((serial - (date1904 ? 24_107 : 25_569)) * 86_400_000);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return undefined;
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 19).replace('T', ' ');
}

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** For each cell style (cellXfs index): is its number format a date or time? */
function dateStyles(xml: string | undefined): boolean[] {
  if (!xml) return [];
  const styles = parseXml(xml);
  const custom = new Map<number, string>();
  for (const format of descendants(styles, 'numFmt'))
    custom.set(Number(attribute(format, 'numFmtId')), attribute(format, 'formatCode') ?? '');
  return children(descendants(styles, 'cellXfs')[0], 'xf').map((xf) => {
    const id = Number(attribute(xf, 'numFmtId') ?? 0);
    const code = custom.get(id);
    return BUILTIN_DATE_FORMATS.has(id) || (code !== undefined && isDateFormat(code));
  });
}

/** A format code that shows a date or time: d, m, y, h or s outside literals, escapes and [colour]/[locale]. */
export function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  return /[dmyhs]/i.test(bare) && !/^[#0.,%E+\-\s]*$/.test(bare);
}

/** The shared strings (`si`: plain `t`, or rich-text runs), scanned like the sheets (this part can be large). */
function sharedStrings(xml: string | undefined): string[] {
  if (!xml) return [];
  const out: string[] = [];
  for (const item of xml.matchAll(/<(?:\w+:)?si\b[^>]*>([\s\S]*?)<\/(?:\w+:)?si>|<(?:\w+:)?si\b[^>]*\/>/g)) {
    // Phonetic runs (rPh) are readings, not the text.
    const body = (item[1] ?? '').replace(/<(?:\w+:)?rPh\b[\s\S]*?<\/(?:\w+:)?rPh>/g, '');
    out.push([...body.matchAll(TEXT)].map((m) => decode(m[1]!)).join(''));
  }
  return out;
}

const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (whole, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity.toLowerCase()] ?? whole;
    const code =
      entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
