import type { Context } from 'hono';
import type { z } from 'zod';
import { formatIssues } from '../config';
import { ApiError, badRequest } from '../errors';

/** Request bodies above this are refused before parsing (413). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/**
 * Parses a JSON body against a zod schema (the schema is the single source
 * of truth for the body's type). Malformed JSON, a wrong content type or a
 * schema violation → 400 naming the field; too large → 413.
 */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json');
  }
  const text = await c.req.text();
  if (new TextEncoder().encode(text).byteLength > MAX_JSON_BODY_BYTES) {
    throw new ApiError(413, 'payload_too_large', `Request body exceeds ${MAX_JSON_BODY_BYTES} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest('Request body is not valid JSON', 'invalid_json');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw badRequest(`Invalid request body: ${formatIssues(parsed.error)}`, 'invalid_body');
  return parsed.data;
}
