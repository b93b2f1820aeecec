import type { Settings } from '../config';
import { errorFields, logEvent } from '../observability/log';
import type { CacheHint, KvScope } from './types';

/** One server's list of one kind (tools, resources, templates, prompts) as another conversation of the tenant listed it. */
export interface SharedCatalog {
  items: unknown[];
  fetchedAt: number;
  hint?: CacheHint | undefined;
  /** What was mended in the list (src/mcp/connection/lenient-results.ts): a conversation taking the copy says it too. */
  warnings?: string[] | undefined;
}

/** Copies of one server's lists by kind, read ahead in one bulk KV read (`SharedCatalogs.readAhead`). */
export type SharedCopies = (kind: string) => Promise<SharedCatalog | undefined>;

/** Which server a catalog belongs to: its id and URL in this tenant's config (a repointed id is another server). */
export interface CatalogRef {
  server: string;
  url: string;
  kind: string;
}

/**
 * Catalogs shared by the conversations of a tenant, in Workers KV: a new
 * conversation takes the lists another one made instead of listing every
 * server again (the largest part of a new conversation's CPU). The freshness
 * contract applies as to any copy — within the list's `ttlMs` and
 * CACHE_MAX_AGE_MS; `ttlMs: 0` is never shared — and a conversation that
 * hears `list_changed` drops the shared copy at once and writes the new list.
 * Lists a server marks `private`, and servers whose config is per user, are
 * shared only between one end user's conversations. Failures of KV only cost
 * a listing: they are logged, never surfaced.
 */
export class SharedCatalogs {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly kv: KVNamespace,
    private readonly scopes: Record<KvScope, string>,
    private readonly settings: Pick<Settings, 'KV_MAX_ENTRY_BYTES'>,
  ) {}

  /** The shared copy, from the end user's space first (a private list), else the tenant's. */
  async get(ref: CatalogRef, perUser: boolean): Promise<SharedCatalog | undefined> {
    return (await this.getMany([ref], perUser))[0];
  }

  /**
   * Several lists at once — a new conversation's header and every catalog of
   * one server — in one bulk KV read of both key spaces: locally ten single
   * reads cost ~5 ms of CPU more than one bulk read (BENCHMARKS.md, "CPU per
   * turn"), and deployed they are ten round trips. Answers in `refs`' order;
   * a list without a copy (or a KV failure) is undefined.
   */
  async getMany(refs: CatalogRef[], perUser: boolean): Promise<Array<SharedCatalog | undefined>> {
    if (!refs.length) return [];
    try {
      const own = await Promise.all(refs.map((ref) => key(this.scopes.user, ref)));
      const shared = perUser ? [] : await Promise.all(refs.map((ref) => key(this.scopes.shared, ref)));
      const found = await this.kv.get<SharedCatalog>([...own, ...shared], 'json');
      return refs.map((_, i) => found.get(own[i]!) ?? (perUser ? undefined : found.get(shared[i]!)) ?? undefined);
    } catch (error) {
      const [first] = refs;
      logEvent(
        'cache.kv',
        {
          store: 'catalogs',
          op: 'read',
          server: first!.server,
          kind: refs.map((r) => r.kind).join(','),
          ...errorFields(error),
        },
        'warn',
      );
      return refs.map(() => undefined);
    }
  }

  /**
   * The copies of `kinds` of one server, read together on the first ask
   * (one bulk read) and kept for the caller's one use: a new conversation's
   * first turn asks for the header, then for the lists it lacks.
   */
  readAhead(server: Omit<CatalogRef, 'kind'>, kinds: readonly string[], perUser: boolean): SharedCopies {
    let all: Promise<Array<SharedCatalog | undefined>> | undefined;
    return async (kind) => {
      all ??= this.getMany(
        kinds.map((k) => ({ ...server, kind: k })),
        perUser,
      );
      const i = kinds.indexOf(kind);
      return i < 0 ? this.get({ ...server, kind }, perUser) : (await all)[i];
    };
  }

  /** Writes a fresh list in the background (`settled()` awaits it). */
  put(ref: CatalogRef, catalog: SharedCatalog, perUser: boolean): void {
    if (catalog.hint?.ttlMs === 0) return; // stale at once: nothing to share
    const value = JSON.stringify(catalog);
    if (value.length > this.settings.KV_MAX_ENTRY_BYTES) return;
    const scope = perUser || catalog.hint?.cacheScope === 'private' ? this.scopes.user : this.scopes.shared;
    this.track(
      key(scope, ref).then((k) => this.kv.put(k, value, { expirationTtl: 24 * 3600 })),
      ref,
      'write',
    );
  }

  /** Forgets the shared copies (a `list_changed`): no new conversation takes the old list meanwhile. */
  drop(ref: CatalogRef): void {
    for (const scope of [this.scopes.user, this.scopes.shared])
      this.track(
        key(scope, ref).then((k) => this.kv.delete(k)),
        ref,
        'delete',
      );
  }

  /** Resolves when every write and delete started so far has finished. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private track(work: Promise<unknown>, ref: CatalogRef, what: string) {
    const tracked = work
      .catch((error: unknown) =>
        logEvent(
          'cache.kv',
          { store: 'catalogs', op: what, server: ref.server, kind: ref.kind, ...errorFields(error) },
          'warn',
        ),
      )
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}

/** `cat:v1:` + SHA-256 of (scope, server id, URL, kind): short, and no URL or user id in key listings. */
async function key(scope: string, ref: CatalogRef): Promise<string> {
  const digest = await crypto.subtle.digest(
    'SHA-256',
    new TextEncoder().encode(`${scope}\u0000${ref.server}\u0000${ref.url}\u0000${ref.kind}`),
  );
  return `cat:v1:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
