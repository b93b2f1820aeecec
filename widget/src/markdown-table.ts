/** More columns than this is not a table a person reads in a chat: the lines stay text. */
const MAX_COLUMNS = 64;

/** A cell with more characters than this makes its column one of prose. */
const PROSE = 24;

type Align = 'left' | 'center' | 'right' | '';

export interface Table {
  header: string[];
  align: Align[];
  rows: string[][];
  /** The line after the table. */
  end: number;
}

/** Whether the line has a cell separator: a `|` that is not escaped. */
const hasPipe = (line: string) => /(^|[^\\])\|/.test(line);

/**
 * A row's cells, as GFM splits them: on every `|` not escaped (`\|` is a pipe in the cell), a leading and a trailing
 * one dropped, each cell trimmed. Stops past MAX_COLUMNS (the caller then refuses the table).
 */
export function cells(line: string): string[] {
  const text = line.trim();
  const out: string[] = [];
  let cell = '';
  let separated = false;
  for (let i = text.startsWith('|') ? 1 : 0; i < text.length && out.length <= MAX_COLUMNS; i++) {
    const c = text[i]!;
    separated = false;
    if (c === '\\' && text[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '|') {
      out.push(cell.trim());
      cell = '';
      separated = true;
    } else cell += c;
  }
  if (!separated) out.push(cell.trim());
  return out;
}

/**
 * The table whose header row is `lines[start]`, or null: a row with a `|`, then a delimiter row (`| --- | :-: |`)
 * with as many cells, whose colons give each column's alignment. The rows go on to a blank line, a line without a
 * `|`, or a line that opens a block of its own (`opensBlock`). While an answer streams in, a delimiter row still
 * arriving (the last line: `| --- | :-`) already makes the header a table, so the table does not show as a line of
 * pipes first.
 */
export function tableAt(lines: string[], start: number, opensBlock: (line: string) => boolean): Table | null {
  const head = lines[start];
  const delimiter = lines[start + 1];
  if (head === undefined || delimiter === undefined || !hasPipe(head) || !hasPipe(delimiter)) return null;
  if (!/^[\s|:-]+$/.test(delimiter) || !delimiter.includes('-')) return null;
  const header = cells(head);
  const marks = cells(delimiter);
  const last = start + 2 === lines.length;
  if (header.length > MAX_COLUMNS) return null;
  if (last ? marks.length > header.length : marks.length !== header.length) return null;
  if (!marks.every((mark) => (last ? /^:?-*:?$/ : /^:?-+:?$/).test(mark))) return null;
  const align = header.map((_, n): Align => {
    const mark = marks[n] ?? '';
    const left = mark.startsWith(':');
    const right = mark.length > 1 && mark.endsWith(':');
    return left && right ? 'center' : right ? 'right' : left ? 'left' : '';
  });
  let end = start + 2;
  const rows: string[][] = [];
  for (; end < lines.length && hasPipe(lines[end]!) && !opensBlock(lines[end]!); end++) rows.push(cells(lines[end]!));
  return { header, align, rows, end };
}

/**
 * The table as DOM, in a region that scrolls sideways when the table is wider than the message (a phone): focusable,
 * so that the keyboard scrolls it too. Every row has the header's cells: more are dropped, fewer are filled.
 */
export function renderTable(
  table: Table,
  doc: Document,
  inline: (text: string) => Node,
  /** The scrollable region's name, which a keyboard user focuses to scroll it (i18n: `markdown.table`). */
  label: string,
): HTMLElement {
  const wrap = doc.createElement('div');
  wrap.setAttribute('class', 'table-wrap');
  wrap.setAttribute('role', 'region');
  wrap.setAttribute('aria-label', label);
  wrap.setAttribute('tabindex', '0');
  const element = wrap.appendChild(doc.createElement('table'));
  element.setAttribute('part', 'table');
  const widest = table.align.map(() => 0);
  const headers: Element[] = [];
  const row = (texts: string[], tag: 'th' | 'td') => {
    const tr = doc.createElement('tr');
    table.align.forEach((align, n) => {
      const cell = tr.appendChild(doc.createElement(tag));
      if (tag === 'th') headers.push(cell);
      if (tag === 'th') cell.setAttribute('scope', 'col');
      if (align) cell.setAttribute('data-align', align);
      cell.append(inline(texts[n] ?? ''));
      widest[n] = Math.max(widest[n]!, cell.textContent?.length ?? 0);
    });
    return tr;
  };
  element.appendChild(doc.createElement('thead')).append(row(table.header, 'th'));
  if (table.rows.length) element.appendChild(doc.createElement('tbody')).append(...table.rows.map((r) => row(r, 'td')));
  // A column of sentences gets room to read them (on a phone the table then scrolls, rather than squeezing the
  // text into a word per line); a column of short values stays as narrow as they are.
  headers.forEach((th, n) => {
    if (widest[n]! > PROSE) th.setAttribute('class', 'prose');
  });
  return wrap;
}
