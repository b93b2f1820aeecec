import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError, type CallToolResult, type CompleteRequest, type CompleteResult, type GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { ResourceCache } from '../cache/resource-cache';
import type { CacheRef, CacheSource, StoredContents } from '../cache/types';
import type { McpServerConfig, Settings } from '../config';
import { ApiError, notFound } from '../errors';
import { CATALOG_KINDS, emptyServerState, supports, type CatalogKind, type ServerState } from './catalog';
import { toStoredContents } from './contents';
import { describeUpstreamError, isResourceNotFound, isTimeout, upstreamError } from './errors';
import { listAll } from './list-all';
import { validatePromptArguments } from './prompt-arguments';
import { McpSession, type NotificationMethod } from './session';
import type { ServerStateStore } from './state-store';
import type { TransportEnv } from './transport';

const COMPLETION_CACHE_MS = 30_000;
/** Connection retries of a failing server back off from 1 s to 30 s. */
const CONNECT_BACKOFF_MIN_MS = 1_000;
const CONNECT_BACKOFF_MAX_MS = 30_000;
const COMPLETION_CACHE_ENTRIES = 500;
/** A notification storm that never pauses still gets a catalog refresh every this many debounce windows. */
const REFRESH_MAX_WAIT_WINDOWS = 20;

/** What `readResource` returns: the stored contents and where they came from. */
export interface ResourceRead {
  server: string;
  uri: string;
  cache: CacheSource;
  fetchedAt: number;
  ttlMs?: number;
  contents: StoredContents[];
}

export interface McpSessionsOptions {
  servers: McpServerConfig[];
  env: TransportEnv;
  settings: Settings;
  store: ServerStateStore;
  cache: ResourceCache;
  /** Cache scope of this conversation's end user (for per-user servers). */
  userScope: string;
  /** Cache scope shared by every user of this conversation's tenant (for shared servers). */
  sharedScope: string;
}

/**
 * The MCP sessions of one conversation: connects to each configured server
 * on first use (after every Durable Object start, with a fresh `initialize`),
 * keeps catalogs and server state in storage, subscribes to what it reads,
 * and turns notifications into cache invalidations and catalog refreshes.
 * One server failing never fails the others.
 */
export class McpSessions {
  private readonly configs: Map<string, McpServerConfig>;
  private readonly sessions = new Map<string, McpSession>();
  private readonly states = new Map<string, ServerState>();
  /** Set-up (state, catalogs, subscriptions) of each MCP session, run once per session. */
  private readonly setUps = new WeakMap<Client, Promise<void>>();
  /** URIs subscribed within each MCP session (subscriptions do not outlive a session). */
  private readonly subscribed = new WeakMap<Client, Set<string>>();
  /** URIs whose subscription the server refused, per session. */
  private readonly refused = new WeakMap<Client, Set<string>>();
  private readonly completions = new Map<string, { at: number; completion: CompleteResult['completion'] }>();
  /** Servers that failed to connect: when to try again, and why they failed. */
  private readonly backoffs = new Map<string, { until: number; delay: number; error: unknown }>();
  /** URIs from `resource_link` tool results, by server (they need not be in any listing). */
  private readonly links = new Map<string, string>();
  /** Why the last set-up of a server failed (kept whole, so a timeout stays a 504). */
  private readonly setUpErrors = new Map<string, unknown>();
  /** Pending catalog refreshes per server: the catalogs due, the debounce timer, when the burst began, the refresh running. */
  private readonly refreshes = new Map<string, { kinds: Set<CatalogKind>; timer: ReturnType<typeof setTimeout> | null; firstAt: number; chain: Promise<void> }>();
  /** Servers that had a session in this Durable Object's lifetime. */
  private readonly opened = new Set<string>();
  /** Catalog refreshes run (one per debounced burst); for tests and benchmarks. */
  refreshCount = 0;

  constructor(private readonly options: McpSessionsOptions) {
    this.configs = new Map(options.servers.map((server) => [server.id, server]));
  }

  get servers(): McpServerConfig[] {
    return [...this.configs.values()];
  }

  get serverIds(): string[] {
    return [...this.configs.keys()];
  }

