import type { Settings } from '../config';
import type { InvalidationLog } from './invalidation-log';
import { kvKey, memoryKey } from './keys';
import { MemoryLayer } from './memory-layer';
import type { CacheRef, CacheSource, CachedResource, StoredContents } from './types';

/** Invalidation-log key for "everything of this server" (cannot collide with a memory key, which has two NULs). */
const serverKey = (server: string) => `server\u0000${server}`;

/** What a loader returns: the server's contents and its cache hint, if any. */
export interface LoadedResource {
  contents: StoredContents[];
  ttlMs?: number;
  /** false for results the server marked `cacheScope: "private"`: kept in this conversation's memory only, never in KV. */
  shareable?: boolean;
}

export interface CacheReadResult {
  entry: CachedResource;
  source: CacheSource;
}

/**
 * The resource cache of one conversation: in-memory layer → Workers KV →
 * the MCP server (the `load` callback). Guarantees, for this conversation:
 * after `invalidate(ref)` returns, no read that starts later is answered with
 * content fetched before it — not from memory (dropped), not from KV (the
 * invalidation time is logged and older copies are refused), and not from a
 * read that was in flight (its result is not stored).
 */
export class ResourceCache {
  private readonly memory: MemoryLayer;
  /** Bumped by every invalidation, so a load that raced with one is not stored. */
  private readonly generations = new Map<string, number>();
  /** Bumped by `invalidateServer`, for the same reason. */
  private readonly serverEpochs = new Map<string, number>();
  /** Concurrent misses of one key share one upstream read. */
  private readonly inflight = new Map<string, Promise<CachedResource>>();
  private readonly pendingDeletes = new Set<string>();
  /** KV writes and deletes still running (awaited by `settled()`). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly kv: KVNamespace,
    private readonly log: InvalidationLog,
    private readonly settings: Pick<Settings, 'KV_MAX_AGE_MS' | 'KV_MAX_ENTRY_BYTES' | 'MEMORY_CACHE_BYTES'>,
  ) {
    this.memory = new MemoryLayer(settings.MEMORY_CACHE_BYTES);
  }

  async read(ref: CacheRef, load: () => Promise<LoadedResource>): Promise<CacheReadResult> {
    const key = memoryKey(ref);
    const now = Date.now();
    const hit = this.memory.get(key);
    if (hit && this.isFresh(key, hit, now)) return { entry: hit, source: 'memory' };
    if (hit) this.memory.delete(key);

    const fromKv = await this.readKv(ref, key, now);
    if (fromKv) {
      this.memory.set(key, fromKv);
      return { entry: fromKv, source: 'kv' };
    }
    return { entry: await this.loadOnce(ref, key, load), source: 'miss' };
  }

  /**
   * Forgets `ref` everywhere; see the class comment for what that guarantees.
   * Synchronous: the KV delete runs in the background, and one still pending
   * covers later invalidations of the same key (a storm costs one delete).
   */
  invalidate(ref: CacheRef): void {
    const key = memoryKey(ref);
    this.memory.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    this.log.record(key);
    this.inflight.delete(key); // a later read must not join a load that started before this
    if (this.pendingDeletes.has(key)) return;
    this.pendingDeletes.add(key);
    this.track(
      kvKey(ref)
        .then((k) => this.kv.delete(k))
        .finally(() => this.pendingDeletes.delete(key)),
      'delete',
    );
  }

  /**
   * Forgets everything of one server that was fetched until now, without
   * knowing which URIs: used when notifications may have been missed (the
   * notification stream was lost, or the server dropped our session).
   */
  invalidateServer(server: string): void {
    for (const key of this.memory.keysWhere((entry) => entry.server === server)) this.memory.delete(key);
    this.serverEpochs.set(server, (this.serverEpochs.get(server) ?? 0) + 1);
    for (const key of this.inflight.keys()) if (key.includes(`\u0000${server}\u0000`)) this.inflight.delete(key);
    this.log.record(serverKey(server));
  }

  /** Resolves when every KV write and delete started so far has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  get stats() {
    return this.memory.size;
  }

  private isFresh(key: string, entry: CachedResource, now: number): boolean {
    if (entry.fetchedAt <= this.log.at(key) || entry.fetchedAt <= this.log.at(serverKey(entry.server))) return false;
    return entry.ttlMs === undefined || now - entry.fetchedAt < entry.ttlMs;
  }

  private async readKv(ref: CacheRef, key: string, now: number): Promise<CachedResource | undefined> {
    let value: CachedResource | null;
    try {
      value = await this.kv.get<CachedResource>(await kvKey(ref), 'json');
    } catch (error) {
      // A KV outage must never fail a read the server can answer.
      console.warn(`resource cache: KV read failed, reading from the server (${(error as Error).message})`);
      return undefined;
    }
    if (!value || value.server !== ref.server || value.uri !== ref.uri || !Array.isArray(value.contents)) return undefined;
    if (now - value.fetchedAt > this.settings.KV_MAX_AGE_MS) return undefined;
    return this.isFresh(key, value, now) ? value : undefined;
  }

  private loadOnce(ref: CacheRef, key: string, load: () => Promise<LoadedResource>): Promise<CachedResource> {
    const running = this.inflight.get(key);
    if (running) return running;
    const generation = this.generations.get(key) ?? 0;
    const epoch = this.serverEpochs.get(ref.server) ?? 0;
    const fetchedAt = Date.now();
    const promise = load()
      .then((loaded) => {
        const entry: CachedResource = {
          server: ref.server,
          uri: ref.uri,
          contents: loaded.contents,
          fetchedAt,
          bytes: loaded.contents.reduce((sum, c) => sum + c.size, 0),
          ...(loaded.ttlMs === undefined ? {} : { ttlMs: loaded.ttlMs }),
        };
        const invalidatedMeanwhile = (this.generations.get(key) ?? 0) !== generation || (this.serverEpochs.get(ref.server) ?? 0) !== epoch;
        if (!invalidatedMeanwhile) {
          this.memory.set(key, entry);
          if (loaded.shareable !== false && entry.bytes <= this.settings.KV_MAX_ENTRY_BYTES) this.writeKv(ref, entry, key);
        }
        return entry;
      })
      .finally(() => {
        if (this.inflight.get(key) === promise) this.inflight.delete(key);
      });
    this.inflight.set(key, promise);
    return promise;
  }

  private writeKv(ref: CacheRef, entry: CachedResource, key: string) {
    // A delete still pending predates this write: a later invalidation must send its own.
    this.pendingDeletes.delete(key);
    const lifetimeMs = Math.min(entry.ttlMs ?? this.settings.KV_MAX_AGE_MS, this.settings.KV_MAX_AGE_MS);
    // KV's minimum expiration is 60 s; freshness is checked on read anyway.
    const expirationTtl = Math.max(60, Math.ceil(lifetimeMs / 1000));
    this.track(
      kvKey(ref).then((k) => this.kv.put(k, JSON.stringify(entry), { expirationTtl })),
      'write',
    );
  }

  /** KV writes are not awaited by reads (a miss should cost one MCP round trip, not two). */
  private track(promise: Promise<unknown>, what: string) {
    const tracked = promise
      .catch((error) => console.warn(`resource cache: KV ${what} failed (${(error as Error).message})`))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}
