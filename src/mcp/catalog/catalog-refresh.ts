import { hintOf, isServable, type ServerCachePolicy } from '../../cache/policy';
import { allowsSkill, type McpServerConfig, type Settings } from '../../config';
import { CATALOG_KINDS, supports, type CatalogKind, type ServerState } from './catalog';
import type { McpConnection } from '../connection/connection';
import { verdictOf } from '../connection/era';
import { isMethodNotFound, upstreamFailure } from '../connection/errors';
import { LIST_METHOD, type ListAllResult, listAll } from './list-all';
import { setWarnings, warningsOf } from './server-warnings';
import { RENAMED_TOOLS, renamedToolsWarning } from './tool-names';
import type { ServerStateStore } from './state-store';
import { type Skill, skillFileOf, unusableTaskTools } from '../extensions';
import type { SharedCatalogs, SharedCopies } from '../../cache/shared-catalogs';
import type { CacheHint } from '../../cache/types';
import { logEvent } from '../../observability/log';

/** How a warning about tools that only run as tasks, on a server that offers us no tasks, begins. */
const TASK_ONLY_TOOLS =
  'not offered to the model (they run only as tasks, and the server does not announce task-augmented tool calls):';
/** How a warning about skills the SDK refused begins. */
const REFUSED_SKILLS = 'skills dropped (not valid under the Skills extension):';

/** A notification storm that never pauses still gets a catalog refresh every this many debounce windows. */
const REFRESH_MAX_WAIT_WINDOWS = 20;

export interface CatalogRefresherOptions {
  /** The server's state: its catalogs are kept here (and in `store`). */
  state: ServerState;
  connection: McpConnection;
  store: ServerStateStore;
  settings: Pick<Settings, 'NOTIFICATION_DEBOUNCE_MS' | 'MCP_MAX_LIST_PAGES'>;
  policy: ServerCachePolicy;
  /** Resources that left the list: their copies go. */
  onVanished: (uris: string[]) => void;
  /** The tenant's shared lists (KV): a new conversation takes them instead of listing (cache/shared-catalogs.ts). */
  shared?: { catalogs: SharedCatalogs; url: string } | undefined;
  /** The operator's choice of this server's skills (`skills` in MCP_SERVERS): `off` never lists them. */
  skills?: McpServerConfig['skills'] | undefined;
}

/**
 * Lists one server's catalogs (tools, resources, templates, prompts): now,
 * debounced after `list_changed` notifications, or when the freshness
 * contract calls them stale; keeps them in the server's state and in
 * storage. A resource that vanished from the list is invalidated in the
 * cache. Also asks `server/discover` again when its hint expired.
 */
export class CatalogRefresher {
  private pending = new Set<CatalogKind>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private firstAt = 0;
  private chain: Promise<void> = Promise.resolve();
  /** Debounced refreshes run (one per burst); for tests and benchmarks. */
  count = 0;
  private discovering: Promise<void> | undefined;
  /** Lists whose shared copy was dropped since they were last listed. */
  private readonly droppedShared = new Set<CatalogKind>();
  /**
   * Lists taken from a shared copy: stamped by another conversation's
   * clock, so never ordered against our channel's coverage — they live by
   * their hint or CACHE_MAX_AGE_MS until this conversation lists them itself.
   */
  private readonly copied = new Set<CatalogKind>();

  private readonly state: ServerState;
  private readonly connection: McpConnection;
  private readonly store: ServerStateStore;
  private readonly settings: CatalogRefresherOptions['settings'];
  private readonly policy: ServerCachePolicy;
  private readonly onVanished: (uris: string[]) => void;
  private readonly shared: CatalogRefresherOptions['shared'];
  private readonly skills: McpServerConfig['skills'];
  /**
   * The server's skills the operator does not allow (config `skills`): in no catalog, and their files are read by
   * nobody (ServerLink.read refuses them, `withheldSkillOf`). Kept from the full list, which is what is stored.
   */
  private withheld: Skill[] = [];

  constructor(options: CatalogRefresherOptions) {
    this.skills = options.skills ?? 'all';
    ({
      state: this.state,
      connection: this.connection,
      store: this.store,
      settings: this.settings,
      policy: this.policy,
      onVanished: this.onVanished,
      shared: this.shared,
    } = options);
    // The stored list is the server's whole list: split it as `apply` does.
    this.state.skills = this.allowedOf(this.state.skills ?? []);
    this.hideWithheldFiles();
  }

