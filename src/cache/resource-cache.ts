import type { Settings } from '../config';
import { BoundedMap } from './bounded-map';
import { errorFields, logEvent } from '../observability/log';
import type { InvalidationLog } from './invalidation-log';
import { kvKey, memoryKey } from './keys';
import { MemoryLayer } from './memory-layer';
import type { CacheHint, CacheRef, CacheSource, CachedResource, KvScope, StoredContents } from './types';

/**
 * For this long after this conversation heard that a URI changed, its reads
 * skip KV: a newer copy there could only come from a conversation that read
 * the server after the change (every notified conversation reads at about
 * the same moment, so almost never yet), while the lookup would compete with
 * our own delete of the old copy. Measured: it cost the first fresh read
 * ~5 ms locally (npm run bench, "update-to-fresh").
 */
const KV_SKIP_AFTER_INVALIDATION_MS = 2_000;

/** Invalidation-log key for "everything of this server" (cannot collide with a memory key, which has one NUL). */
const serverKey = (server: string) => `server\u0000${server}\u0000*`;

/** What a loader returns: the server's contents, its hint, and where in KV the copy may go. */
export interface LoadedResource {
  contents: StoredContents[];
  hint?: CacheHint;
  /** KV key space for this copy; `null` keeps it in this conversation's memory only. */
  kvScope: KvScope | null;
}

/** How one read may use the cache (decided by cache/policy.ts for this server and moment). */
export interface ReadPlan {
  /** KV key spaces to look in, most specific first. */
  kvScopes: KvScope[];
  /** Resolves when the read may go to the server: its notification channel covers the URI, or never will. */
  ready: Promise<unknown>;
  /** Whether a cached copy may be served; asked after `ready`. */
  servable(entry: CachedResource): boolean;
}

export interface CacheReadResult {
  entry: CachedResource;
  source: CacheSource;
}

/**
 * The resource cache of one conversation (one end user): in-memory layer →
 * Workers KV → the MCP server (the `load` callback). Whether a copy may be
 * served is the policy's call (`plan.servable`); what this class guarantees,
 * for this conversation: after `invalidate(ref)` returns, no read that starts
 * later is answered with content fetched before it — not from memory
 * (dropped), not from KV (the invalidation time is logged and older copies
 * are refused), and not from a read that was in flight (its result is not
 * stored).
 */
