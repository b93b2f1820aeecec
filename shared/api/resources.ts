import { z } from 'zod';
import { CacheHint } from './catalog';
import { ServerId } from './common';

/** Resource reads for display (`POST /v1/conversations/:id/resources/read`). */

export const ReadResourceBody = z
  .object({
    server: ServerId.optional().meta({ description: 'Which server; optional when only one server has the URI.' }),
    uri: z.string().min(1).max(4096),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .meta({ description: 'Character offset of the text window, as `read_resource` takes it.' }),
    page: z.number().int().min(1).optional().meta({
      description:
        "A converted document's page (slide, sheet), 1-based, instead of `offset`: the window starting there; for a scanned page, its image (when the model reads images).",
    }),
  })
  .strict()
  .meta({ id: 'ReadResourceBody' });
export type ReadResourceBody = z.infer<typeof ReadResourceBody>;

/**
 * What a document (PDF, Office file, HTML page) became: its text is the entry's `text`, markdown with the document's
 * structure; this says what it was converted from and where its pages (slides, sheets) start. A document that could
 * not be converted keeps its `blob` and says why here (`failed`).
 */
export const DocumentInfo = z
  .object({
    from: z.string().meta({ description: 'The MIME type the document was served as (or recognised by its bytes).' }),
    bytes: z.number().meta({ description: 'Size of the original document, in bytes.' }),
    format: z.enum(['pdf', 'docx', 'xlsx', 'pptx', 'html', 'csv']).optional(),
    title: z.string().optional(),
    pageCount: z.number().optional().meta({ description: 'Pages of a PDF, slides of a deck, sheets of a workbook.' }),
    parts: z
      .object({
        kind: z.enum(['page', 'slide', 'sheet']),
        starts: z.array(z.number()).meta({ description: 'Character offset in `text` where part 1, 2, … starts.' }),
        names: z.array(z.string()).optional().meta({ description: 'Sheet names, in order.' }),
      })
      .optional(),
    note: z.string().optional().meta({ description: 'What the text lacks, e.g. "scanned: 12 pages, no text layer".' }),
    scannedPages: z
      .array(z.number())
      .optional()
      .meta({ description: 'Pages with no text but an image (scanned): read one with `page` to get its image.' }),
    failed: z.string().optional().meta({ description: 'Why it was not converted (too large, unreadable, …).' }),
    converter: z.enum(['local', 'workers-ai']).optional(),
  })
  .meta({ id: 'DocumentInfo' });
export type DocumentInfo = z.infer<typeof DocumentInfo>;

/** One entry of a `resources/read` result, stored losslessly: blobs stay base64 as received; a document, as its text. */
export const StoredContents = z
  .intersection(
    z.object({
      uri: z.string(),
      mimeType: z.string().optional(),
      size: z.number().meta({ description: 'Bytes: UTF-8 bytes of `text`, decoded bytes of `blob`.' }),
      _meta: z.record(z.string(), z.unknown()).optional(),
      document: DocumentInfo.optional().meta({
        description: 'Set when the entry is a converted document (its `text`), or one that could not be converted.',
      }),
    }),
    z.union([
      z.object({ text: z.string() }),
      z.object({ blob: z.string().meta({ description: 'Base64, as the server sent it.' }) }),
    ]),
  )
  .meta({ id: 'ResourceContents' });
export type StoredContents = z.infer<typeof StoredContents>;

/** What the model receives of a resource window. */
export const ModelView = z
  .object({
    text: z.string(),
    images: z.array(z.object({ mediaType: z.string(), base64: z.string(), uri: z.string() })),
    window: z
      .object({ offset: z.number(), end: z.number(), total: z.number(), nextOffset: z.number().optional() })
      .meta({
        description: 'Text characters in the resource, and where the next window starts (if any).',
      }),
  })
  .meta({ id: 'ModelView' });
export type ModelView = z.infer<typeof ModelView>;

/** Which layer answered a read; `catalog`: a binary described from its listing, never downloaded. */
export const CacheSource = z.enum(['memory', 'kv', 'miss']);
export type CacheSource = z.infer<typeof CacheSource>;

export const ResourceView = z
  .object({
    server: ServerId,
    uri: z.string(),
    cache: z.union([CacheSource, z.literal('catalog')]),
    fetchedAt: z.number().meta({ description: 'When the content was fetched from the server (ms since epoch).' }),
    hint: CacheHint.optional(),
    freshness: z.object({ notifications: z.boolean(), ttlMs: z.number() }).optional().meta({
      description: 'Whether change notifications cover this copy, and how long it may be served.',
    }),
    contents: z.array(StoredContents),
    model: ModelView.meta({ description: 'What the model receives for this window.' }),
  })
  .meta({ id: 'ResourceView', description: 'A resource as stored, and what the model would see of it.' });
export type ResourceView = z.infer<typeof ResourceView>;