  /** The skill the operator withholds that `uri` is a file of (its SKILL.md or anything under its directory), if any. */
  withheldSkillOf(uri: string): Skill | undefined {
    return this.withheld.length ? skillFileOf({ id: this.state.id, skills: this.withheld }, uri)?.skill : undefined;
  }

  /**
   * Lists again every catalog the freshness contract calls stale — its
   * `ttlMs` passed (`0`: once per turn), or, without a hint, it is older than
   * CACHE_MAX_AGE_MS — and asks `server/discover` again in the background
   * when its hint expired. `listCoveredSince`: since when a live channel
   * delivers that catalog's `list_changed`.
   */
  async refreshStale(reuseSince: number, listCoveredSince: (kind: CatalogKind) => number | undefined): Promise<void> {
    const stale = this.staleKinds(reuseSince, listCoveredSince);
    if (stale.length) await Promise.all(stale.map((kind) => this.refresh(kind, { fromShared: true })));
    this.rediscoverIfStale(reuseSince);
  }

  /**
   * Without a connection (a turn served lazily: ServerLink.available): the
   * stale catalogs taken from the tenant's shared copies. False when one of
   * them has no copy the contract serves: the caller connects and lists.
   */
  async takeStaleFromShared(reuseSince: number, ahead?: SharedCopies): Promise<boolean> {
    const stale = this.staleKinds(reuseSince, () => undefined);
    if (!stale.length) return true;
    const copies = await Promise.all(stale.map((kind) => this.sharedCopy(kind, ahead)));
    if (copies.some((copy) => !copy)) return false;
    stale.forEach((kind, i) => {
      const copy = copies[i]!;
      this.keep(kind, copy.items, copy.fetchedAt, copy.hint, { copied: true, warnings: copy.warnings });
    });
    return true;
  }

  /** The announced catalogs the freshness contract calls stale: never listed, past their `ttlMs`, or (without a hint) past CACHE_MAX_AGE_MS. */
  private staleKinds(reuseSince: number, listCoveredSince: (kind: CatalogKind) => number | undefined): CatalogKind[] {
    const now = Date.now();
    const catalogPolicy = { ...this.policy, fallbackTtlMs: this.policy.maxAgeMs };
    return CATALOG_KINDS.filter((kind) => {
      if (!this.announced(kind)) return false;
      const fetchedAt = this.state.fetchedAt[kind];
      const hint = this.state.cacheHints?.[kind];
      const entry = { fetchedAt: fetchedAt ?? 0, ...(hint ? { hint } : {}) };
      const coveredSince = this.copied.has(kind) ? undefined : listCoveredSince(kind);
      return fetchedAt === undefined || !isServable(entry, { now, coveredSince, reuseSince }, catalogPolicy);
    });
  }

  /** `server/discover` again in the background when its hint expired: instructions and capabilities may have changed. */
  private rediscoverIfStale(reuseSince: number) {
    const client = this.connection.current;
    if (client?.getProtocolEra() !== 'modern' || this.discovering) return;
    const verdict = this.store.verdict(this.state.id);
    if (verdict?.kind !== 'modern') return;
    const hint = hintOf(verdict.discover as { ttlMs?: unknown; cacheScope?: unknown }, 'modern');
    if (
      isServable(
        { fetchedAt: verdict.at, ...(hint ? { hint } : {}) },
        { now: Date.now(), coveredSince: undefined, reuseSince },
        this.policy,
      )
    )
      return;
    this.discovering = this.connection
      .call(
        async (c, options) => {
          const discover = await c.discover(options);
          this.state.capabilities = discover.capabilities;
          this.state.instructions = discover.instructions;
          this.store.saveVerdict(this.state.id, verdictOf(c, Date.now()));
          this.store.saveHeader(this.state);
        },
        { method: 'server/discover' },
      )
      .catch((error) =>
        logEvent('catalog.refresh', { server: this.state.id, kind: 'discover', ...upstreamFailure(error) }, 'warn'),
      )
      .finally(() => (this.discovering = undefined));
  }

