import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { loadConfig } from '../../config';
import { ApiError } from '../../errors';
import { errorResponse } from '../errors';
import type { AppBindings } from '../types';

/**
 * The body limit of a request that may carry files — an upload form, or a chat message with `useChat` file parts
 * (`useChat` sends every message of the chat, with its files, each time) — in place of the API's (app.ts skips it
 * for these): UPLOAD_REQUEST_MAX_BYTES.
 */
export function uploadBodyLimit(): MiddlewareHandler<AppBindings> {
  return (c, next) => {
    const maxSize = loadConfig(c.env).settings.UPLOAD_REQUEST_MAX_BYTES;
    return bodyLimit({
      maxSize,
      onError: (c) =>
        errorResponse(
          c,
          new ApiError(
            413,
            'payload_too_large',
            `The request's body exceeds ${maxSize} bytes (UPLOAD_REQUEST_MAX_BYTES); send fewer files at once`,
          ),
        ),
    })(c, next);
  };
}

/** Whether a request may carry files (app.ts: the API's body limit is not its limit, uploadBodyLimit is). */
export const mayCarryFiles = (method: string, path: string) =>
  method === 'POST' && (/^\/v1\/conversations\/[^/]+\/(files|messages)\/?$/.test(path) || /^\/v1\/chat\/?$/.test(path));
