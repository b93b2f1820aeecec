import type { UIMessage } from 'ai';
import type { Attachment } from '../../shared/api/conversations';
import { type IncomingFile, UPLOADS_SERVER } from '../../shared/api/files';
import { bytesOfBase64 } from '../../shared/base64';
import { badRequest } from '../errors';

/*
 * `useChat` file parts (the AI SDK's `FileUIPart`: `{type: 'file', mediaType, filename?, url}`) in a user message:
 * the files become uploads of the conversation (uploads/intake.ts, the files route's own way in: the same store and
 * limits) and the message attaches them by reference, as the widget does — the model gets one line naming each
 * file and reads it when the question needs it, never the base64 pasted into its prompt.
 */

type Part = UIMessage['parts'][number];
type FileUIPart = Extract<Part, { type: 'file' }>;

/** What a message's file parts come to: files to store, uploads it names already, and the message without them. */
export interface MessageFiles {
  files: IncomingFile[];
  /** `upload://` URIs of this conversation's own files (a frontend that uploaded first, then sent the part). */
  existing: Attachment[];
  message: UIMessage;
}

export const hasFileParts = (message: UIMessage) => message.parts.some((part) => part.type === 'file');

/**
 * Reads a message's file parts: each `data:` URL decoded to its bytes (400 `invalid_file` when it is not a well-formed
 * one); an `upload://` URI of this conversation kept as a reference; any other URL refused (400
 * `unsupported_file_url`): the service does not fetch what a frontend could send itself — a remote URL would be a
 * download on the caller's behalf from wherever it points, past the limits an upload is checked against before it
 * is read.
 */
export function messageFiles(message: UIMessage, conversation: string): MessageFiles {
  const files: IncomingFile[] = [];
  const existing: Attachment[] = [];
  const rest: Part[] = [];
  for (const part of message.parts) {
    if (part.type !== 'file') {
      rest.push(part);
      continue;
    }
    const title = part.filename || 'file';
    if (part.url.startsWith(`upload://${conversation}/`)) existing.push({ server: UPLOADS_SERVER, uri: part.url });
    else if (part.url.startsWith('data:')) files.push({ title, type: part.mediaType, body: dataUrlBlob(part, title) });
    else
      throw badRequest(
        `The file "${title}" is sent as a ${scheme(part.url)} URL; send its bytes as a data: URL (what useChat's sendMessage({files}) makes), or upload it with POST /v1/conversations/{id}/files and send its upload:// URI`,
        'unsupported_file_url',
      );
  }
  return { files, existing, message: { ...message, parts: rest } };
}

const scheme = (url: string) => /^([a-z][a-z0-9+.-]{0,20}):/i.exec(url)?.[1]?.toLowerCase() ?? 'relative';

/** A `data:[<type>][;base64],<data>` URL's bytes (RFC 2397). */
function dataUrlBlob(part: FileUIPart, title: string): Blob {
  const comma = part.url.indexOf(',');
  const header = comma < 0 ? '' : part.url.slice(5, comma);
  const data = comma < 0 ? '' : part.url.slice(comma + 1);
  const type = part.mediaType || header.split(';')[0] || '';
  try {
    if (comma < 0) throw new Error('no comma');
    if (!/;base64$/i.test(header)) return new Blob([decodeURIComponent(data)], { type });
    return new Blob([bytesOfBase64(data)], { type });
  } catch {
    throw badRequest(`The file "${title}" is not a well-formed data: URL`, 'invalid_file');
  }
}
