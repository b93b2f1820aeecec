import type { Context } from 'hono';
import type { z } from 'zod';
import { formatIssues } from '../config';
import { ApiError, badRequest } from '../errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth';

/**
 * Parses a JSON body against a zod schema (the schema is the single source
 * of truth for the body's type). Malformed JSON, a wrong content type or a
 * schema violation → 400 naming the field. (Size is limited before this, by
 * the body-limit middleware in app.ts.)
 */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json');
  }
  const text = await c.req.text();
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw badRequest(`Request body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`, 'invalid_json');
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
