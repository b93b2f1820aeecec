import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { allowedOriginsOf, loadConfig } from '../../config';
import { ApiError } from '../../errors';
import type { AppBindings } from '../types';

/**
 * CORS, per tenant. A preflight carries no credentials, so it is answered
 * for any origin some tenant allows; the request that follows is then
 * checked against the caller's own tenant (`originAllowed`). Without
 * TENANTS (local development) every origin is allowed.
 */
export const corsPerTenant: MiddlewareHandler<AppBindings> = cors({
  origin: (origin, c) => {
    const { tenants } = loadConfig(c.env);
    if (!tenants) return origin;
    return tenants.some((t) => t.allowedOrigins.includes(origin)) ? origin : null;
  },
  allowMethods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: ['authorization', 'content-type', 'x-end-user', 'x-request-id', 'last-event-id'],
  // Retry-After: a browser client (the widget) can say when to try again after a 429.
  exposeHeaders: ['x-request-id', 'location', 'retry-after'],
  maxAge: 600,
});

/** A browser request (it has an Origin) must come from an origin its tenant allows: 403 otherwise. */
export const originAllowed: MiddlewareHandler<AppBindings> = async (c, next) => {
  const origin = c.req.header('origin');
  const principal = c.get('principal');
  if (origin && !principal.open) {
    if (!allowedOriginsOf(loadConfig(c.env), principal.tenant).includes(origin)) {
      throw new ApiError(403, 'origin_not_allowed', `Origin ${origin} is not allowed for this tenant`);
    }
  }
  return next();
};
