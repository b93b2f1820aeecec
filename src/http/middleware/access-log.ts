import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { withRequest } from '../../observability/current-request';
import { logEvent } from '../../observability/log';
import type { AppBindings } from '../types';

/**
 * One `http.request` line per request — method, route pattern (never the
 * raw path or its query), status, duration to the response headers (a
 * turn's stream goes on after; its `turn.end` line says how long it took),
 * request id, tenant — and the request's scope for everything below it
 * (observability/current-request.ts): log lines, Durable Object calls
 * (conversation-stub.ts) and MCP requests carry its id. Goes right after
 * `requestId()`.
 *
 * @example new Hono<AppBindings>().use(requestId()).use(accessLog)
 */
export const accessLog: MiddlewareHandler<AppBindings> = async (c, next) => {
  const started = Date.now();
  const requestId = c.get('requestId');
  // The tenant is known once authentication ran (a later layer): read when asked.
  const scope = {
    requestId,
    get tenant(): string | undefined {
      return c.get('principal')?.tenant;
    },
  };
  try {
    await withRequest(scope, next);
  } finally {
    const fields = {
      requestId,
      tenant: scope.tenant,
      method: c.req.method,
      route: routePath(c, -1),
      status: c.res.status,
      durationMs: Date.now() - started,
    };
    logEvent('http.request', fields, c.res.status >= 500 ? 'error' : 'info');
  }
};
