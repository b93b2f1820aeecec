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
 * URLs or credentials reach clients. So is an invalid config (`invalid_config`),
 * whose details are logged, except under `npm start` (localDevelopment).
 */
export const onError: ErrorHandler = (error, c) => {
  if (error instanceof ApiError && error.code === 'invalid_config' && !localDevelopment(c.env)) {
    // The operator's mistake, told to the operator (the log line), not to whoever calls: a caller with no credentials
    // would otherwise read which var is wrong and how (a tenant's id, a secret's name, a server's URL).
    const requestId = c.get('requestId');
    logEvent(
      'http.error',
      { requestId, method: c.req.method, route: routePath(c, -1), ...errorFields(error) },
      'error',
    );
    return errorResponse(
      c,
      new ApiError(
        500,
        'internal_error',
        `Internal error (request id ${requestId}): the service is misconfigured; its logs name the cause`,
      ),
    );
  }
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

/**
 * `npm start`: no tenants, auth turned off on purpose. Every caller is the developer at their terminal, who is told
 * what is wrong with the config in the answer too.
 */
const localDevelopment = (env: { TENANTS?: string | undefined; AUTH_DISABLED?: string | undefined } | undefined) =>
  env?.AUTH_DISABLED === 'true' && !env.TENANTS?.trim();

export const onNotFound: NotFoundHandler = (c) =>
  errorResponse(c, new ApiError(404, 'not_found', `No route for ${c.req.method} ${c.req.path}`));
