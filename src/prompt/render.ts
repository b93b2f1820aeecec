import type { StoredContents } from '../cache/types';
import { shownAsText, toStoredContents } from '../mcp/contents';
import type { ModelView } from '../../shared/api/resources';
import { humanSize } from '../../shared/human-size';
import { continuationNote, resourceBlock } from './markers';
import { identifier, metadataLine } from './catalog-lines';
import { partsLabel } from '../documents/pages';
import { windowEnd } from './window-end';
import type { DocumentInfo } from '../../shared/api/resources';

/**
 * What the model sees of resources: the one rendering function used by the
 * `read_resource` tool, attachments and the `/resources/read` endpoint.
 *
 * - Text is wrapped as reference material, `<resource server uri mime>…</resource>`
 *   (it is untrusted input), and never cut silently: past `windowChars` it
 *   comes in windows, each saying which part it is and how to get the next,
 *   each ending at a page or line end near its edge (window-end.ts).
 * - Binary content is described — type, size, name, URI — never decoded;
 *   a blob declared text whose bytes are valid UTF-8 is shown as text.
 * - Images within `maxImageBytes` become image parts for models that accept
 *   them; otherwise they are described like any binary.
 */
export interface RenderOptions {
  windowChars: number;
  /** Character offset into the resource's text (for the next window). */
  offset?: number;
  /** The model accepts image parts. */
  images: boolean;
  maxImageBytes: number;
}

export interface RenderTarget {
  server: string;
  uri: string;
  /** From the catalog listing, when known. */
  title?: string | undefined;
  contents: StoredContents[];
}

export type { ModelView } from '../../shared/api/resources';

/** One line for content the model cannot be given: what it is, how big, where it is. */
export function describeBinary(
  entry: { uri: string; mimeType?: string | undefined; size?: number | undefined; title?: string | undefined },
  server: string,
): string {
  const size = entry.size === undefined ? 'size unknown' : humanSize(entry.size);
  // The server's words, outside any wrapper: each kept to its line.
  const name = entry.title ? `, "${metadataLine(entry.title, 120)}"` : '';
  const mime = metadataLine(entry.mimeType ?? 'application/octet-stream', 80);
  return `[Binary resource: ${mime}, ${size}${name}, uri ${identifier(entry.uri)}, server ${server} — binary content cannot be shown inline]`;
}

/**
 * The line before a converted document's first window: what it was and what its text is. Title, type and note are the
 * document's (or the server's) words, so each is flattened to one escaped line: they sit outside the wrapper.
 */
function documentLine(document: DocumentInfo, server: string, uri: string, images: boolean): string {
  const title = document.title ? `, "${metadataLine(document.title, 120)}"` : '';
  const count = document.pageCount === undefined ? '' : `, ${document.pageCount} ${document.parts?.kind ?? 'page'}s`;
  const note = document.note ? ` Note: ${metadataLine(document.note, 200)}.` : '';
  // A model that reads images may look at a scanned page: read_resource with its page gives the page's image.
  const scans = images && document.scannedPages?.length ? ' A scanned page is read as an image: pass its page.' : '';
  return `[Document: ${metadataLine(document.from, 80)}, ${humanSize(document.bytes)}${title}${count}, uri ${identifier(uri)}, server ${server} — its text follows, converted (tables and lists as markdown).${note}${scans}]`;
}

export function renderResource(target: RenderTarget, options: RenderOptions): ModelView {
  // A textual blob (declared text, valid UTF-8) is shown as the text it is.
  const contents = shownAsText(target.contents);
  const texts = contents.filter((c): c is Extract<StoredContents, { text: string }> => 'text' in c);
  const total = texts.reduce((sum, c) => sum + c.text.length, 0);
  const offset = Math.min(Math.max(0, options.offset ?? 0), total);
  const end = windowEnd(texts, offset, options.windowChars);
  const windowed = total > options.windowChars || offset > 0;

  const out: string[] = [];
  const images: ModelView['images'] = [];
  let start = 0; // running offset of each text entry within the resource's text
  for (const entry of contents) {
    if ('text' in entry) {
      const from = Math.max(offset, start);
      const to = Math.min(end, start + entry.text.length);
      // A converted document says once what it was (a scanned one, whose text is empty, says only that).
      if (entry.document && offset <= start && (from < to || entry.text.length === 0))
        out.push(documentLine(entry.document, target.server, entry.uri, options.images));
      if (from < to) {
        // …and each window which of its pages it holds.
        const tag = {
          server: target.server,
          uri: entry.uri,
          mime: entry.mimeType ?? 'text/plain',
          window: windowed ? { from, to, total } : undefined,
          pages: partsLabel(entry.document, from - start, to - start),
        };
        out.push(resourceBlock(tag, entry.text.slice(from - start, to - start)));
      }
      start += entry.text.length;
      continue;
    }
    if (offset > 0) continue; // binaries were already described in the first window
    const isImage = entry.mimeType?.startsWith('image/') ?? false;
    if (isImage && options.images && entry.size <= options.maxImageBytes) {
      images.push({ mediaType: entry.mimeType!, base64: entry.blob, uri: entry.uri });
      out.push(
        `[Image resource: ${metadataLine(entry.mimeType!, 80)}, ${humanSize(entry.size)}, uri ${identifier(entry.uri)}, server ${target.server} — attached as an image]`,
      );
    } else {
      const failed = entry.document?.failed;
      out.push(
        describeBinary({ ...entry, title: target.title }, target.server) +
          (failed ? ` (a document whose text could not be read: ${metadataLine(failed, 200)})` : ''),
      );
    }
  }
  if (end < total) {
    out.push(
      continuationNote({ from: offset, to: end, total }, { uri: target.uri, server: target.server, offset: end }),
    );
  }
  if (!out.length && total > 0) {
    // A stale offset (or a resource that shrank between two windows): said as it is, never "empty".
    out.push(
      `[Resource ${target.uri} on server ${target.server} has ${total} characters; offset ${offset} is at or past its end. Read it from an offset below ${total}.]`,
    );
  } else if (!out.length) out.push(`[Resource ${target.uri} on server ${target.server} is empty]`);
  return { text: out.join('\n'), images, window: { offset, end, total, ...(end < total ? { nextOffset: end } : {}) } };
}

/** One passage of a resource's text (from search_resource), wrapped like a window of it. */
export function wrapPassage(
  server: string,
  uri: string,
  mime: string,
  passage: { offset: number; end: number; text: string },
  total: number,
  pages?: string | undefined,
): string {
  return resourceBlock(
    { server, uri, mime, window: { from: passage.offset, to: passage.end, total }, pages },
    passage.text,
  );
}

/**
 * A resource embedded in a tool result or a prompt message, rendered like a
 * read: text wrapped (windowed at `windowChars`), a blob described.
 */
export function renderEmbedded(
  server: string,
  resource: { uri: string; mimeType?: string; text?: string; blob?: string },
  windowChars: number,
): string {
  const contents = toStoredContents([resource as Parameters<typeof toStoredContents>[0][number]]);
  return renderResource({ server, uri: resource.uri, contents }, { windowChars, images: false, maxImageBytes: 0 }).text;
}
