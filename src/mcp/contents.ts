import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { bytesOfBase64 } from '../../shared/base64';
import type { StoredContents } from '../cache/types';

/** A MIME type whose content is text (or none given: servers mostly omit it for text). One rule for every caller. */
export const isTextMime = (mime: string | undefined) =>
  !mime || mime.startsWith('text/') || /json|xml|yaml|javascript/.test(mime);

/** Decoded byte length of base64 text, without decoding it. */
export function base64ByteLength(b64: string): number {
  const clean = b64.replace(/[\s]/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

/**
 * Every entry of a `resources/read` result, with its size. Blobs stay base64
 * exactly as received (a textual one is shown to the model as its text:
 * `shownAsText`, below).
 */
export function toStoredContents(contents: ReadResourceResult['contents']): StoredContents[] {
  return contents.map((entry) => {
    const base = {
      uri: entry.uri,
      ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }),
      ...(entry._meta === undefined ? {} : { _meta: entry._meta }),
    };
    if ('blob' in entry && typeof entry.blob === 'string')
      return { ...base, blob: entry.blob, size: base64ByteLength(entry.blob) };
    const text = 'text' in entry && typeof entry.text === 'string' ? entry.text : '';
    return { ...base, text, size: new TextEncoder().encode(text).byteLength };
  });
}

/** The UTF-8 text a base64 blob holds, or undefined when its bytes are not valid UTF-8 (or not base64). */
export function utf8OfBase64(blob: string): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytesOfBase64(blob));
  } catch {
    return undefined;
  }
}

const asText = new WeakMap<readonly StoredContents[], StoredContents[]>();

/**
 * The contents as the model is shown them: a blob whose declared MIME type
 * is text (`text/*`, JSON, XML, YAML, JavaScript — not a missing type) and
 * whose bytes are valid UTF-8 is its text (server-everything's `blob/{id}`
 * holds plain text under `text/plain`, and hiding it helped nobody); any
 * other blob stays a blob, to be described, never decoded. What is stored
 * and what `/resources/read` returns are untouched. Memoised per contents.
 */
export function shownAsText(contents: readonly StoredContents[]): StoredContents[] {
  const known = asText.get(contents);
  if (known) return known;
  const shown = contents.map((entry) => {
    if (!('blob' in entry) || !entry.mimeType || !isTextMime(entry.mimeType)) return entry;
    const text = utf8OfBase64(entry.blob);
    if (text === undefined) return entry;
    const { blob: _blob, ...rest } = entry;
    return { ...rest, text };
  });
  asText.set(contents, shown);
  return shown;
}