  /**
   * Lists `kind` now (if the server announced it) and stores it with its
   * fetch time and hint. `fromShared`: a list another conversation of the
   * tenant made is taken instead, while the freshness contract still serves
   * it (never after a `list_changed` this conversation heard: those refresh
   * with `fromShared` false and write the shared copy anew).
   */
  async refresh(kind: CatalogKind, { fromShared = false }: { fromShared?: boolean } = {}): Promise<void> {
    if (!this.announced(kind)) return;
    const copy = fromShared ? await this.sharedCopy(kind) : undefined;
    if (copy) return this.keep(kind, copy.items, copy.fetchedAt, copy.hint, { copied: true, warnings: copy.warnings });
    const fetchedAt = Date.now();
    const listed = await this.connection
      .call((client, options) => listAll(client, kind, options, this.settings.MCP_MAX_LIST_PAGES), {
        method: LIST_METHOD[kind],
      })
      .catch((error: unknown) => {
        // `resources` implies resources/templates/list, but many servers never
        // implement it: "method not found" means there is nothing to list.
        if (isMethodNotFound(error)) return { items: [], hint: {} } as ListAllResult<typeof kind>;
        throw error;
      });
    const { items, truncatedAfterPages } = listed;
    if (kind === 'skills') this.reportRefusedSkills(listed.invalid ?? []);
    const hint = hintOf(listed.hint, this.connection.era ?? 'legacy');
    // Two refreshes of one list can overlap (set-up and a notification): keep the newer.
    if ((this.state.fetchedAt[kind] ?? 0) > fetchedAt) return;
    if (truncatedAfterPages)
      logEvent(
        'catalog.truncated',
        { server: this.state.id, kind, pages: truncatedAfterPages, kept: items.length },
        'warn',
      );
    if (!truncatedAfterPages && this.shared) {
      const warnings = warningsOf(this.state, LIST_METHOD[kind]);
      this.shared.catalogs.put(
        { server: this.state.id, url: this.shared.url, kind },
        { items, fetchedAt, hint, ...(warnings.length ? { warnings } : {}) },
        this.policy.perUser,
      );
    }
    this.keep(kind, items, fetchedAt, hint, { copied: false });
  }

  /**
   * Skills the SDK refused (a name, description or file list the extension
   * forbids) are dropped, not the list: said as a mended list is, beside
   * what lenient-results.ts said of the same results.
   */
  private reportRefusedSkills(invalid: NonNullable<ListAllResult<'skills'>['invalid']>): void {
    const method = LIST_METHOD.skills;
    const others = warningsOf(this.state, method).filter((message) => !message.startsWith(REFUSED_SKILLS));
    const names = invalid.slice(0, 3).map((entry) => `${entry.uri ?? '?'} (${entry.reason})`);
    const more = invalid.length > 3 ? ` and ${invalid.length - 3} more` : '';
    const refused = invalid.length ? [`${REFUSED_SKILLS} ${invalid.length}: ${names.join(', ')}${more}`] : [];
    if (setWarnings(this.state, method, [...others, ...refused])) this.store.saveHeader(this.state);
  }

  /** The server announced the list, and (skills) the operator did not turn it off: only then is it asked for. */
  announced(kind: CatalogKind): boolean {
    return supports(this.state.capabilities, kind) && !(kind === 'skills' && this.skills === 'off');
  }

  /** A list as this conversation now knows it, in its state and storage (`copied`: taken from the tenant's shared copy). */
  private keep(
    kind: CatalogKind,
    items: unknown[],
    fetchedAt: number,
    hint: CacheHint | undefined,
    { copied, warnings }: { copied: boolean; warnings?: string[] | undefined },
  ): void {
    const state = this.state;
    if ((state.fetchedAt[kind] ?? 0) > fetchedAt) return;
    // A copy brings what was mended in it; a list of our own was reported as it arrived (ServerLink's onMended).
    if (
      copied &&
      setWarnings(
        state,
        LIST_METHOD[kind],
        Array.isArray(warnings) ? warnings.filter((w) => typeof w === 'string') : [],
      )
    ) {
      this.store.saveHeader(state);
    }
    if (kind === 'resources') {
      const kept = new Set((items as ServerState['resources']).map((r) => r.uri));
      const vanished = state.resources.map((r) => r.uri).filter((uri) => !kept.has(uri));
      if (vanished.length) this.onVanished(vanished);
    }
    // Skills the operator did not allow are in no catalog (config `skills`), nor are their files among the resources;
    // the shared copy and the stored list keep them all (withheldSkillOf refuses their files after a restart too).
    const kept = kind === 'skills' ? this.allowedOf(items as ServerState['skills']) : items;
    (state[kind] as unknown[]) = kept;
    if (kind === 'skills' || kind === 'resources') this.hideWithheldFiles();
    state.fetchedAt[kind] = fetchedAt;
    if (copied) this.copied.add(kind);
    else {
      this.copied.delete(kind);
      this.droppedShared.delete(kind);
    }
    state.cacheHints = { ...state.cacheHints, [kind]: hint };
    if (!hint) delete state.cacheHints[kind];
    if (kind === 'tools') this.reportToolWarnings();
    this.store.saveCatalog(state.id, kind, items, fetchedAt);
  }

