import { extensions } from './extensions';
import type {
  Client,
  ElicitRequestFormParams,
  ElicitResult,
  InsufficientScopeError,
} from '@modelcontextprotocol/client';
import { cachePolicyFor, type ServerCachePolicy } from '../cache/policy';
import type { ResourceCache } from '../cache/resource-cache';
import type { SharedCatalogs } from '../cache/shared-catalogs';
import type { McpServerConfig, Settings } from '../config';
import { authRequiredIn, type AuthRequiredError } from '../auth/grant';
import type { VaultAuth } from '../auth/vault-auth';
import { ApiError } from '../errors';
import { logEvent } from '../observability/log';
import { CATALOG_KINDS, type CatalogKind, type ServerState } from './catalog/catalog';
import { CatalogRefresher } from './catalog/catalog-refresh';
import type { NotificationChannel } from './channels/channel';
import { McpConnection, type NotificationMethod } from './connection/connection';
import { priorFrom } from './connection/era';
import { describeUpstreamError, upstreamError, upstreamFailure } from './connection/errors';
import { LegacyChannel } from './channels/legacy-channel';
import { ListenChannel } from './channels/listen-channel';
import { toStoredContents } from './contents';
import type { StoredContents } from '../cache/types';
import { readFromServer, readThroughCache, type ResourceRead } from './resource-read';
import { HEADER_KIND, ServerHeaderCopy } from './catalog/server-header';
import { setWarnings } from './catalog/server-warnings';
import type { ServerStateStore } from './catalog/state-store';
import { DefinitionCheck, type DefinitionPinsClient } from './catalog/definition-check';
import type { TransportEnv } from './connection/transport';
import type { DocumentReading } from '../documents/document-converter';
import { rememberDocumentText } from '../documents/document-texts';

/** Connection retries of a failing server back off from 1 s to 30 s. */
const CONNECT_BACKOFF_MIN_MS = 1_000;
const CONNECT_BACKOFF_MAX_MS = 30_000;
/** How long a 2025 session's lost GET stream has to come back (the SDK retries after 1 s and 1.5 s) before the session is ended. */
const GET_STREAM_REOPEN_MS = 5_000;

export interface ServerLinkOptions {
  config: McpServerConfig;
  env: TransportEnv;
  settings: Settings;
  store: ServerStateStore;
  cache: ResourceCache;
  /** The tenant's shared catalogs (KV); absent: every conversation lists for itself. */
  sharedCatalogs?: SharedCatalogs | undefined;
  /** Asks the user what a server wants to know (elicitation); absent: the capability is not declared. */
  elicit?: Elicit | undefined;
  /** The token source of a server with `auth` (src/auth/vault-auth.ts). */
  auth?: VaultAuth | undefined;
  /** Told when this server starts needing the user (to connect again, or to grant more access). */
  authRequired?: ((state: ServerState) => void) | undefined;
  /** Called before each new connection is opened (the conversation leases its place among the user's live ones); may refuse (429). */
  beforeConnect?: (() => Promise<void>) | undefined;
  /** The tenant's pins of tool definitions and instructions (definition-pins.ts); absent: this conversation pins what it first lists. */
  pins?: DefinitionPinsClient | undefined;
  /** How requests reach the server, if not as its URL says (a built-in server's entrypoint). */
  fetch?: typeof fetch | undefined;
  /** How documents this server serves become text (McpSessions.documents); absent: described as binaries. */
  documents?: DocumentReading | undefined;
}

