/**
 * What an upload is, decided once when it is stored: the type it declared
 * (or, declared as nothing or `application/octet-stream`, one from its
 * extension), unless its first bytes contradict it. A file claiming to be an
 * image, a PDF or an Office document without that format's signature, or
 * claiming text while holding NUL bytes, is kept as
 * `application/octet-stream`: described to the model, never decoded as text
 * or sent to it as an image (docs/SECURITY.md, "Uploads").
 */

const BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  log: 'text/plain',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

const ZIP = [0x50, 0x4b, 0x03, 0x04];
/** Formats we act on by type, and how their bytes begin. */
const SIGNATURES: Array<[test: (type: string) => boolean, magic: Array<number[]>]> = [
  [(t) => t === 'image/png', [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]]],
  [(t) => t === 'image/jpeg', [[0xff, 0xd8, 0xff]]],
  [(t) => t === 'image/gif', [[0x47, 0x49, 0x46, 0x38]]],
  [(t) => t === 'image/webp', [[0x52, 0x49, 0x46, 0x46]]],
  [(t) => t === 'application/pdf', [[0x25, 0x50, 0x44, 0x46]]],
  [(t) => t.startsWith('application/vnd.openxmlformats-officedocument.'), [ZIP]],
];

/** Text an upload may be read as (UTF-8; the read checks every byte again). */
export function isTextType(mimeType: string): boolean {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|javascript|x-ndjson|ld\+json)$/.test(type) ||
    /\+(json|xml)$/.test(type)
  );
}

/** The type an upload is kept as, from what it declared, its name and its first bytes (up to 4 KiB are enough). */
export function uploadType(declared: string, name: string, head: Uint8Array): string {
  const given = declared.split(';')[0]!.trim().toLowerCase();
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  const type =
    !given || given === 'application/octet-stream'
      ? (BY_EXTENSION[extension] ?? 'application/octet-stream')
      : /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(given)
        ? given
        : 'application/octet-stream';
  const signature = SIGNATURES.find(([test]) => test(type));
  if (signature && !signature[1].some((magic) => magic.every((byte, i) => head[i] === byte)))
    return 'application/octet-stream';
  if (isTextType(type) && head.includes(0)) return 'application/octet-stream';
  return type;
}
