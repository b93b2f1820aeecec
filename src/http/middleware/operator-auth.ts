import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors';
import { logEvent } from '../../observability/log';
import type { AppBindings } from '../types';
import { isDigest, keyDigest } from './key-digest';

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * The operator's key, on `/admin/api/*`: `Authorization: Bearer <key>`, whose
 * SHA-256 is one of `OPERATOR_KEY_SHA256` (comma-separated, for rotation).
 * It is not a tenant key and opens no tenant's `/v1` routes; a tenant key
 * does not open these. Missing, wrong, a tenant's key, or no operator key
 * configured: the same 401, which says nothing of what exists. Without
 * `TENANTS`, under `AUTH_DISABLED=true` (`npm start`) and with no operator key
 * set, the page is as open as the rest of the local service.
 */
export const operatorAuth: MiddlewareHandler<AppBindings> = async (c, next) => {
  const configured = (c.env.OPERATOR_KEY_SHA256 ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  const bad = configured.find((d) => !DIGEST.test(d));
  if (bad !== undefined)
    throw new ApiError(500, 'invalid_config', 'OPERATOR_KEY_SHA256 must be SHA-256 hex digests, comma-separated');
  if (configured.length === 0 && !c.env.TENANTS?.trim() && c.env.AUTH_DISABLED === 'true') return next();
  const key = c.req.header('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (key && (await matches(key, configured))) return next();
  if (configured.length === 0) logEvent('auth.config', { outcome: 'operator_key_not_set' }, 'warn');
  throw new ApiError(401, 'unauthorized', 'Send Authorization: Bearer <operator key>');
};

async function matches(key: string, digests: string[]): Promise<boolean> {
  const digest = await keyDigest(key);
  // Every digest is compared: how long the answer takes says nothing of which matched.
  return digests.map((hex) => isDigest(digest, hex)).includes(true);
}
