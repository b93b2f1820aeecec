import type { Context, MiddlewareHandler } from 'hono';
import { verify } from 'hono/jwt';
import { loadConfig, type Tenant } from '../../config';
import { secretNamed } from '../../config/secrets';
import { ApiError } from '../../errors';
import { logEvent } from '../../observability/log';
import type { AppBindings, Principal } from '../types';
import { isDigest, keyDigest } from './key-digest';

/** The WebSocket subprotocol the service answers with; a browser token rides next to it as `bearer.<token>`. */
export const WS_SUBPROTOCOL = 'mcp-ondemand';
export const TOKEN_SUBPROTOCOL_PREFIX = 'bearer.';

/** The token offered as a WebSocket subprotocol, if any. */
export function subprotocolToken(header: string | undefined): string | undefined {
  const offered = header?.split(',').map((p) => p.trim()) ?? [];
  return (
    offered.find((p) => p.startsWith(TOKEN_SUBPROTOCOL_PREFIX))?.slice(TOKEN_SUBPROTOCOL_PREFIX.length) || undefined
  );
}

/** The one route that takes a WebSocket upgrade (routes/conversations.ts). */
const WEBSOCKET_ROUTE = /^\/v1\/conversations\/[^/]+\/ws$/;

/**
 * A WebSocket upgrade of the WebSocket route. Only there does a token ride as
 * a subprotocol; on any other route an `Upgrade` header changes nothing.
 */
export function isWebSocketUpgrade(c: Context): boolean {
  return c.req.header('upgrade')?.toLowerCase() === 'websocket' && WEBSOCKET_ROUTE.test(c.req.path);
}

/** The `aud` claim every browser token must carry. */
export const TOKEN_AUDIENCE = 'mcp-ondemand';

const OPEN: Principal = { tenant: 'default', user: 'anonymous', open: true };

/** End-user ids: no ':' (it separates parts of cache scopes), bounded. */
const END_USER = /^[\w.@-]{1,128}$/;

/**
 * Who is calling, on every `/v1` request (and WebSocket upgrade):
 * - server-to-server: `Authorization: Bearer <API key>`; the key is hashed
 *   and compared in constant time with each tenant's `apiKeySha256`; the end
 *   user may be named with `X-End-User`;
 * - browsers: `Authorization: Bearer <token>` (on a WebSocket upgrade,
 *   which cannot carry headers, as the subprotocol `bearer.<token>` next to
 *   `mcp-ondemand` — never in the URL, which lands in logs): an HS256 JWT signed with the
 *   tenant's secret, with `tid` (tenant), `sub` (end user), `exp`, and
 *   `aud: "mcp-ondemand"`, and optionally `servers` (the tenant's servers
 *   this user may use, fixed for the conversations the token creates).
 * Without `TENANTS`, and only with `AUTH_DISABLED=true` (what `npm start`
 * sets), the service is one open tenant for local development; without
 * either, every /v1 request is refused as misconfigured.
 */
export const authenticate: MiddlewareHandler<AppBindings> = async (c, next) => {
  const { tenants } = loadConfig(c.env);
  if (!tenants) {
    // Open only when asked for: a deploy that forgot TENANTS must not serve everyone.
    if (c.env.AUTH_DISABLED !== 'true') {
      throw new ApiError(
        500,
        'invalid_config',
        'TENANTS is not set. Configure tenants, or set AUTH_DISABLED=true for local development only',
      );
    }
    c.set('principal', OPEN);
    return next();
  }
  const header = c.req.header('authorization');
  const isUpgrade = isWebSocketUpgrade(c);
  const credential =
    header?.match(/^Bearer\s+(\S+)$/i)?.[1] ??
    (isUpgrade ? subprotocolToken(c.req.header('sec-websocket-protocol')) : undefined);
  if (!credential) {
    if (c.req.query('token'))
      throw unauthorized(
        `A token in the URL is not accepted (URLs land in logs): send it as the WebSocket subprotocol "${TOKEN_SUBPROTOCOL_PREFIX}<token>" next to "${WS_SUBPROTOCOL}"`,
      );
    throw unauthorized(
      isUpgrade
        ? `Send Authorization: Bearer <API key>, or the subprotocols "${WS_SUBPROTOCOL}" and "${TOKEN_SUBPROTOCOL_PREFIX}<token>"`
        : 'Send Authorization: Bearer <API key or token>',
    );
  }
  const principal =
    (await fromApiKey(credential, tenants, c.req.header('x-end-user'))) ??
    (await fromToken(credential, tenants, c.env));
  c.set('principal', principal);
  return next();
};

async function fromApiKey(key: string, tenants: Tenant[], endUser: string | undefined): Promise<Principal | undefined> {
  if (key.split('.').length === 3) return undefined; // a JWT, not a key
  const digest = await keyDigest(key);
  for (const tenant of tenants) {
    for (const hex of tenant.apiKeySha256) {
      if (isDigest(digest, hex)) {
        const user = endUser?.trim() || 'service';
        if (!END_USER.test(user))
          throw new ApiError(400, 'invalid_end_user', 'X-End-User must be 1-128 of letters, digits and . _ @ -');
        return { tenant: tenant.id, user, open: false };
      }
    }
  }
  throw unauthorized('Unknown API key');
}

/** One answer for every bad token: nothing about tenants or secrets is revealed before the signature is checked. */
const invalidToken = () => unauthorized('Invalid token');

async function fromToken(token: string, tenants: Tenant[], env: Env): Promise<Principal> {
  let tid: unknown;
  try {
    const claims: unknown = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    tid = claims && typeof claims === 'object' ? (claims as { tid?: unknown }).tid : undefined;
  } catch {
    throw invalidToken();
  }
  const tenant = tenants.find((t) => t.id === tid);
  const secret = tenant?.tokenSecret ? secretNamed(env, tenant.tokenSecret) : undefined;
  if (!tenant || !secret) {
    if (tenant?.tokenSecret)
      logEvent(
        'auth.config',
        { tenant: tenant.id, secretName: tenant.tokenSecret, outcome: 'secret_not_set' },
        'error',
      );
    throw invalidToken();
  }
  let payload: Record<string, unknown>;
  try {
    // hono checks `exp` before the signature: it is checked below, once the signature is known good,
    // so an unsigned token with a past `exp` gets the same answer as any other bad token.
    payload = (await verify(token, secret, { alg: 'HS256', aud: TOKEN_AUDIENCE, exp: false })) as Record<
      string,
      unknown
    >;
  } catch {
    throw invalidToken();
  }
  if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) throw invalidToken();
  if (payload.exp <= Math.floor(Date.now() / 1000))
    throw new ApiError(401, 'token_expired', 'The token has expired; get a new one from your application');
  // The same rule as X-End-User, and never "service" (the name of API-key callers without X-End-User).
  if (typeof payload.sub !== 'string' || !END_USER.test(payload.sub) || payload.sub === 'service') throw invalidToken();
  const servers = payload.servers;
  if (servers !== undefined && !(Array.isArray(servers) && servers.every((s) => typeof s === 'string')))
    throw unauthorized('"servers" must be a list of server ids');
  return {
    tenant: tenant.id,
    user: payload.sub,
    open: false,
    browser: true,
    ...(servers ? { servers: servers as string[] } : {}),
  };
}

const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);
