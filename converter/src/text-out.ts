import type { ConvertedDocument, DocumentFormat } from '../../shared/documents';

/**
 * The converted text as it is built: parts (pages, slides, sheets) appended in order, where each starts recorded,
 * and the `maxChars` limit kept — past it nothing more is added, and `cutIn` says in which part the text stopped.
 * A document's converter writes to one of these; the limits are honoured here, not in each reader.
 *
 * @example
 * const out = new TextOut(2_000_000);
 * for (const page of pages) if (!out.part() || !out.add(page)) break;
 * out.text; out.starts; // "…", [0, 1234, …]
 */
export class TextOut {
  readonly starts: number[] = [];
  /** The 1-based part in which the text was cut, 0 before any part; undefined while nothing was cut. */
  cutIn: number | undefined;
  private readonly chunks: string[] = [];
  private length = 0;

  constructor(private readonly maxChars: number) {}

  get full(): boolean {
    return this.cutIn !== undefined;
  }

  get text(): string {
    return this.chunks.join('');
  }

  /** Starts the next part (a blank line after the one before); false when the text is already full. */
  part(): boolean {
    if (this.full) return false;
    if (this.length > 0 && !this.add('\n\n')) return false;
    this.starts.push(this.length);
    return true;
  }

  /** Appends `text`, or as much of it as fits; false once the limit is reached. */
  add(text: string): boolean {
    if (this.full) return false;
    const room = this.maxChars - this.length;
    if (text.length <= room) {
      this.chunks.push(text);
      this.length += text.length;
      return true;
    }
    // Never split a surrogate pair.
    const end = room > 0 && isHighSurrogate(text.charCodeAt(room - 1)) ? room - 1 : room;
    this.chunks.push(text.slice(0, end));
    this.length += end;
    this.cutIn = this.starts.length;
    return false;
  }

  /** A document without parts (DOCX, HTML, CSV): its text, and where it was cut. */
  whole(format: DocumentFormat, title?: string): ConvertedDocument {
    return withNotes({ format, text: this.text, ...(title ? { title } : {}) }, [this.cutNote()]);
  }

  /**
   * A document of parts (`count` in all, `maxPages` of them read at most): its text, where each part starts, and its
   * notes — the reader's own, then where a limit stopped it ("converted up to page 500 of 812 (DOCUMENT_MAX_PAGES)").
   */
  paged(document: {
    format: DocumentFormat;
    kind: 'page' | 'slide' | 'sheet';
    count: number;
    maxPages: number;
    title?: string | undefined;
    names?: string[];
    notes?: Array<string | undefined>;
  }): ConvertedDocument {
    const { format, kind, count, maxPages, title, names, notes = [] } = document;
    const pageLimit =
      count > maxPages && !this.full
        ? `converted up to ${kind} ${maxPages} of ${count} (DOCUMENT_MAX_PAGES)`
        : undefined;
    return withNotes(
      {
        format,
        text: this.text,
        ...(title ? { title } : {}),
        pageCount: count,
        parts: { kind, starts: this.starts, ...(names ? { names } : {}) },
      },
      [...notes, pageLimit, this.cutNote(kind, count)],
    );
  }

  /** "text stops at 2,000,000 characters (DOCUMENT_MAX_CHARS), in page 7 of 40", or undefined if nothing was cut. */
  private cutNote(kind?: string, count?: number): string | undefined {
    if (this.cutIn === undefined) return undefined;
    const where = kind && this.cutIn > 0 ? `, in ${kind} ${this.cutIn}${count ? ` of ${count}` : ''}` : '';
    return `text stops at ${this.maxChars.toLocaleString('en-US')} characters (DOCUMENT_MAX_CHARS)${where}`;
  }
}

function withNotes(document: ConvertedDocument, notes: Array<string | undefined>): ConvertedDocument {
  const note = notes.filter(Boolean).join('; ');
  return note ? { ...document, note } : document;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