export class ResourceCache {
  private readonly memory: MemoryLayer;
  /**
   * Set from one counter by every invalidation, so a load that raced with
   * one is not stored. Bounded (CACHE_TRACKED_URIS): a forgotten key's
   * generation is the floor, the latest forgotten — never an older value,
   * which could make a raced load look current.
   */
  private readonly generations: BoundedMap<string, number>;
  private generation = 0;
  private generationFloor = 0;
  /** Bumped by `invalidateServer`, for the same reason. */
  private readonly serverEpochs = new Map<string, number>();
  /** Concurrent misses of one key share one upstream read (if nothing invalidated the key in between). */
  private readonly inflight = new Map<string, { promise: Promise<CachedResource>; version: string }>();
  /** The KV key space each URI's copies were last seen in (public or private): one KV lookup instead of two. Bounded: forgetting costs a lookup. */
  private readonly kvScopes: BoundedMap<string, KvScope>;
  private readonly pendingDeletes = new Set<string>();
  /** Servers whose KV copies live in a partition of the scope (see `partition`). */
  private readonly partitions = new Map<string, string>();
  /** KV writes and deletes still running (awaited by `settled()`). */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly kv: KVNamespace,
    private readonly log: InvalidationLog,
    /** KV scope strings of this conversation: its tenant's, and its end user's. */
    private readonly scopes: Record<KvScope, string>,
    private readonly settings: Pick<Settings, 'CACHE_MAX_AGE_MS' | 'KV_MAX_ENTRY_BYTES' | 'MEMORY_CACHE_BYTES'> &
      Partial<Pick<Settings, 'CACHE_TRACKED_URIS'>>,
  ) {
    this.memory = new MemoryLayer(settings.MEMORY_CACHE_BYTES);
    const tracked = settings.CACHE_TRACKED_URIS ?? 10_000;
    this.generations = new BoundedMap(
      tracked,
      (_key, value) => (this.generationFloor = Math.max(this.generationFloor, value)),
    );
    this.kvScopes = new BoundedMap(tracked);
  }

  /**
   * Whether this conversation's clock stamped `entry` (its fetch, its
   * coverage): only then may it be ordered against this conversation's
   * invalidations or its channel's coverage (another Durable Object's clock
   * may be ahead).
   */
  isOwn(entry: Pick<CachedResource, 'writer'>): boolean {
    return entry.writer === this.log.writer;
  }

  /** The KV key space copies of `ref` were last seen in, if known. */
  knownScope(ref: CacheRef): KvScope | undefined {
    return this.kvScopes.get(memoryKey(ref));
  }

  async read(ref: CacheRef, plan: ReadPlan, load: () => Promise<LoadedResource>): Promise<CacheReadResult> {
    const key = memoryKey(ref);
    // What the key's invalidations stood at when this read started: a load it
    // makes is stored only if none came in between, and it joins only a load
    // that started after the same invalidations.
    const version = this.versionOf(key, ref.server);
    const hit = this.memory.get(key);
    const justInvalidated =
      Date.now() - Math.max(this.log.at(key), this.log.at(serverKey(ref.server))) < KV_SKIP_AFTER_INVALIDATION_MS;
    const kvScopes = justInvalidated ? [] : plan.kvScopes;
    // KV is looked up while the notification channel is being set up: the first read of a URI pays one round trip, not two.
    const fromKv = hit ? undefined : this.readKv(ref, key, kvScopes);
    await plan.ready;
    if (hit) {
      // Invalidations drop memory entries at once, and a load is stored only if none came meanwhile: no log check needed.
      if (plan.servable(hit)) return { entry: hit, source: 'memory' };
      this.memory.delete(key);
    }
    const copy = await (fromKv ?? this.readKv(ref, key, kvScopes));
    // Checked again: an invalidation may have come while the channel was being set up.
    if (copy && this.notInvalidated(key, copy) && plan.servable(copy)) {
      this.memory.set(key, copy);
      return { entry: copy, source: 'kv' };
    }
    const joined = this.inflight.get(key);
    if (joined?.version === version) {
      const entry = await joined.promise;
      // A load another reader started earlier (in an earlier turn, for a copy stale at once) may not do for this one.
      if (plan.servable(entry)) return { entry, source: 'miss' };
    }
    return { entry: await this.loadFresh(ref, key, version, load), source: 'miss' };
  }

  private versionOf(key: string, server: string): string {
    return `${this.generations.get(key) ?? this.generationFloor}:${this.serverEpochs.get(server) ?? 0}`;
  }

  /**
   * Forgets `ref` everywhere; see the class comment for what that guarantees.
   * Synchronous: the KV delete runs in the background, and one still pending
   * covers later invalidations of the same key (a storm costs one delete).
   */
  invalidate(ref: CacheRef): void {
    const key = memoryKey(ref);
    this.memory.delete(key);
    this.generations.set(key, ++this.generation);
    this.log.record(key);
    this.inflight.delete(key); // a later read must not join a load that started before this
    if (this.pendingDeletes.has(key)) return;
    this.pendingDeletes.add(key);
    const known = this.kvScopes.get(key);
    const scopes: KvScope[] = known ? [known] : ['user', 'shared'];
    this.track(
      Promise.all(
        scopes.map(async (scope) => this.kv.delete(await kvKey(this.scopeOf(scope, ref.server), ref))),
      ).finally(() => this.pendingDeletes.delete(key)),
      'delete',
    );
  }

  /**
   * Forgets everything of one server that was fetched until now, without
   * knowing which URIs: used when notifications may have been missed (a
   * notification stream was lost, the server dropped our session, the
   * sessions were released while idle).
   */
  /**
   * Puts `server`'s KV copies under a partition of their own (an OAuth
   * server's: the user's current grant), so copies made under another
   * authorization — perhaps another account — are never found again.
   */
  partition(server: string, name: string): void {
    if (this.partitions.get(server) === name) return;
    const had = this.partitions.has(server);
    this.partitions.set(server, name);
    if (had) this.invalidateServer(server);
  }

  private scopeOf(scope: KvScope, server: string): string {
    const partition = this.partitions.get(server);
    return partition ? `${this.scopes[scope]}\u0000grant:${partition}` : this.scopes[scope];
  }

  invalidateServer(server: string): void {
    for (const key of this.memory.keys()) if (key.startsWith(`${server}\u0000`)) this.memory.delete(key);
    this.serverEpochs.set(server, (this.serverEpochs.get(server) ?? 0) + 1);
    for (const key of this.inflight.keys()) if (key.startsWith(`${server}\u0000`)) this.inflight.delete(key);
    this.log.record(serverKey(server));
  }

  /** Resolves when every KV write and delete started so far has finished (tests, benchmarks). */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /**
   * Not fetched before an invalidation of its URI or its server. A copy
   * another conversation stamped cannot be ordered against ours (its clock
   * may be ahead): it is refused while this conversation has an
   * invalidation of the URI or its server on record (up to CACHE_MAX_AGE_MS,
   * past which KV copies are refused anyway); this conversation reads the
   * server instead, and its own copy is then ordered by its own clock.
   */
  private notInvalidated(key: string, entry: CachedResource): boolean {
    const uriAt = this.log.at(key);
    const serverAt = this.log.at(serverKey(entry.server));
    if (!this.isOwn(entry)) return uriAt === 0 && serverAt === 0;
    return entry.fetchedAt > uriAt && entry.fetchedAt > serverAt;
  }

  /** The freshest usable KV copy among the key spaces to try (KV errors are a miss: the server can answer). */
  private async readKv(ref: CacheRef, key: string, scopes: KvScope[]): Promise<CachedResource | undefined> {
    if (!scopes.length) return undefined;
    const now = Date.now();
    let found: Array<{ scope: KvScope; value: CachedResource } | undefined>;
    try {
      // Both key spaces in one bulk read: one KV operation, not two.
      const keys = await Promise.all(scopes.map((scope) => kvKey(this.scopeOf(scope, ref.server), ref)));
      const values = await this.kv.get<CachedResource>(keys, 'json');
      found = scopes.map((scope, i) => {
        const value = values.get(keys[i]!);
        return value ? { scope, value } : undefined;
      });
    } catch (error) {
      logEvent('cache.kv', { store: 'resources', op: 'read', server: ref.server, ...errorFields(error) }, 'warn'); // read from the server instead
      return undefined;
    }
    let best: { scope: KvScope; value: CachedResource } | undefined;
    for (const candidate of found) {
      if (!candidate) continue;
      const { value } = candidate;
      if (
        value.server !== ref.server ||
        value.uri !== ref.uri ||
        !Array.isArray(value.contents) ||
        typeof value.fetchedAt !== 'number'
      )
        continue;
      if (now - value.fetchedAt >= this.settings.CACHE_MAX_AGE_MS || !this.notInvalidated(key, value)) continue;
      if (!best || value.fetchedAt > best.value.fetchedAt) best = candidate;
    }
    if (best) this.kvScopes.set(key, best.scope);
    return best?.value;
  }

  /** Loads from the server and stores the result, unless the key was invalidated since `version` (the read's start). */
  private loadFresh(
    ref: CacheRef,
    key: string,
    version: string,
    load: () => Promise<LoadedResource>,
  ): Promise<CachedResource> {
    const fetchedAt = Date.now();
    const promise = load()
      .then((loaded) => {
        const entry: CachedResource = {
          server: ref.server,
          uri: ref.uri,
          contents: loaded.contents,
          fetchedAt,
          bytes: loaded.contents.reduce((sum, c) => sum + c.size, 0),
          ...(loaded.hint ? { hint: loaded.hint } : {}),
          writer: this.log.writer,
        };
        if (this.versionOf(key, ref.server) === version) {
          this.memory.set(key, entry);
          if (loaded.kvScope) {
            this.kvScopes.set(key, loaded.kvScope);
            if (entry.bytes <= this.settings.KV_MAX_ENTRY_BYTES) this.writeKv(ref, entry, key, loaded.kvScope);
          }
        }
        return entry;
      })
      .finally(() => {
        if (this.inflight.get(key)?.promise === promise) this.inflight.delete(key);
      });
    this.inflight.set(key, { promise, version });
    return promise;
  }

  private writeKv(ref: CacheRef, entry: CachedResource, key: string, scope: KvScope) {
    // A delete still pending predates this write: a later invalidation must send its own.
    this.pendingDeletes.delete(key);
    // KV's minimum expiration is 60 s; freshness is checked on every read anyway.
    const expirationTtl = Math.max(60, Math.ceil(this.settings.CACHE_MAX_AGE_MS / 1000));
    this.track(
      kvKey(this.scopeOf(scope, ref.server), ref).then((k) => this.kv.put(k, JSON.stringify(entry), { expirationTtl })),
      'write',
    );
  }

  /** KV writes are not awaited by reads (a miss should cost one MCP round trip, not two). */
  private track(promise: Promise<unknown>, what: string) {
    const tracked = promise
      .catch((error) => logEvent('cache.kv', { store: 'resources', op: what, ...errorFields(error) }, 'warn'))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}
