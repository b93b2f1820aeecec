import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { routePath } from 'hono/route';
import { ApiError, type ErrorStatus } from '../errors';
import { errorFields, logEvent } from '../observability/log';

/** The one JSON error shape of the API. */
export function errorResponse(c: Context, error: ApiError) {
  return c.json(error.toJSON(), error.status, error.headers);
}

/**
 * Turns anything thrown by a route into `{error:{code,message}}`.
 * Unknown errors are logged with their stack (server side, tagged with the
 * request id) and answered with a generic message: no stack traces, upstream
 * URLs or credentials reach clients.
 */
export const onError: ErrorHandler = (error, c) => {
  if (error instanceof ApiError) return errorResponse(c, error);
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? 'payload_too_large' : error.status === 401 ? 'unauthorized' : 'http_error';
    return errorResponse(c, new ApiError(error.status as ErrorStatus, code, error.message || `HTTP ${error.status}`));
  }
  const requestId = c.get('requestId');
  logEvent(
    'http.error',
    { requestId, method: c.req.method, route: routePath(c, -1), ...errorFields(error, { stack: true }) },
    'error',
  );
  return errorResponse(c, new ApiError(500, 'internal_error', `Internal error (request id ${requestId})`));
};

export const onNotFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`));
