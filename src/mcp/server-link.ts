import type { Client } from '@modelcontextprotocol/client';
import { hintOf, isServable, kvScopeFor, kvScopesToTry, reuseWindowMs, type ServerCachePolicy } from '../cache/policy';
import type { ResourceCache } from '../cache/resource-cache';
import type { CacheHint, CacheSource, StoredContents } from '../cache/types';
import type { McpServerConfig, Settings } from '../config';
import { ApiError } from '../errors';
import { CATALOG_KINDS, supports, type CatalogKind, type ServerState } from './catalog';
import { CatalogRefresher } from './catalog-refresh';
import type { NotificationChannel } from './channel';
import { McpConnection, type NotificationMethod } from './connection';
import { toStoredContents } from './contents';
import { priorFrom, verdictOf } from './era';
import { describeUpstreamError, isResourceNotFound, upstreamError } from './errors';
import { LegacyChannel } from './legacy-channel';
import { ListenChannel } from './listen-channel';
import type { ServerStateStore } from './state-store';
import type { TransportEnv } from './transport';

/** Connection retries of a failing server back off from 1 s to 30 s. */
const CONNECT_BACKOFF_MIN_MS = 1_000;
const CONNECT_BACKOFF_MAX_MS = 30_000;

/** What `read` returns: the stored contents and where they came from. */
export interface ResourceRead {
  server: string;
  uri: string;
  cache: CacheSource;
  fetchedAt: number;
  /** The server's cache hint, when it sent one. */
  hint?: CacheHint;
  /**
   * How this copy stays fresh: whether a live notification channel covers
   * the URI, and how long after `fetchedAt` it may be served (0: only within
   * the turn that fetched it) unless a notification invalidates it sooner.
   */
  freshness: { notifications: boolean; ttlMs: number };
  contents: StoredContents[];
}

export interface ServerLinkOptions {
  config: McpServerConfig;
  env: TransportEnv;
  settings: Settings;
  store: ServerStateStore;
  cache: ResourceCache;
}

/**
 * Everything one conversation has to do with one MCP server: the
 * connection, its set-up (state, catalogs, notification channel), reads
 * through the cache under the freshness contract, and what notifications
 * do. One server failing never touches another's link.
 */
export class ServerLink {
  readonly id: string;
  readonly state: ServerState;
  readonly connection: McpConnection;
  readonly catalogs: CatalogRefresher;
  private readonly policy: ServerCachePolicy;
  /** The notification channel of the current connection; undefined until set up, or after it was lost. */
  private channel: NotificationChannel | undefined;
  /** Set-up of each connection, run once per connection. */
  private readonly setUps = new WeakMap<Client, Promise<void>>();
  /** A failed connect: when to try again, and why it failed. */
  private backoff: { until: number; delay: number; error: unknown } | undefined;
  /** Why the last set-up failed (kept whole, so a timeout stays a 504). */
  private setUpError: unknown;
  /** This link had a connection in this Durable Object's lifetime: a new one may have missed notifications. */
  private hadConnection = false;
  private discovering: Promise<void> | undefined;
  /** URIs written to the followed list in this Durable Object's lifetime (one write each, not one per read). */
  private readonly remembered = new Set<string>();

  constructor(private readonly options: ServerLinkOptions) {
    const { config, settings, store } = options;
    this.id = config.id;
    this.state = store.load(config.id);
    this.policy = {
      fallbackTtlMs: config.ttlMs ?? settings.RESOURCE_TTL_MS,
      maxAgeMs: settings.CACHE_MAX_AGE_MS,
      trustNotifications: config.trustNotifications,
      perUser: config.cacheScope === 'user',
    };
    this.connection = new McpConnection(
      config,
      options.env,
      settings,
      {
        onNotification: (method, params) => this.onNotification(method, params),
        onStreamLost: () => this.onChannelLost('the notification stream was lost'),
      },
      {
        prior: () => priorFrom(store.verdict(this.id), Date.now(), settings.ERA_VERDICT_MAX_AGE_MS),
        save: (verdict) => store.saveVerdict(this.id, verdict),
      },
    );
    this.catalogs = new CatalogRefresher(this.state, this.connection, store, settings, (uris) => {
      for (const uri of uris) options.cache.invalidate({ server: this.id, uri });
      store.unfollow(this.id, uris);
      for (const uri of uris) this.remembered.delete(uri);
    });
  }

