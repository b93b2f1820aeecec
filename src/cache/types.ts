import type { CacheHint } from '../../shared/api/catalog';
import type { StoredContents } from '../../shared/api/resources';

// The shapes the API also serves are defined once, in shared/api.
export type { CacheHint } from '../../shared/api/catalog';
export type { CacheSource, StoredContents } from '../../shared/api/resources';

/** Which KV key space a copy lives in: the tenant's shared one, or the end user's own. */
export type KvScope = 'shared' | 'user';

/** What the cache keeps for one (server, URI). */
export interface CachedResource {
  server: string;
  uri: string;
  contents: StoredContents[];
  /** When the read that produced this *started* (ms since epoch): a conservative age. */
  fetchedAt: number;
  /** The server's hint, when it sent one. Freshness is decided at read time (cache/policy.ts). */
  hint?: CacheHint;
  /** Sum of `contents[].size`. */
  bytes: number;
  /**
   * Which conversation's clock stamped `fetchedAt` (InvalidationLog.writer).
   * Only copies of its own are ordered against a conversation's own
   * invalidations and channel coverage: another Durable Object's clock may
   * be ahead. Absent on copies written before this field.
   */
  writer?: string;
}

/** Identifies a cached resource within one conversation (one end user). */
export interface CacheRef {
  server: string;
  uri: string;
}