/** A server's question to the user, answered (or declined, or cancelled) by them; `relatedTask`: a 2025 task's question. */
export type Elicit = (
  server: string,
  params: ElicitRequestFormParams,
  signal: AbortSignal | undefined,
  relatedTask?: string | undefined,
) => Promise<ElicitResult>;

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
  /** URIs written to the followed list in this Durable Object's lifetime (one write each, not one per read). */
  private readonly remembered = new Set<string>();
  /**
   * Turns may be served without a connection (`available`): servers without
   * `auth` (an authorized server's catalogs are the user's own, and asking
   * the vault is part of knowing whether it is usable at all).
   */
  private readonly lazy: boolean;
  /** What the server said of itself, and whether that may still be used without connecting. */
  private readonly header: ServerHeaderCopy;
  /** Its tools' and instructions' approved definitions, and the warnings of those that changed (definition-check.ts). */
  readonly definitions: DefinitionCheck;

  constructor(private readonly options: ServerLinkOptions) {
    const { config, settings, store } = options;
    this.id = config.id;
    this.state = store.load(config.id);
    this.lazy = config.auth.type === 'none';
    this.policy = cachePolicyFor(config, settings);
    this.header = new ServerHeaderCopy({
      id: config.id,
      url: config.url,
      state: this.state,
      store,
      shared: options.sharedCatalogs,
      perUser: this.policy.perUser,
      // Headers have no `RESOURCE_TTL_MS`: without a hint they are kept up to CACHE_MAX_AGE_MS.
      policy: { ...this.policy, fallbackTtlMs: this.policy.maxAgeMs },
    });
    this.connection = new McpConnection({
      config,
      env: options.env,
      settings,
      extensions: extensions.forConnection(config),
      events: {
        onNotification: (method, params) => this.onNotification(method, params),
        onStreamLost: () => this.onChannelLost('the notification stream was lost'),
        onElicitation: options.elicit
          ? (params, signal, relatedTask) => options.elicit!(this.id, params, signal, relatedTask)
          : undefined,
        onMended: ({ method, warnings }) => {
          if (setWarnings(this.state, method, warnings)) store.saveHeader(this.state);
        },
      },
      verdicts: {
        prior: () => priorFrom(store.verdict(this.id), Date.now(), settings.ERA_VERDICT_MAX_AGE_MS),
        save: (verdict) => store.saveVerdict(this.id, verdict),
        // A 2025 session is on record while open: an evicted instance's is ended by the next (orphaned-sessions.ts).
        sessions: {
          recorded: () => store.openSessions().find((s) => s.server === this.id),
          opened: (session, protocol) => store.sessionOpened(this.id, session, protocol),
          ended: (session) => store.sessionEnded(this.id, session),
        },
      },
      auth: options.auth,
      fetch: options.fetch,
    });
    this.catalogs = new CatalogRefresher({
      state: this.state,
      connection: this.connection,
      store,
      settings,
      policy: this.policy,
      onVanished: (uris) => {
        for (const uri of uris) options.cache.invalidate({ server: this.id, uri });
        store.unfollow(this.id, uris);
        for (const uri of uris) this.remembered.delete(uri);
        // An OAuth server's lists may differ from one account to another: not shared in the tenant.
      },
      shared:
        options.sharedCatalogs && config.auth.type !== 'oauth'
          ? { catalogs: options.sharedCatalogs, url: config.url }
          : undefined,
      skills: config.skills,
    });
    this.definitions = new DefinitionCheck({ state: this.state, config, store, pins: options.pins });
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
      if (this.state.status === 'error' || this.state.status === 'auth_required')
        throw upstreamError(this.id, this.setUpError ?? new Error(this.state.error));
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
    if (!this.connection.connected && this.backoff && Date.now() < this.backoff.until)
      throw upstreamError(this.id, this.backoff.error, true);
    // Its own refusal (the user's live conversations are all busy: 429) is not this server's failure.
    if (!this.connection.connected) await this.options.beforeConnect?.();
    try {
      const client = await this.connection.ensure();
      this.backoff = undefined;
      return client;
    } catch (error) {
      const authRequired = authRequiredIn(error);
      if (authRequired) throw this.markAuthRequired(authRequired);
      this.markError(error);
      const delay = Math.min(CONNECT_BACKOFF_MAX_MS, this.backoff ? this.backoff.delay * 2 : CONNECT_BACKOFF_MIN_MS);
      this.backoff = { until: Date.now() + delay, delay, error };
      throw upstreamError(this.id, error, true);
    }
  }

  /** Lists again the catalogs the freshness contract calls stale (see CatalogRefresher.refreshStale). */
  refreshStale(reuseSince: number): Promise<void> {
    return this.catalogs.refreshStale(reuseSince, (kind) => this.channel?.listChangesSince(kind));
  }

  /**
   * The server's state for a turn, connecting only when needed: while the
   * freshness contract serves — without a channel, so by their `ttlMs` or
   * CACHE_MAX_AGE_MS — this conversation's stored header and catalogs, or
   * the tenant's shared copies of them, nothing is connected (status
   * `not_connected`: usable; the first tool call, completion, prompt or read
   * the cache cannot serve connects). Otherwise — a server with `auth`, one
   * connected already, one this conversation saw fail — as `ensure()`, with
   * the stale catalogs listed again.
   */
  async available(reuseSince: number): Promise<ServerState> {
    if (!this.connection.connected && this.lazy && (await this.servableWithoutConnection(reuseSince)))
      return this.state;
    await this.ensure();
    await this.refreshStale(reuseSince).catch((error) =>
      logEvent('catalog.refresh', { server: this.id, kind: 'stale', ...upstreamFailure(error) }, 'warn'),
    );
    return this.state;
  }

  /**
   * Reads through the cache (memory → KV → server) under the freshness
   * contract (cache/policy.ts). `connect: false` (a turn's reads): a copy the
   * contract serves without a channel is served without connecting; a miss
   * connects, and watches the URI, before the server is read.
   */
  async read(uri: string, reuseSince: number, { connect = true }: { connect?: boolean } = {}): Promise<ResourceRead> {
    const state = connect ? await this.ensure() : await this.available(reuseSince);
    if (!state.capabilities?.resources)
      throw new ApiError(400, 'unsupported', `MCP server "${this.id}" does not offer resources`);
    const { cache } = this.options;
    // An extension's rules for its entries (Skills: a withheld skill's files refused, a skill's file checked on every
    // copy served and never converted): the registry's, so this read path names no extension.
    const guard = extensions.guardRead({
      server: this.id,
      state,
      uri,
      withheld: (other) => this.catalogs.withheldSkillOf(other),
      changed: (kinds) => this.catalogs.changed(kinds),
    });
    try {
      const read = await readThroughCache({
        server: this.id,
        uri,
        reuseSince,
        cache,
        policy: this.policy,
        connection: this.connection,
        channel: this.channel,
        connect: this.connection.connected
          ? undefined
          : async () => {
              await this.ensure();
              return this.channel;
            },
        onWatched: (channel) => this.remember(channel, uri),
        onUnwatched: () => this.forget(uri),
        verify: guard?.verify?.bind(guard),
        documents: guard?.raw ? undefined : this.options.documents,
      });
      // A document's text size, for the cost planner (documents/document-texts.ts).
      if (rememberDocumentText(this.state, uri, read.contents)) this.options.store.saveHeader(this.state);
      return read;
    } catch (error) {
      throw guard?.failure?.(error) ?? (await this.authFailure(error)) ?? error;
    }
  }

  /**
   * A resource as the server sends it now, nothing cached or converted: a document's own bytes, for a page image
   * (prompt/scanned-page.ts) — the cache keeps its text. Only after `read` served the same URI in this turn, so the
   * checks above (an extension's rules, resources offered) have passed.
   */
  async readOriginal(uri: string): Promise<StoredContents[]> {
    await this.ensure();
    try {
      return toStoredContents((await readFromServer({ server: this.id, uri, connection: this.connection })).contents);
    } catch (error) {
      throw (await this.authFailure(error)) ?? error;
    }
  }

  /** The header and every announced catalog, from this conversation's storage or the tenant's shared copies, as the contract serves them without a channel. */
  private async servableWithoutConnection(reuseSince: number): Promise<boolean> {
    const { state } = this;
    // A failure this conversation saw (or an authorization it lacks) is not papered over by another conversation's copies.
    if (state.status === 'error' || state.status === 'auth_required') return false;
    // What this conversation lacks of the tenant's copies — the header, the lists — comes in one KV read.
    const { sharedCatalogs, config } = this.options;
    const ahead = sharedCatalogs?.readAhead(
      { server: this.id, url: config.url },
      [HEADER_KIND, ...CATALOG_KINDS],
      this.policy.perUser,
    );
    if (!(await this.header.servable(reuseSince, ahead))) return false;
    if (!(await this.catalogs.takeStaleFromShared(reuseSince, ahead))) return false;
    state.status = 'not_connected';
    return true;
  }

  /**
   * A request that failed because the authorization ended (a refused
   * refresh, a revoked grant): the connection made with it is closed and the
   * user is asked to connect again. Undefined for any other failure.
   */
  async authFailure(error: unknown): Promise<ApiError | undefined> {
    const authRequired = authRequiredIn(error);
    if (!authRequired) return undefined;
    if (authRequired.reason !== 'insufficient_scope') await this.release();
    return this.markAuthRequired(authRequired);
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
    if (state.authorization?.reason !== 'insufficient_scope') delete state.authorization;
    try {
      // The channel first: a change between our listing and our subscription would never be heard of.
      await this.openChannel(client);
      // A 2025 session, or any replacement, may have missed notifications: every catalog is listed again.
      // A 2026 server's catalogs kept from before a restart are listed again only when their hints say so.
      if (replacement || client.getProtocolEra() === 'legacy') {
        // A first connection may take the lists another conversation of the tenant made (shared-catalogs.ts); a replacement lists.
        await Promise.all(
          CATALOG_KINDS.filter((kind) => this.catalogs.announced(kind)).map((kind) =>
            this.catalogs.refresh(kind, { fromShared: !replacement }),
          ),
        );
      } else {
        await this.refreshStale(state.connectedAt);
      }
      this.setUpError = undefined;
      this.header.learnt(client, this.lazy);
    } catch (error) {
      // A set-up overtaken by a newer connection (replaced meanwhile) says nothing about that one.
      if (this.connection.current !== client) return;
      this.setUpError = error;
      const authRequired = authRequiredIn(error);
      if (authRequired) this.markAuthRequired(authRequired);
      else this.markError(error);
      await this.connection.reset(client);
    }
    if (this.connection.current === client) this.options.store.saveHeader(state);
  }

  private async openChannel(client: Client): Promise<void> {
    const { settings, store } = this.options;
    const max = settings.MAX_SUBSCRIBED_URIS;
    const channel: NotificationChannel =
      client.getProtocolEra() === 'modern'
        ? new ListenChannel(this.id, client, this.state.capabilities, this.connection.requestOptions, max, (reason) => {
            if (this.channel === channel) this.onChannelLost(reason);
          })
        : new LegacyChannel(this.id, this.connection, this.state.capabilities, max);
    this.channel = channel;
    await channel.open(store.followed(this.id, max));
  }

  /** A URI the channel now covers is asked for again when the channel is re-opened (restart, new session). Written once per start. */
  private remember(channel: NotificationChannel, uri: string) {
    if (this.remembered.has(uri) || channel.coveredSince(uri) === undefined) return;
    this.remembered.add(uri);
    this.options.store.follow(this.id, uri);
  }

  /** A URI no longer followed (its read failed): not asked for again when the channel is re-opened. */
  private forget(uri: string) {
    if (!this.remembered.delete(uri)) return;
    this.options.store.unfollow(this.id, [uri]);
  }

  /**
   * The user must connect (or connect again, or grant more): no back-off —
   * asking the vault costs nothing upstream, and the next use after the user
   * connected must go through.
   */
  markAuthRequired(error: AuthRequiredError): ApiError {
    const before = JSON.stringify([this.state.status, this.state.authorization]);
    this.state.status =
      error.reason === 'insufficient_scope' && this.connection.connected ? 'connected' : 'auth_required';
    this.state.authorization = { reason: error.reason, ...(error.scope ? { scope: error.scope } : {}) };
    if (this.state.status === 'auth_required') this.state.error = error.message;
    this.options.store.saveHeader(this.state);
    if (JSON.stringify([this.state.status, this.state.authorization]) !== before)
      this.options.authRequired?.(this.state);
    return new ApiError(403, 'auth_required', error.message);
  }

  /** A request was refused for want of scope (403 insufficient_scope): the vault remembers what to ask for; the user is told. */
  async stepUp(error: InsufficientScopeError): Promise<ApiError> {
    const refused = new ApiError(
      403,
      'insufficient_scope',
      `MCP server "${this.id}" refused: it asks for scope ${error.requiredScope ?? '(not said)'}${this.options.auth ? ', which was granted' : ''}`,
    );
    const auth = this.options.auth;
    if (!auth) return refused;
    const stepUp = await auth.needsScope(error.requiredScope);
    return stepUp ? this.markAuthRequired(stepUp) : refused;
  }

  /**
   * The user connected again, or disconnected: the token held here and the
   * connection made with it are dropped, and so is everything cached under
   * the old authorization. The next use connects with the new one. A
   * connection already made with `grant` (the new one) is kept.
   */
  async reauthorized(grant?: string): Promise<void> {
    if (grant !== undefined && this.options.auth?.grant === grant) return;
    this.options.auth?.forget();
    this.backoff = undefined;
    delete this.state.authorization;
    this.options.cache.invalidateServer(this.id);
    await this.release();
  }

  private markError(error: unknown) {
    this.state.status = 'error';
    this.state.error = describeUpstreamError(error);
    this.options.store.saveHeader(this.state);
  }

  // ---- notifications ----------------------------------------------------------

  private onNotification(method: NotificationMethod, params: { uri?: string }) {
    switch (method) {
      case 'notifications/resources/updated':
        // Synchronous up to the point that matters: once this returns, no later read serves the old content.
        if (params.uri) this.options.cache.invalidate({ server: this.id, uri: params.uri });
        return;
      case 'notifications/resources/list_changed':
        // An extension's catalog may change with the resources too (Skills: mcp/extensions/skills/).
        return this.catalogs.changed(
          (['resources', 'resourceTemplates', ...extensions.changedBy(method)] as CatalogKind[]).filter((kind) =>
            this.catalogs.announced(kind),
          ),
        );
      case 'notifications/tools/list_changed':
        return this.catalogs.changed(['tools']);
      case 'notifications/prompts/list_changed':
        return this.catalogs.changed(['prompts']);
    }
  }

  /**
   * The notification channel ended or broke: notifications may have been
   * missed, so nothing cached from this server is trusted and every catalog
   * is listed again. The channel is opened again on the next use.
   */
  private onChannelLost(reason: string) {
    logEvent('mcp.channel', { server: this.id, outcome: 'lost', reason }, 'warn');
    this.options.cache.invalidateServer(this.id);
    const client = this.connection.current;
    const kinds = CATALOG_KINDS.filter((kind): kind is CatalogKind => this.catalogs.announced(kind));
    if (client?.getProtocolEra() === 'legacy') return this.onGetStreamLost(client, kinds);
    const channel = this.channel;
    this.channel = undefined;
    void channel?.close().catch(() => {});
    if (!client) return; // the connection is gone too: the next use connects (and lists) anew
    this.catalogs.schedule(kinds);
  }

  /**
   * A 2025 session's GET stream ended or broke. The SDK opens it again by
   * itself (after about a second, resuming with Last-Event-ID), on the same
   * session, whose subscriptions the server keeps: until then the channel
   * covers nothing (coverage counts from the stream's new opening), and what
   * was cached and listed before is not trusted. Only a stream that does not
   * come back within GET_STREAM_REOPEN_MS ends the session — the next use
   * opens a new one. (Ending it at once opened a new session for every
   * dropped connection: 514 for 500 conversations under load.)
   */
  private onGetStreamLost(client: Client, kinds: CatalogKind[]) {
    this.catalogs.schedule(kinds);
    setTimeout(() => {
      if (this.connection.current !== client || this.connection.getStream.openSince !== undefined) return;
      logEvent(
        'mcp.channel',
        {
          server: this.id,
          outcome: 'ended',
          reason: 'the GET stream did not come back: a new session on the next use',
        },
        'warn',
      );
      this.channel = undefined;
      void this.connection.reset(client);
      this.state.status = 'not_connected';
      this.options.store.saveHeader(this.state);
    }, GET_STREAM_REOPEN_MS);
  }
}