  /** The skills of `all` the operator allows; the rest are withheld. */
  private allowedOf(all: Skill[]): Skill[] {
    const allowed = all.filter((skill) => allowsSkill({ skills: this.skills }, skill.frontmatter.name));
    this.withheld = all.filter((skill) => !allowed.includes(skill));
    return allowed;
  }

  /** A withheld skill's files are not resources of any catalog (a server may list its SKILL.md among them). */
  private hideWithheldFiles(): void {
    if (!this.withheld.length) return;
    const shown = this.state.resources.filter((resource) => !this.withheldSkillOf(resource.uri));
    if (shown.length !== this.state.resources.length) this.state.resources = shown;
  }

  /**
   * Tools that need a task the server does not let us make (kept from the
   * model, tools/mcp-tools.ts), and tools the model knows by another name
   * than `<server>__<tool>` (tool-names.ts): said here.
   */
  private reportToolWarnings(): void {
    const method = LIST_METHOD.tools;
    const others = warningsOf(this.state, method).filter(
      (message) => !message.startsWith(TASK_ONLY_TOOLS) && !message.startsWith(RENAMED_TOOLS),
    );
    const names = unusableTaskTools(this.state);
    const warning = names.length ? [`${TASK_ONLY_TOOLS} ${names.join(', ')}`] : [];
    const renamed = renamedToolsWarning(this.state.id, this.state.tools, new Set(names));
    if (setWarnings(this.state, method, [...others, ...warning, ...renamed])) this.store.saveHeader(this.state);
  }

  /** A shared list still servable under the freshness contract (as a copy this conversation did not see being made). */
  private async sharedCopy(kind: CatalogKind, ahead?: SharedCopies) {
    if (!this.shared) return undefined;
    const copy = await (ahead
      ? ahead(kind)
      : this.shared.catalogs.get({ server: this.state.id, url: this.shared.url, kind }, this.policy.perUser));
    if (!copy || !Array.isArray(copy.items)) return undefined;
    const now = Date.now();
    const servable = isServable(
      { fetchedAt: copy.fetchedAt, ...(copy.hint ? { hint: copy.hint } : {}) },
      { now, coveredSince: undefined, reuseSince: now },
      { ...this.policy, fallbackTtlMs: this.policy.maxAgeMs },
    );
    return servable ? copy : undefined;
  }

  /**
   * The server said these lists changed: the shared copies go at once (once
   * per burst: a storm of 10,000 notifications is not 10,000 KV deletes),
   * and the lists are refreshed, debounced, which writes them anew.
   */
  changed(kinds: CatalogKind[]): void {
    for (const kind of kinds) {
      if (this.droppedShared.has(kind)) continue;
      this.droppedShared.add(kind);
      this.shared?.catalogs.drop({ server: this.state.id, url: this.shared.url, kind });
    }
    this.schedule(kinds);
  }

  /**
   * These lists are stale now, here and in storage (a change this service made itself): the next use lists them
   * again, connecting if it must. No shared copy to drop: a server whose lists we change shares none.
   */
  expire(kinds: CatalogKind[]): void {
    for (const kind of kinds) {
      if (this.state.fetchedAt[kind] === undefined) continue;
      this.state.fetchedAt[kind] = 0;
      this.store.saveCatalog(this.state.id, kind, this.state[kind] as unknown[], 0);
    }
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
        const started = Date.now();
        const fields = { server: this.state.id, kind: due.join(',') };
        await Promise.all(due.map((kind) => this.refresh(kind))).then(
          () => logEvent('catalog.refresh', { ...fields, durationMs: Date.now() - started, outcome: 'ok' }),
          (error) =>
            logEvent(
              'catalog.refresh',
              { ...fields, durationMs: Date.now() - started, ...upstreamFailure(error) },
              'warn',
            ),
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
