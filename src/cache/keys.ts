import type { CacheRef } from './types';

/** In-memory key: cheap, never leaves the isolate. */
export const memoryKey = (ref: CacheRef) => `${ref.scope}\u0000${ref.server}\u0000${ref.uri}`;

/**
 * KV key: `res:v1:` + SHA-256 of (scope, server, URI). Hashing keeps keys
 * under KV's 512-byte limit whatever the URI, and keeps user ids and URIs
 * out of key listings.
 */
export async function kvKey(ref: CacheRef): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(memoryKey(ref)));
  return `res:v1:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