  /** Every server's state, connecting to those not connected yet. Failures are reported per server. */
  async catalog(): Promise<ServerState[]> {
    await Promise.allSettled(this.serverIds.map((id) => this.ensureServer(id)));
    return this.serverIds.map((id) => this.state(id));
  }

  /** Connects (if needed) and returns the server's state; throws a 502/504 naming the server. */
  async ensureServer(id: string): Promise<ServerState> {
    const session = this.session(id);
    const state = this.state(id);
    // A server that just failed to connect is not tried again at once: a
    // down or silent server must not make every request wait for it.
    const backoff = this.backoffs.get(id);
    if (!session.connected && backoff && Date.now() < backoff.until) throw upstreamError(id, backoff.error, true);
    let client: Client;
    try {
      client = await session.ensure();
    } catch (error) {
      this.markError(state, error);
      const delay = Math.min(CONNECT_BACKOFF_MAX_MS, backoff ? backoff.delay * 2 : CONNECT_BACKOFF_MIN_MS);
      this.backoffs.set(id, { until: Date.now() + delay, delay, error });
      throw upstreamError(id, error, true);
    }
    this.backoffs.delete(id);
    let setUp = this.setUps.get(client);
    if (!setUp) {
      setUp = this.setUp(id, client);
      this.setUps.set(client, setUp);
    }
    await setUp;
    if (state.status === 'error') throw upstreamError(id, this.setUpErrors.get(id) ?? new Error(state.error));
    return state;
  }

