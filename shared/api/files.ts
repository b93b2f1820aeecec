import { z } from 'zod';

/**
 * The user's own files (`/v1/conversations/{id}/files`): uploaded to one
 * conversation, kept in R2 under its tenant and id, and served to that
 * conversation only, as resources of the built-in MCP server `uploads`.
 */

/** The built-in server's id in a conversation's catalog (reserved: no configured server may take it). */
export const UPLOADS_SERVER = 'uploads';

/** An upload's resource URI: `upload://<conversation>/<name>` (the name is already a safe file name). */
export const uploadUri = (conversation: string, name: string) => `upload://${conversation}/${name}`;

/** A file name as this service keeps it: letters, digits, `.`, `_`, `-`; no leading dot; at most 128 characters. */
export const SAFE_FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

export const UploadedFile = z
  .object({
    uri: z.string().meta({
      description: 'Its resource URI: attach it to a message (`{server: "uploads", uri}`), or let the model read it.',
      example: 'upload://c_01JZ8Q6Y3M1D7K2W5X9V4T0R8S/quarterly-report.pdf',
    }),
    name: z.string().meta({
      description:
        'The file name as kept: the uploaded name made safe (accents dropped, other characters `_`), with `-2`, `-3`… before the extension when the conversation has that name already.',
      example: 'quarterly-report.pdf',
    }),
    title: z.string().meta({ description: 'The name as uploaded.', example: 'Quarterly report.pdf' }),
    mimeType: z.string().meta({ description: 'The type the upload declared (or one from the extension).' }),
    size: z.number().int().meta({ description: 'Bytes.' }),
    uploadedAt: z.string().meta({ description: 'ISO 8601.' }),
  })
  .meta({ id: 'UploadedFile' });
export type UploadedFile = z.infer<typeof UploadedFile>;

export const UploadedFiles = z
  .object({ files: z.array(UploadedFile) })
  .meta({ id: 'UploadedFiles', description: 'The conversation’s files (or the ones just stored), oldest first.' });
export type UploadedFiles = z.infer<typeof UploadedFiles>;

/**
 * A file someone sent, before it is stored: a `file` field of an upload form, or a `useChat` file part decoded
 * (src/chat/file-parts.ts → src/uploads/intake.ts). Here so both sides name it without one importing the other.
 */
export interface IncomingFile {
  /** The name as sent (kept as the upload's title; its safe form is the name). */
  title: string;
  /** The type it declared ('' or `application/octet-stream`: from its extension). */
  type: string;
  body: Blob;
}
