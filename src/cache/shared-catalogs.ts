import type { Settings } from '../config';
import { errorFields, logEvent } from '../observability/log';
import type { CacheHint, KvScope } from './types';

/** One server's list of one kind (tools, resources, templates, prompts) as another conversation of the tenant listed it. */
export interface SharedCatalog {
  items: unknown[];
  fetchedAt: number;
  hint?: CacheHint | undefined;
  /** What was mended in the list (src/mcp/lenient-results.ts): a conversation taking the copy says it too. */
  warnings?: string[] | undefined;
}

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
    try {
      // Both spaces at once: a first connection waits for one KV round trip per list, not two.
      const [own, shared] = await Promise.all([
        key(this.scopes.user, ref).then((k) => this.kv.get<SharedCatalog>(k, 'json')),
        perUser ? null : key(this.scopes.shared, ref).then((k) => this.kv.get<SharedCatalog>(k, 'json')),
      ]);
      return own ?? shared ?? undefined;
    } catch (error) {
      logEvent('cache.kv', { store: 'catalogs', op: 'read', server: ref.server, kind: ref.kind, ...errorFields(error) }, 'warn');
      return undefined;
    }
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
      .catch((error: unknown) => logEvent('cache.kv', { store: 'catalogs', op: what, server: ref.server, kind: ref.kind, ...errorFields(error) }, 'warn'))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }
}

/** `cat:v1:` + SHA-256 of (scope, server id, URL, kind): short, and no URL or user id in key listings. */
async function key(scope: string, ref: CatalogRef): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${scope}\u0000${ref.server}\u0000${ref.url}\u0000${ref.kind}`));
  return `cat:v1:${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
