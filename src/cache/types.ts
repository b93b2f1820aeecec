/** One entry of a `resources/read` result, stored losslessly: blobs stay base64 as received. */
export type StoredContents = {
  uri: string;
  mimeType?: string;
  /** Bytes of the content: UTF-8 bytes of `text`, decoded bytes of `blob`. */
  size: number;
  _meta?: Record<string, unknown>;
} & ({ text: string } | { blob: string });

/** A server's cache hint (2026-07-28 results carry one; 2025 results never do). */
export interface CacheHint {
  /** How long the result may be considered fresh; 0 = stale at once. */
  ttlMs: number;
  /** `private`: only within the same authorization context (here: the same end user). */
  cacheScope: 'public' | 'private';
}

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
}

/** Which layer answered a read. */
export type CacheSource = 'memory' | 'kv' | 'miss';

/** Identifies a cached resource within one conversation (one end user). */
export interface CacheRef {
  server: string;
  uri: string;
}
