import type { DocumentInfo, StoredContents } from '../../shared/api/resources';
import type { DocumentFormat } from '../../shared/documents';

/**
 * Where a converted document's pages (slides, sheets) are in its text, for what the model is told: which pages a
 * window holds, on which page a search hit is. `parts.starts[i]` is where part i + 1 starts.
 */

/** The 1-based part that holds character `offset`, or undefined for a document without parts. */
export function partAt(document: DocumentInfo | undefined, offset: number): number | undefined {
  const starts = document?.parts?.starts;
  if (!starts?.length) return undefined;
  // The last part starting at or before `offset` (binary search: a 500-page document, once per window or hit).
  let lo = 0;
  let hi = starts.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! <= offset) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found + 1;
}

/**
 * The parts characters `from`–`to` of the text hold, in words: "page 3 of 40", "pages 3-4 of 40", "sheet 2 of 5
 * (Q3)". Undefined for a document without parts (and for text that is no document).
 */
export function partsLabel(document: DocumentInfo | undefined, from: number, to: number): string | undefined {
  const parts = document?.parts;
  const first = partAt(document, from);
  if (!parts || first === undefined) return undefined;
  const last = partAt(document, Math.max(from, to - 1)) ?? first;
  const of = document.pageCount ?? parts.starts.length;
  const noun = parts.kind;
  const range = first === last ? `${noun} ${first}` : `${noun}s ${first}-${last}`;
  // Sheet names are the document's words: one line each, short (the tag's attribute escaping does the rest).
  const names = parts.names
    ?.slice(first - 1, last)
    .map((name) => name.replace(/\s+/g, ' ').trim().slice(0, 60))
    .filter(Boolean);
  return `${range} of ${of}${names?.length ? ` (${names.join(', ')})` : ''}`;
}

/**
 * The most text a document of `bytes` may hold once converted, for what is decided before it is read (is it longer
 * than a window, so that the model should search it?): a PDF's text is rarely more than twice its bytes (compressed
 * content streams; fonts and images usually weigh more); an Office file is zipped XML, whose text can be five or six
 * times its bytes (bench:docs' DOCX: 6.5 KB → 33 KB). Errs long: a document thought long is searched, not misread.
 */
export function documentTextBound(format: DocumentFormat, bytes: number): number {
  return bytes * (format === 'pdf' ? 2 : format === 'html' || format === 'csv' ? 1 : 6);
}

/** Where part `page` of the document among `contents` starts: the offset `read_resource` takes, and the document. */
export type PageStart = { offset: number; document: DocumentInfo; uri: string } | { problem: string };

/**
 * Part `page` (1-based) of the document among `contents` (as shown: `shownAsText`), as an offset into the resource's
 * text — every text entry in a row, as windows count — or, in words, why there is no such part to read.
 */
export function pageStart(contents: readonly StoredContents[], page: number): PageStart {
  let before = 0;
  for (const entry of contents) {
    if (!('text' in entry)) continue;
    const { document } = entry;
    const starts = document?.parts?.starts;
    if (document && starts?.length) {
      const noun = document.parts!.kind;
      const count = document.pageCount ?? starts.length;
      if (page <= starts.length) return { offset: before + starts[page - 1]!, document, uri: entry.uri };
      return {
        problem:
          page <= count
            ? `${noun} ${page} of ${count} was not converted (${document.note ?? `converted up to ${noun} ${starts.length}`})`
            : `it has ${count} ${noun}${count === 1 ? '' : 's'}; there is no ${noun} ${page}`,
      };
    }
    before += entry.text.length;
  }
  return { problem: 'it is no document with pages (slides, sheets): read it by offset' };
}
