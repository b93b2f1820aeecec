import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppBindings } from '../types';

/** API responses are data, never pages: no framing, no sniffing, no referrer, no scripts. */
export const apiSecurityHeaders = secureHeaders({
  contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  crossOriginResourcePolicy: 'same-origin',
  referrerPolicy: 'no-referrer',
});

/**
 * The security headers on every answer but an accepted WebSocket (a 101,
 * which carries the socket and cannot be rebuilt with other headers). An
 * `Upgrade` header alone changes nothing: a refused upgrade, or one sent to
 * any other route, gets them like any answer.
 */
export const securityHeaders: MiddlewareHandler<AppBindings> = async (c, next) => {
  await next();
  if (c.res.status === 101) return;
  // A response fetched from a Durable Object (the demo server's, an upgrade refused there) has immutable headers.
  c.res = new Response(c.res.body, c.res);
  await apiSecurityHeaders(c, async () => {});
};

/**
 * For `/views` (MCP Apps documents): a document keeps the CSP that is its
 * sandbox (routes/views.ts); any other answer (a 404, an error) gets the
 * API's headers.
 */
export const viewSecurityHeaders: MiddlewareHandler<AppBindings> = async (c, next) => {
  await next();
  if (c.res.ok) return;
  c.res = new Response(c.res.body, c.res);
  await apiSecurityHeaders(c, async () => {});
};
