import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { StoredContents } from '../cache/types';

/** A MIME type whose content is text (or none given: servers mostly omit it for text). One rule for every caller. */
export const isTextMime = (mime: string | undefined) => !mime || mime.startsWith('text/') || /json|xml|yaml|javascript/.test(mime);

/** Decoded byte length of base64 text, without decoding it. */
export function base64ByteLength(b64: string): number {
  const clean = b64.replace(/[\s]/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}

/**
 * Every entry of a `resources/read` result, with its size. Blobs stay base64
 * exactly as received: they are never decoded, let alone decoded as text.
 */
export function toStoredContents(contents: ReadResourceResult['contents']): StoredContents[] {
  return contents.map((entry) => {
    const base = {
      uri: entry.uri,
      ...(entry.mimeType === undefined ? {} : { mimeType: entry.mimeType }),
      ...(entry._meta === undefined ? {} : { _meta: entry._meta }),
    };
    if ('blob' in entry && typeof entry.blob === 'string') return { ...base, blob: entry.blob, size: base64ByteLength(entry.blob) };
    const text = 'text' in entry && typeof entry.text === 'string' ? entry.text : '';
    return { ...base, text, size: new TextEncoder().encode(text).byteLength };
  });
}
