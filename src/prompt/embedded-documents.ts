import type { DocumentInfo, StoredContents } from '../../shared/api/resources';
import { convertDocuments } from '../documents/convert-contents';
import type { DocumentReading } from '../documents/document-converter';
import { toStoredContents } from '../mcp/contents';
import { renderResource } from './render';

/*
 * Documents that arrive outside a read: embedded in a tool result (server-filesystem's `read_media_file` returns a PDF
 * as `{type: "resource", resource: {uri: "file:///…/x.pdf", mimeType: "application/octet-stream", blob}}`) or in a
 * prompt's messages. They are converted with the converter and limits of reads (documents/convert-contents.ts: by
 * MIME type, else the name's extension, the bytes checked) and rendered as a read renders them: the `[Document: …]`
 * line, then the text in READ_WINDOW_CHARS windows, each naming its pages; one that cannot be converted is described
 * with the reason. Nothing is cached: an embedded document has no version to key it by, it is the call's own.
 */

/** An embedded resource as MCP carries it. */
type Embedded = { uri: string; mimeType?: string; text?: string; blob?: string };

/** The converted documents among a result's parts, by the part's index. */
export type EmbeddedDocuments = ReadonlyMap<number, StoredContents>;

/**
 * The embedded resources among `parts` (a tool result's content, a prompt's messages' contents) that are documents,
 * converted — or, when they cannot be, kept with the reason (`document.failed`). Empty when documents are not
 * converted (DOCUMENT_CONVERTER=off) or there are none; never throws.
 */
export async function embeddedDocuments(
  parts: ReadonlyArray<{ type: string; resource?: unknown }>,
  reading: DocumentReading | undefined,
): Promise<EmbeddedDocuments> {
  const found = new Map<number, StoredContents>();
  if (!reading) return found;
  await Promise.all(
    parts.map(async (part, index) => {
      const resource = part.type === 'resource' ? (part.resource as Embedded | undefined) : undefined;
      if (typeof resource?.uri !== 'string') return;
      const [entry] = await convertDocuments(toStoredContents([resource as never]), reading);
      if (entry?.document) found.set(index, entry);
    }),
  );
  return found;
}

/** Where a converted document's whole text is kept, to be read on from the window after the first. */
export type KeepDocument = (text: string, source: { uri: string; document: DocumentInfo }) => string | undefined;

/**
 * One embedded document as a read shows it: the `[Document: …]` line and its first window, which says its pages —
 * its text whole when it fits one window, or when nothing keeps the rest (`keep` absent or declining); otherwise the
 * text is kept whole under the URI `keep` returns, and the window ends with how to read on from there. A document
 * that could not be converted is described with the reason.
 */
export function renderEmbeddedDocument(
  server: string,
  entry: StoredContents,
  options: { windowChars: number; keep?: KeepDocument | undefined },
): string {
  const text = 'text' in entry ? entry.text : '';
  const long = text.length > options.windowChars;
  const kept = long && entry.document ? options.keep?.(text, { uri: entry.uri, document: entry.document }) : undefined;
  return renderResource(
    { server, uri: kept ?? entry.uri, contents: [entry] },
    { windowChars: kept ? options.windowChars : Number.MAX_SAFE_INTEGER, images: false, maxImageBytes: 0 },
  ).text;
}
