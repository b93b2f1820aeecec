import { hintOf } from '../cache/policy';
import type { Settings } from '../config';
import { supports, type CatalogKind, type ServerState } from './catalog';
import type { McpConnection } from './connection';
import { describeUpstreamError, isMethodNotFound } from './errors';
import { listAll } from './list-all';
import type { ServerStateStore } from './state-store';

/** A notification storm that never pauses still gets a catalog refresh every this many debounce windows. */
const REFRESH_MAX_WAIT_WINDOWS = 20;

/**
 * Lists one server's catalogs (tools, resources, templates, prompts), now or
 * debounced after `list_changed` notifications, and keeps them in the
 * server's state and in storage. A resource that vanished from the list is
 * invalidated in the cache.
 */
export class CatalogRefresher {
  private pending = new Set<CatalogKind>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private firstAt = 0;
  private chain: Promise<void> = Promise.resolve();
  /** Debounced refreshes run (one per burst); for tests and benchmarks. */
  count = 0;

  constructor(
    private readonly state: ServerState,
    private readonly connection: McpConnection,
    private readonly store: ServerStateStore,
    private readonly settings: Pick<Settings, 'NOTIFICATION_DEBOUNCE_MS' | 'MCP_MAX_LIST_PAGES'>,
    private readonly onVanished: (uris: string[]) => void,
  ) {}

  /** Lists `kind` now (if the server announced it) and stores it with its fetch time and hint. */
  async refresh(kind: CatalogKind): Promise<void> {
    const state = this.state;
    if (!supports(state.capabilities, kind)) return;
    const fetchedAt = Date.now();
    const { items, truncatedAfterPages, hint } = await this.connection
      .call((client, options) => listAll(client, kind, options, this.settings.MCP_MAX_LIST_PAGES))
      .catch((error: unknown) => {
        // `resources` implies resources/templates/list, but many servers never
        // implement it: "method not found" means there is nothing to list.
        if (isMethodNotFound(error)) return { items: [], truncatedAfterPages: undefined, hint: {} };
        throw error;
      });
    // Two refreshes of one list can overlap (set-up and a notification): keep the newer.
    if ((state.fetchedAt[kind] ?? 0) > fetchedAt) return;
    if (truncatedAfterPages) console.warn(`MCP server "${state.id}": ${kind} list still had pages after ${truncatedAfterPages}; keeping the first ${items.length}`);
    if (kind === 'resources') {
      const kept = new Set((items as ServerState['resources']).map((r) => r.uri));
      const vanished = state.resources.map((r) => r.uri).filter((uri) => !kept.has(uri));
      if (vanished.length) this.onVanished(vanished);
    }
    (state[kind] as unknown[]) = items;
    state.fetchedAt[kind] = fetchedAt;
    const cacheHint = hintOf(hint, this.connection.era ?? 'legacy');
    state.cacheHints = { ...state.cacheHints, [kind]: cacheHint };
    if (!cacheHint) delete state.cacheHints[kind];
    this.store.saveCatalog(state.id, kind, items, fetchedAt);
  }

  /**
   * A burst of list_changed notifications leads to one refresh per catalog.
   * Trailing debounce: every notification pushes the refresh back by
   * NOTIFICATION_DEBOUNCE_MS, so a burst is refreshed once, after it ends —
   * however long the Durable Object takes to work through it (10,000 in one
   * burst used to cost one refresh per window while they were being handled).
   * A storm that never pauses is still refreshed every
   * REFRESH_MAX_WAIT_WINDOWS windows, so the catalog cannot go stale for good.
   */
  schedule(kinds: CatalogKind[]): void {
    for (const kind of kinds) this.pending.add(kind);
    const now = Date.now();
    const window = this.settings.NOTIFICATION_DEBOUNCE_MS;
    if (this.timer) {
      if (now - this.firstAt >= window * REFRESH_MAX_WAIT_WINDOWS) return; // due soon anyway
      clearTimeout(this.timer);
    } else {
      this.firstAt = now;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      const due = [...this.pending];
      this.pending.clear();
      this.chain = this.chain.then(async () => {
        this.count++;
        await Promise.all(due.map((kind) => this.refresh(kind))).catch((error) =>
          console.warn(`MCP server "${this.state.id}": catalog refresh failed (${describeUpstreamError(error)})`),
        );
      });
    }, window);
  }

  /** Resolves when no refresh is pending or running. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = this.timer !== null || this.pending.size > 0;
      await this.chain;
      if (!busy) return;
      await new Promise((resolve) => setTimeout(resolve, this.settings.NOTIFICATION_DEBOUNCE_MS + 5));
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
