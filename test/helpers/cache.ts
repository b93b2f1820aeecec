import type { ReadPlan } from '../../src/cache/resource-cache';
import type { CachedResource } from '../../src/cache/types';

/** A read plan for tests that drive the ResourceCache directly: shared KV key space, copies served for `maxAgeMs`. */
export function plainPlan(maxAgeMs = 300_000): ReadPlan {
  return {
    kvScopes: ['shared'],
    ready: Promise.resolve(),
    servable: (entry: CachedResource) => Date.now() - entry.fetchedAt < maxAgeMs,
  };
}

/** The contents a loader returns for one text resource, stored under the shared KV key space. */
export function textLoad(uri: string, text: string) {
  return async () => ({
    contents: [{ uri, mimeType: 'text/plain', text, size: text.length }],
    kvScope: 'shared' as const,
  });
}

export const TEST_CACHE_SETTINGS = {
  CACHE_MAX_AGE_MS: 300_000,
  KV_MAX_ENTRY_BYTES: 1 << 20,
  MEMORY_CACHE_BYTES: 1 << 20,
};
