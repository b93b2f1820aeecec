import type { CacheRef, KvScope } from './types';

/** In-memory key: cheap, never leaves the isolate. A conversation has one end user, so no scope is needed. */
export const memoryKey = (ref: CacheRef) => `${ref.server}\u0000${ref.uri}`;

/**
 * The KV key spaces of one end user's conversations: the tenant's (copies a
 * server marks public) and the user's own (private ones). Keys carry the
 * tenant, and for private copies the end user too.
 */
export function kvScopesOf(owner: { tenant: string; user: string }): Record<KvScope, string> {
  return { shared: `tenant:${owner.tenant}`, user: `tenant:${owner.tenant}:user:${owner.user}` };
}

/**
 * KV key: `res:v2:` + SHA-256 of (scope, server id, URI). Hashing keeps keys
 * under KV's 512-byte limit whatever the URI, and keeps user ids and URIs
 * out of key listings. The scope is the tenant's (shared) or the end user's.
 */
export async function kvKey(scope: string, ref: CacheRef): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${scope}\u0000${ref.server}\u0000${ref.uri}`),
  );
  return `res:v2:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
