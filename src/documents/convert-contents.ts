import type { DocumentInfo, StoredContents } from '../../shared/api/resources';
import { type DocumentFormat, documentFormatOf } from '../../shared/documents';
import { bytesOfBase64 } from '../../shared/base64';
import { humanSize } from '../../shared/human-size';
import type { DocumentReading } from './document-converter';

/**
 * A read's contents with each document in it replaced by its text: a PDF or Office file (a `blob`), or an HTML page
 * (text or blob), becomes a `text/markdown` entry whose `document` says what it was and where its pages start. This
 * runs where a read comes from the server, before the cache stores it (mcp/resource-read.ts), so a document is
 * converted once per version: memory and KV keep the text, in the resource's own scope, and an invalidation drops the
 * text with the copy. A document that cannot be converted (too large, unreadable, scanned and nothing else) keeps its
 * bytes and says why; nothing here throws.
 */
export async function convertDocuments(
  contents: StoredContents[],
  reading: DocumentReading,
): Promise<StoredContents[]> {
  if (!contents.some(isCandidate)) return contents;
  return Promise.all(contents.map((entry) => (isCandidate(entry) ? convertOne(entry, reading) : entry)));
}

/**
 * A document by its declared type or name (its bytes are checked once decoded). An MCP Apps view
 * (`text/html;profile=mcp-app`, a `ui://` resource) is HTML to run, not to read: it is never converted.
 */
function isCandidate(entry: StoredContents): boolean {
  if (entry.uri.startsWith('ui://') || /;\s*profile=/i.test(entry.mimeType ?? '')) return false;
  const format = documentFormatOf(entry.mimeType, entry.uri);
  if (!format || format === 'csv') return false; // CSV is text as it is
  return format === 'html' || 'blob' in entry;
}

async function convertOne(entry: StoredContents, reading: DocumentReading): Promise<StoredContents> {
  const declared = entry.mimeType ?? 'application/octet-stream';
  const info: DocumentInfo = { from: declared, bytes: entry.size };
  if (entry.size > reading.maxBytes)
    return {
      ...entry,
      document: {
        ...info,
        failed: `${humanSize(entry.size)} is more than DOCUMENT_MAX_BYTES (${humanSize(reading.maxBytes)})`,
      },
    };
  const bytes = 'blob' in entry ? decoded(entry.blob) : new TextEncoder().encode(entry.text);
  if (!bytes) return { ...entry, document: { ...info, failed: 'its blob is not valid base64' } };
  const format = documentFormatOf(entry.mimeType, entry.uri, bytes);
  // A file that claims a type its bytes do not have is described as what it is: bytes, never parsed as the claim.
  if (!format) return { ...entry, document: { ...info, failed: `its bytes are not a ${claimed(entry)} file` } };
  const output = await reading.converter.convert(bytes, format, reading.limits, nameOf(entry.uri, format));
  if (!output.ok) return { ...entry, document: { ...info, format, failed: output.reason } };
  const { document } = output;
  const { blob: _blob, text: _text, ...rest } = entry as StoredContents & { blob?: string; text?: string };
  return {
    ...rest,
    mimeType: 'text/markdown',
    text: document.text,
    size: new TextEncoder().encode(document.text).byteLength,
    document: {
      ...info,
      format,
      ...(document.title ? { title: document.title } : {}),
      ...(document.pageCount === undefined ? {} : { pageCount: document.pageCount }),
      ...(document.parts ? { parts: document.parts } : {}),
      ...(document.note ? { note: document.note } : {}),
      ...(document.scannedPages?.length ? { scannedPages: document.scannedPages } : {}),
      converter: reading.converter.kind,
    },
  };
}

function claimed(entry: StoredContents): string {
  return documentFormatOf(entry.mimeType, entry.uri)?.toUpperCase() ?? 'document';
}

/** A file name for converters that want one (Workers AI picks its parser by the extension). */
function nameOf(uri: string, format: DocumentFormat): string {
  const last = uri.split(/[/?#]/).filter(Boolean).pop() ?? 'document';
  return last.toLowerCase().endsWith(`.${format}`) ? last : `${last}.${format}`;
}

function decoded(b64: string): Uint8Array | undefined {
  try {
    return bytesOfBase64(b64);
  } catch {
    return undefined;
  }
}
