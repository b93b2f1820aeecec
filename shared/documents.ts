/**
 * The contract between the service and its document converter (the `converter/` Worker, reached by the service
 * binding `CONVERTER`): what kinds of documents there are, how one is recognised, what a conversion returns.
 * Shared so that both sides agree on it; types and one pure function, nothing else.
 */

export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'html' | 'csv';

/** What a conversion may produce at most: past either, it stops and its text says so. */
export interface ConvertLimits {
  maxPages: number;
  maxChars: number;
}

export interface ConvertInput {
  bytes: Uint8Array;
  /** The format recognised by `documentFormatOf` (the converter checks it against the bytes again). */
  format: DocumentFormat;
  limits: ConvertLimits;
}

/** A document as text: markdown with its structure, and where its pages (slides, sheets) start in it. */
export interface ConvertedDocument {
  format: DocumentFormat;
  text: string;
  title?: string | undefined;
  /** Pages of a PDF, slides of a deck, sheets of a workbook (all of them, also past `maxPages`). */
  pageCount?: number | undefined;
  parts?: { kind: 'page' | 'slide' | 'sheet'; starts: number[]; names?: string[] | undefined } | undefined;
  /** What the text lacks ("scanned: 12 pages, no text layer"; "converted up to page 500 of 812"). */
  note?: string | undefined;
  /** Pages (1-based) with no text but an image: a scanner's pages, whose image `pageImage` can give. */
  scannedPages?: number[] | undefined;
}

export type ConvertOutput = { ok: true; document: ConvertedDocument } | { ok: false; reason: string };

/** One page of a PDF as an image (a scanned page, for a model that reads images). */
export interface PageImageInput {
  bytes: Uint8Array;
  /** 1-based. */
  page: number;
  /** The PNG may be at most this large (INLINE_IMAGE_MAX_BYTES): the image is scaled down until it fits. */
  maxBytes: number;
}

export type PageImageOutput =
  | {
      ok: true;
      image: {
        mimeType: 'image/png';
        bytes: Uint8Array;
        width: number;
        height: number;
        /** The page image's own size, when it was scaled down to fit. */
        scaledFrom?: { width: number; height: number } | undefined;
      };
    }
  | { ok: false; reason: string };

/** The converter's RPC surface (a WorkerEntrypoint's methods). */
export interface DocumentConverterRpc {
  convert(input: ConvertInput): Promise<ConvertOutput>;
  pageImage(input: PageImageInput): Promise<PageImageOutput>;
}

const BY_MIME: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/csv': 'csv',
};

const BY_EXTENSION: Record<string, DocumentFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  html: 'html',
  htm: 'html',
  csv: 'csv',
};

/**
 * The document format of a resource, from its declared MIME type, else its name's extension (servers often say
 * `application/octet-stream`); with `bytes`, the bytes must agree — a "PDF" that does not start with `%PDF-`, or an
 * Office file that is not a ZIP, is no document (a file claiming another type is described, never parsed as one).
 * CSV and HTML are text: their bytes are not checked here.
 */
export function documentFormatOf(
  mimeType: string | undefined,
  name?: string | undefined,
  bytes?: Uint8Array | undefined,
): DocumentFormat | undefined {
  const mime = mimeType?.split(';')[0]?.trim().toLowerCase();
  const extension = name?.toLowerCase().match(/\.([a-z0-9]+)(?:[?#].*)?$/)?.[1];
  const format =
    (mime ? BY_MIME[mime] : undefined) ??
    (!mime || mime === 'application/octet-stream' || mime === 'binary/octet-stream'
      ? extension
        ? BY_EXTENSION[extension]
        : undefined
      : undefined);
  if (!format || !bytes) return format;
  if (format === 'pdf') return startsWith(bytes, PDF_MAGIC, 1024) ? format : undefined;
  if (format === 'docx' || format === 'xlsx' || format === 'pptx')
    return startsWith(bytes, ZIP_MAGIC, 0) ? format : undefined;
  return format;
}

const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]; // PK\3\4

/** `magic` at the start of `bytes`, or (PDF readers allow leading junk) within its first `within` bytes. */
function startsWith(bytes: Uint8Array, magic: number[], within: number): boolean {
  const last = Math.min(within, bytes.length - magic.length);
  outer: for (let at = 0; at <= last; at++) {
    for (let i = 0; i < magic.length; i++) if (bytes[at + i] !== magic[i]) continue outer;
    return true;
  }
  return false;
}