  /** Reads through the cache (memory → KV → server), subscribing to the URI when the server can notify. */
  async readResource(id: string, uri: string): Promise<ResourceRead> {
    const state = await this.ensureServer(id);
    if (!state.capabilities?.resources) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer resources`);
    const canNotify = Boolean(state.capabilities.resources.subscribe);
    // The subscription must be in place before the server read: an update
    // landing between our read and our subscription would never be heard of.
    // It runs alongside the memory/KV lookups, and is a no-op once made in
    // this session, so only a URI's first read pays a second round trip.
    const subscribed = canNotify ? this.subscribe(id, uri) : Promise.resolve(false);
    subscribed.catch(() => {}); // awaited below; this only keeps it from counting as unhandled meanwhile
    const ref = this.cacheRef(id, uri);
    const { entry, source } = await this.options.cache.read(ref, async () => this.load(id, uri, await subscribed));
    await subscribed;
    return {
      server: id,
      uri,
      cache: source,
      fetchedAt: entry.fetchedAt,
      contents: entry.contents,
      ...(entry.ttlMs === undefined ? {} : { ttlMs: entry.ttlMs }),
    };
  }

  /** Calls one MCP tool of one server and returns its result as the server sent it. */
  async callTool(id: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const state = await this.ensureServer(id);
    if (!state.capabilities?.tools) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer tools`);
    try {
      return (await this.session(id).call((client, options) => client.callTool({ name, arguments: args }, undefined, options), { idempotent: false })) as CallToolResult;
    } catch (error) {
      throw upstreamError(id, error);
    }
  }

  /** `prompts/get`, after checking the arguments against the prompt's declaration (400 naming the argument). */
  async getPrompt(id: string, name: string, args: Record<string, unknown>): Promise<GetPromptResult> {
    const state = await this.ensureServer(id);
    if (!state.capabilities?.prompts) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer prompts`);
    const prompt = state.prompts.find((p) => p.name === name);
    if (!prompt) {
      throw new ApiError(404, 'prompt_not_found', `MCP server "${id}" has no prompt "${name}" (it has: ${state.prompts.map((p) => p.name).join(', ') || 'none'})`);
    }
    const valid = validatePromptArguments(prompt, args, id);
    try {
      return await this.session(id).call((client, options) => client.getPrompt({ name, arguments: valid }, options));
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        throw new ApiError(400, 'invalid_argument', `Prompt "${name}" on server "${id}": ${describeUpstreamError(error)}`);
      }
      throw upstreamError(id, error);
    }
  }

  /**
   * `completion/complete` for a prompt or template argument. A server without
   * the capability gives an empty list, not an error. Answers are reused for
   * COMPLETION_CACHE_MS per (server, ref, argument, value, context): menus
   * ask again on every keystroke.
   */
  async complete(id: string, request: CompleteRequest['params']): Promise<CompleteResult['completion']> {
    const state = await this.ensureServer(id);
    if (!state.capabilities?.completions) return { values: [], hasMore: false };
    const key = JSON.stringify([id, request.ref, request.argument, request.context ?? null]);
    const cached = this.completions.get(key);
    if (cached && Date.now() - cached.at < COMPLETION_CACHE_MS) return cached.completion;
    let completion: CompleteResult['completion'];
    try {
      completion = (await this.session(id).call((client, options) => client.complete(request, options))).completion;
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.InvalidParams) {
        throw new ApiError(400, 'invalid_argument', `MCP server "${id}" refused the completion: ${describeUpstreamError(error)}`);
      }
      throw upstreamError(id, error);
    }
    if (this.completions.size >= COMPLETION_CACHE_ENTRIES) this.completions.delete(this.completions.keys().next().value!);
    this.completions.set(key, { at: Date.now(), completion });
    return completion;
  }

  /** A `resource_link` a tool returned: its URI resolves to that server from now on. */
  registerLink(id: string, uri: string): void {
    this.links.set(uri, id);
  }

  /**
   * The server a URI belongs to: the one whose catalog lists it or whose
   * template matches it. Ambiguity is the caller's to resolve (400 naming
   * the candidates).
   */
  async resolveServer(uri: string): Promise<string> {
    const linked = this.links.get(uri);
    if (linked) return linked;
    const states = await this.catalog();
    const listing = states.filter((s) => s.resources.some((r) => r.uri === uri)).map((s) => s.id);
    const candidates = listing.length
      ? listing
      : states.filter((s) => s.resourceTemplates.some((t) => matchesTemplate(t.uriTemplate, uri))).map((s) => s.id);
    if (candidates.length === 1) return candidates[0]!;
    if (candidates.length > 1) {
      throw new ApiError(400, 'ambiguous_uri', `${uri} belongs to several servers (${candidates.join(', ')}); say which with "server"`);
    }
    const withResources = states.filter((s) => s.capabilities?.resources).map((s) => s.id);
    if (withResources.length === 1) return withResources[0]!;
    throw new ApiError(404, 'resource_not_found', `No server lists or templates ${uri}; say which server with "server" (one of: ${withResources.join(', ') || 'none'})`);
  }

  /** Ends every session (tells the servers, best effort). */
  async closeAll(): Promise<void> {
    for (const refresh of this.refreshes.values()) if (refresh.timer) clearTimeout(refresh.timer);
    this.refreshes.clear();
    await Promise.allSettled([...this.sessions.values()].map((session) => session.reset()));
    this.sessions.clear();
    this.completions.clear();
    this.backoffs.clear();
  }

  /** Resolves when no catalog refresh is pending or running (tests, benchmarks). */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [...this.refreshes.values()].filter((r) => r.timer || r.kinds.size);
      await Promise.all([...this.refreshes.values()].map((r) => r.chain));
      if (!busy.length) return;
      await new Promise((resolve) => setTimeout(resolve, this.options.settings.NOTIFICATION_DEBOUNCE_MS + 5));
    }
  }

  // ---- connection set-up -----------------------------------------------------

  private session(id: string): McpSession {
    const config = this.configs.get(id);
    if (!config) throw notFound(`MCP server "${id}"`);
    let session = this.sessions.get(id);
    if (!session) {
      session = new McpSession(config, this.options.env, this.options.settings, {
        onNotification: (method, params) => this.onNotification(id, method, params),
        onStreamLost: () => this.onStreamLost(id),
      });
      this.sessions.set(id, session);
    }
    return session;
  }

  private state(id: string): ServerState {
    let state = this.states.get(id);
    if (!state) {
      state = this.configs.has(id) ? this.options.store.load(id) : emptyServerState(id);
      this.states.set(id, state);
    }
    return state;
  }

  /** After each new MCP session: record what the server announced, re-list, re-subscribe. */
  private async setUp(id: string, client: Client): Promise<void> {
    const state = this.state(id);
    // A replacement session (lost stream, expired session): notifications may
    // have been missed in between, so nothing cached from before is trusted.
    if (this.opened.has(id)) this.options.cache.invalidateServer(id);
    this.opened.add(id);
    state.serverInfo = client.getServerVersion();
    state.capabilities = client.getServerCapabilities();
    state.instructions = client.getInstructions();
    state.connectedAt = Date.now();
    state.status = 'connected';
    delete state.error;
    try {
      // A new session may have missed notifications: every catalog is re-listed.
      await Promise.all(CATALOG_KINDS.filter((kind) => supports(state.capabilities, kind)).map((kind) => this.refreshKind(id, kind)));
      // Re-subscribe in parallel; one failure does not fail the set-up (the next read of that URI retries).
      await Promise.allSettled(this.options.store.subscriptions(id).map((uri) => this.subscribe(id, uri)));
      this.setUpErrors.delete(id);
    } catch (error) {
      this.setUpErrors.set(id, error);
      this.markError(state, error);
      await this.session(id).reset(client);
    }
    this.options.store.saveHeader(state);
  }

  private markError(state: ServerState, error: unknown) {
    state.status = 'error';
    state.error = describeUpstreamError(error);
    this.options.store.saveHeader(state);
  }

  private async refreshKind(id: string, kind: CatalogKind): Promise<void> {
    const state = this.state(id);
    if (!supports(state.capabilities, kind)) return;
    const fetchedAt = Date.now();
    const { items, truncatedAfterPages } = await this.session(id)
      .call((client, options) => listAll(client, kind, options, this.options.settings.MCP_MAX_LIST_PAGES))
      .catch((error: unknown) => {
        // `resources` implies resources/templates/list, but many servers never
        // implement it: "method not found" means there is nothing to list.
        if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return { items: [], truncatedAfterPages: undefined };
        throw error;
      });
    // Two refreshes of one list can overlap (set-up and a notification): keep the newer.
    if ((state.fetchedAt[kind] ?? 0) > fetchedAt) return;
    if (truncatedAfterPages) console.warn(`MCP server "${id}": ${kind} list still had pages after ${truncatedAfterPages}; keeping the first ${items.length}`);
    if (kind === 'resources') {
      const kept = new Set((items as ServerState['resources']).map((r) => r.uri));
      const vanished = state.resources.map((r) => r.uri).filter((uri) => !kept.has(uri));
      for (const uri of vanished) this.invalidate(id, uri);
      this.options.store.removeSubscriptions(id, vanished);
    }
    (state[kind] as unknown[]) = items;
    state.fetchedAt[kind] = fetchedAt;
    this.options.store.saveCatalog(id, kind, items, fetchedAt);
  }

  /**
   * Subscribes to `uri` within the current session (once). Returns whether
   * the server will notify changes of it: false when the server refused (the
   * refusal is remembered for the session, and entries then get a TTL).
   */
  private async subscribe(id: string, uri: string): Promise<boolean> {
    const session = this.session(id);
    const current = await session.ensure();
    if (this.subscribedIn(current).has(uri)) return true;
    if (this.refusedIn(current).has(uri)) return false;
    try {
      // Through `call`, so an expired session is re-initialised like for any request.
      await session.call(async (client, options) => {
        if (this.subscribedIn(client).has(uri)) return;
        await client.subscribeResource({ uri }, options);
        this.subscribedIn(client).add(uri);
      });
      this.options.store.addSubscription(id, uri);
      return true;
    } catch (error) {
      // A server that is down or silent will not answer the read either: fail now, once.
      if (!(error instanceof McpError) || isTimeout(error)) throw upstreamError(id, error);
      // The server refused this subscription: reads still work; the entry gets a TTL instead.
      this.refusedIn(await session.ensure()).add(uri);
      this.options.store.removeSubscriptions(id, [uri]);
      console.warn(`MCP server "${id}": subscribe to ${uri} refused (${describeUpstreamError(error)})`);
      return false;
    }
  }

  private refusedIn(client: Client): Set<string> {
    let refused = this.refused.get(client);
    if (!refused) this.refused.set(client, (refused = new Set()));
    return refused;
  }

  private subscribedIn(client: Client): Set<string> {
    let done = this.subscribed.get(client);
    if (!done) this.subscribed.set(client, (done = new Set()));
    return done;
  }

  // ---- reads ----------------------------------------------------------------

  /**
   * Results a server marks `cacheScope: "private"` need no scope of their own:
   * they are never written to KV (see `load`), and the memory layer belongs to
   * this conversation alone.
   */
  private cacheRef(id: string, uri: string): CacheRef {
    const shared = this.configs.get(id)?.cacheScope === 'shared';
    return { scope: shared ? this.options.sharedScope : this.options.userScope, server: id, uri };
  }

  private async load(id: string, uri: string, canNotify: boolean) {
    let result;
    try {
      result = await this.session(id).call((client, options) => client.readResource({ uri }, options));
    } catch (error) {
      if (isResourceNotFound(error)) {
        throw new ApiError(404, 'resource_not_found', `MCP server "${id}" has no resource ${uri}: ${describeUpstreamError(error)}`);
      }
      throw upstreamError(id, error);
    }
    // Cache hints of the 2026 revision, when a server sends them.
    const hint = result as { ttlMs?: unknown; cacheScope?: unknown };
    const ttlMs =
      typeof hint.ttlMs === 'number' && hint.ttlMs >= 0
        ? hint.ttlMs
        : canNotify
          ? undefined
          : (this.configs.get(id)?.ttlMs ?? this.options.settings.RESOURCE_TTL_MS);
    return {
      contents: toStoredContents(result.contents),
      ...(ttlMs === undefined ? {} : { ttlMs }),
      shareable: hint.cacheScope !== 'private',
    };
  }

  // ---- notifications ----------------------------------------------------------

  private onNotification(id: string, method: NotificationMethod, params: { uri?: string }) {
    switch (method) {
      case 'notifications/resources/updated':
        if (params.uri) this.invalidate(id, params.uri);
        return;
      case 'notifications/resources/list_changed':
        return this.scheduleRefresh(id, ['resources', 'resourceTemplates']);
      case 'notifications/tools/list_changed':
        return this.scheduleRefresh(id, ['tools']);
      case 'notifications/prompts/list_changed':
        return this.scheduleRefresh(id, ['prompts']);
    }
  }

  /** Synchronous up to the point that matters: once this returns, no later read serves the old content. */
  private invalidate(id: string, uri: string) {
    this.options.cache.invalidate(this.cacheRef(id, uri));
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
  private scheduleRefresh(id: string, kinds: CatalogKind[]) {
    let refresh = this.refreshes.get(id);
    if (!refresh) this.refreshes.set(id, (refresh = { kinds: new Set(), timer: null, firstAt: 0, chain: Promise.resolve() }));
    for (const kind of kinds) refresh.kinds.add(kind);
    const now = Date.now();
    const window = this.options.settings.NOTIFICATION_DEBOUNCE_MS;
    if (refresh.timer) {
      if (now - refresh.firstAt >= window * REFRESH_MAX_WAIT_WINDOWS) return; // due soon anyway
      clearTimeout(refresh.timer);
    } else {
      refresh.firstAt = now;
    }
    const current = refresh;
    current.timer = setTimeout(() => {
      current.timer = null;
      const due = [...current.kinds];
      current.kinds.clear();
      current.chain = current.chain.then(async () => {
        this.refreshCount++;
        await Promise.all(due.map((kind) => this.refreshKind(id, kind))).catch((error) =>
          console.warn(`MCP server "${id}": catalog refresh failed (${describeUpstreamError(error)})`),
        );
      });
    }, window);
  }

  /** The notification stream died: the next use opens a new session, which re-lists everything. */
  private onStreamLost(id: string) {
    console.warn(`MCP server "${id}": notification stream lost; reconnecting on next use`);
    this.options.cache.invalidateServer(id);
    const state = this.state(id);
    state.status = 'not_connected';
    this.options.store.saveHeader(state);
  }
}

function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