  get config(): McpServerConfig {
    return this.options.config;
  }

  /** Whether a connection (and so, for 2025, a server-side session) is open. */
  get live(): boolean {
    return this.connection.connected;
  }

  /** Connects (if needed) and sets up; throws a 502/504 naming the server. */
  async ensure(): Promise<ServerState> {
    // A connection replaced while it was being set up (a stored era verdict
    // turned out wrong, say) is followed by the set-up of its replacement.
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect();
      let setUp = this.setUps.get(client);
      if (!setUp) this.setUps.set(client, (setUp = this.setUp(client)));
      await setUp;
      if (this.connection.current !== client && this.connection.connected && attempt < 2) continue;
      if (this.state.status === 'error') throw upstreamError(this.id, this.setUpError ?? new Error(this.state.error));
      // A channel the server ended (or lost), or that failed to open a while ago, is opened again on the next use.
      if (this.channel?.broken(Date.now())) {
        void this.channel.close().catch(() => {});
        this.channel = undefined;
      }
      if (!this.channel && this.connection.current === client) await this.openChannel(client);
      return this.state;
    }
  }

  /** The live client, connecting if needed — unless a recent failure says to wait (back-off). */
  private async connect(): Promise<Client> {
    // A server that just failed to connect is not tried again at once: a
    // down or silent server must not make every request wait for it.
    if (!this.connection.connected && this.backoff && Date.now() < this.backoff.until) throw upstreamError(this.id, this.backoff.error, true);
    try {
      const client = await this.connection.ensure();
      this.backoff = undefined;
      return client;
    } catch (error) {
      this.markError(error);
      const delay = Math.min(CONNECT_BACKOFF_MAX_MS, this.backoff ? this.backoff.delay * 2 : CONNECT_BACKOFF_MIN_MS);
      this.backoff = { until: Date.now() + delay, delay, error };
      throw upstreamError(this.id, error, true);
    }
  }

  /**
   * Lists again every catalog the freshness contract says is stale — its
   * `ttlMs` passed (`0`: once per turn), or, without a hint, no live channel
   * delivers its `list_changed` and it is older than CACHE_MAX_AGE_MS — and
   * asks `server/discover` again in the background when its hint expired.
   */
  async refreshStale(reuseSince: number): Promise<void> {
    const now = Date.now();
    const catalogPolicy = { ...this.policy, fallbackTtlMs: this.policy.maxAgeMs };
    const stale = CATALOG_KINDS.filter((kind) => {
      if (!supports(this.state.capabilities, kind)) return false;
      const fetchedAt = this.state.fetchedAt[kind];
      const hint = this.state.cacheHints?.[kind];
      const entry = { fetchedAt: fetchedAt ?? 0, ...(hint ? { hint } : {}) };
      return fetchedAt === undefined || !isServable(entry, { now, coveredSince: this.channel?.listChangesSince(kind), reuseSince }, catalogPolicy);
    });
    if (stale.length) await Promise.all(stale.map((kind) => this.catalogs.refresh(kind)));
    this.rediscoverIfStale(reuseSince);
  }

  /** Reads through the cache (memory → KV → server) under the freshness contract (cache/policy.ts). */
  async read(uri: string, reuseSince: number): Promise<ResourceRead> {
    const state = await this.ensure();
    if (!state.capabilities?.resources) throw new ApiError(400, 'unsupported', `MCP server "${this.id}" does not offer resources`);
    const channel = this.channel;
    // The URI is watched before the server is read: an update landing between
    // our read and our subscription would never be heard of. Memory and KV
    // are looked up meanwhile, so only a URI's first read pays the round trip.
    const watched = channel ? channel.watch(uri).then(() => this.remember(channel, uri)) : Promise.resolve();
    const ready = watched.catch(() => {}); // a server that cannot be reached fails the read itself, below
    const ref = { server: this.id, uri };
    const { entry, source } = await this.options.cache.read(
      ref,
      {
        kvScopes: kvScopesToTry(this.options.cache.knownScope(ref), this.policy),
        ready,
        servable: (copy) => isServable(copy, { now: Date.now(), coveredSince: channel?.coveredSince(uri), reuseSince }, this.policy),
      },
      async () => {
        await watched;
        return this.load(uri);
      },
    );
    const since = channel?.coveredSince(uri);
    const covered = since !== undefined && entry.fetchedAt >= since;
    return {
      server: this.id,
      uri,
      cache: source,
      fetchedAt: entry.fetchedAt,
      ...(entry.hint ? { hint: entry.hint } : {}),
      freshness: { notifications: covered, ttlMs: reuseWindowMs(entry.hint, covered, this.policy) },
      contents: entry.contents,
    };
  }

  /**
   * Closes the notification channel and the connection (a 2025 session is
   * ended with `DELETE`). The state stays; the next use connects anew and,
   * since notifications went unheard meanwhile, trusts nothing cached before.
   */
  async release(): Promise<void> {
    this.catalogs.stop();
    const channel = this.channel;
    this.channel = undefined;
    await channel?.close().catch(() => {});
    await this.connection.reset();
    if (this.state.status === 'connected') {
      this.state.status = 'not_connected';
      this.options.store.saveHeader(this.state);
    }
  }

  // ---- set-up ------------------------------------------------------------------

  /** After each new connection: record what the server announced, open the channel, list what is due. */
  private async setUp(client: Client): Promise<void> {
    const state = this.state;
    // A replacement connection (lost stream, expired session, idle release):
    // notifications may have been missed in between, so nothing cached before is trusted.
    const replacement = this.hadConnection;
    if (replacement) this.options.cache.invalidateServer(this.id);
    this.hadConnection = true;
    this.channel = undefined;
    state.serverInfo = client.getServerVersion();
    state.capabilities = client.getServerCapabilities();
    state.instructions = client.getInstructions();
    state.protocolVersion = client.getNegotiatedProtocolVersion();
    state.connectedAt = Date.now();
    state.status = 'connected';
    delete state.error;
    try {
      // The channel first: a change between our listing and our subscription would never be heard of.
      await this.openChannel(client);
      // A 2025 session, or any replacement, may have missed notifications: every catalog is listed again.
      // A 2026 server's catalogs kept from before a restart are listed again only when their hints say so.
      if (replacement || client.getProtocolEra() === 'legacy') {
        await Promise.all(CATALOG_KINDS.filter((kind) => supports(state.capabilities, kind)).map((kind) => this.catalogs.refresh(kind)));
      } else {
        await this.refreshStale(state.connectedAt);
      }
      this.setUpError = undefined;
    } catch (error) {
      // A set-up overtaken by a newer connection (replaced meanwhile) says nothing about that one.
      if (this.connection.current !== client) return;
      this.setUpError = error;
      this.markError(error);
      await this.connection.reset(client);
    }
    if (this.connection.current === client) this.options.store.saveHeader(state);
  }

  private async openChannel(client: Client): Promise<void> {
    const { settings, store } = this.options;
    const followed = store.followed(this.id, settings.MAX_SUBSCRIBED_URIS);
    if (client.getProtocolEra() === 'modern') {
      const channel = new ListenChannel(client, this.state.capabilities, this.connection.requestOptions, settings.MAX_SUBSCRIBED_URIS, (reason) => {
        if (this.channel === channel) this.onChannelLost(reason);
      });
      this.channel = channel;
      await channel.open(followed);
    } else {
      const channel = new LegacyChannel(this.id, this.connection, this.state.capabilities, settings.MAX_SUBSCRIBED_URIS);
      this.channel = channel;
      await channel.open(followed);
    }
  }

  /** A URI the channel now covers is asked for again when the channel is re-opened (restart, new session). Written once per start. */
  private remember(channel: NotificationChannel, uri: string) {
    if (this.remembered.has(uri) || channel.coveredSince(uri) === undefined) return;
    this.remembered.add(uri);
    this.options.store.follow(this.id, uri);
  }

  /** `server/discover` again in the background when its hint expired: instructions and capabilities may have changed. */
  private rediscoverIfStale(reuseSince: number) {
    const client = this.connection.current;
    const verdict = this.options.store.verdict(this.id);
    if (!client || client.getProtocolEra() !== 'modern' || verdict?.kind !== 'modern' || this.discovering) return;
    const hint = hintOf(verdict.discover as { ttlMs?: unknown; cacheScope?: unknown }, 'modern');
    if (isServable({ fetchedAt: verdict.at, ...(hint ? { hint } : {}) }, { now: Date.now(), coveredSince: undefined, reuseSince }, this.policy)) return;
    this.discovering = this.connection
      .call(async (c, options) => {
        const discover = await c.discover(options);
        this.state.capabilities = discover.capabilities;
        this.state.instructions = discover.instructions;
        this.options.store.saveVerdict(this.id, verdictOf(c, Date.now()));
        this.options.store.saveHeader(this.state);
      })
      .catch((error) => console.warn(`MCP server "${this.id}": server/discover failed (${describeUpstreamError(error)})`))
      .finally(() => (this.discovering = undefined));
  }

  private markError(error: unknown) {
    this.state.status = 'error';
    this.state.error = describeUpstreamError(error);
    this.options.store.saveHeader(this.state);
  }

  // ---- reads ----------------------------------------------------------------

  private async load(uri: string) {
    let result;
    try {
      result = await this.connection.call((client, options) => client.readResource({ uri }, options));
    } catch (error) {
      if (isResourceNotFound(error)) {
        throw new ApiError(404, 'resource_not_found', `MCP server "${this.id}" has no resource ${uri}: ${describeUpstreamError(error)}`);
      }
      throw upstreamError(this.id, error);
    }
    const hint = hintOf(result as { ttlMs?: unknown; cacheScope?: unknown }, this.connection.era ?? 'legacy');
    return { contents: toStoredContents(result.contents), ...(hint ? { hint } : {}), kvScope: kvScopeFor(hint, this.policy) };
  }

  // ---- notifications ----------------------------------------------------------

  private onNotification(method: NotificationMethod, params: { uri?: string }) {
    switch (method) {
      case 'notifications/resources/updated':
        // Synchronous up to the point that matters: once this returns, no later read serves the old content.
        if (params.uri) this.options.cache.invalidate({ server: this.id, uri: params.uri });
        return;
      case 'notifications/resources/list_changed':
        return this.catalogs.schedule(['resources', 'resourceTemplates']);
      case 'notifications/tools/list_changed':
        return this.catalogs.schedule(['tools']);
      case 'notifications/prompts/list_changed':
        return this.catalogs.schedule(['prompts']);
    }
  }

  /**
   * The notification channel ended or broke: notifications may have been
   * missed, so nothing cached from this server is trusted and every catalog
   * is listed again. The channel is opened again on the next use.
   */
  private onChannelLost(reason: string) {
    console.warn(`MCP server "${this.id}": ${reason}; cached entries dropped, catalogs listed again`);
    this.options.cache.invalidateServer(this.id);
    const channel = this.channel;
    this.channel = undefined;
    void channel?.close().catch(() => {});
    const client = this.connection.current;
    if (!client) return; // the connection is gone too: the next use connects (and lists) anew
    if (client.getProtocolEra() === 'modern') {
      this.catalogs.schedule(CATALOG_KINDS.filter((kind): kind is CatalogKind => supports(this.state.capabilities, kind)));
      return;
    }
    // A 2025 session without its GET stream cannot notify: the next use opens a new session (which lists everything).
    void this.connection.reset(client);
    this.state.status = 'not_connected';
    this.options.store.saveHeader(this.state);
  }
}
