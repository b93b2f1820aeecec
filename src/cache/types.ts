/** One entry of a `resources/read` result, stored losslessly: blobs stay base64 as received. */
export type StoredContents = {
  uri: string;
  mimeType?: string;
  /** Bytes of the content: UTF-8 bytes of `text`, decoded bytes of `blob`. */
  size: number;
  _meta?: Record<string, unknown>;
} & ({ text: string } | { blob: string });

/** What the cache keeps for one (scope, server, URI). */
export interface CachedResource {
  server: string;
  uri: string;
  contents: StoredContents[];
  /** When the read that produced this *started* (ms since epoch): a conservative age. */
  fetchedAt: number;
  /** Lifetime, when one applies (server hint, or no `subscribe` support). */
  ttlMs?: number;
  /** Sum of `contents[].size`. */
  bytes: number;
}

/** Which layer answered a read. */
export type CacheSource = 'memory' | 'kv' | 'miss';

/** Identifies a cached resource. `scope` separates users/tenants whose content differs. */
export interface CacheRef {
  scope: string;
  server: string;
  uri: string;
}
