import { extensions } from './extensions';
import type { Client, InsufficientScopeError } from '@modelcontextprotocol/client';
import { cachePolicyFor, type ServerCachePolicy } from '../cache/policy';
import type { McpServerConfig } from '../config';
import { authRequiredIn } from '../auth/grant';
import { ApiError } from '../errors';
import { logEvent } from '../observability/log';
import { CATALOG_KINDS, type ServerState } from './catalog/catalog';
import { CatalogRefresher } from './catalog/catalog-refresh';
import { ServerNotifications } from './channels/server-notifications';
import { McpConnection } from './connection/connection';
import { priorFrom } from './connection/era';
import { describeUpstreamError, upstreamError, upstreamFailure } from './connection/errors';
import { toStoredContents } from './contents';
import type { StoredContents } from '../cache/types';
import { readFromServer, readThroughCache, type ResourceRead } from './resource-read';
import { HEADER_KIND, ServerHeaderCopy } from './catalog/server-header';
import { setWarnings } from './catalog/server-warnings';
import { DefinitionCheck } from './catalog/definition-check';
import { rememberDocumentText } from '../documents/document-texts';
import { ServerAuthorization } from './server-authorization';
import type { ServerLinkOptions } from './server-link-contract';

/** Connection retries of a failing server back off from 1 s to 30 s. */
const CONNECT_BACKOFF_MIN_MS = 1_000;
const CONNECT_BACKOFF_MAX_MS = 30_000;

export type { Elicit, ServerLinkOptions } from './server-link-contract';

/**
 * Everything one conversation has to do with one MCP server: the
 * connection, its set-up (state, catalogs, notification channel), reads
 * through the cache under the freshness contract, and its release. What
 * notifications do is the channel's (channels/server-notifications.ts);
 * when the server needs the user, its authorization's
 * (server-authorization.ts). One server failing never touches another's link.
 */
export class ServerLink {
  readonly id: string;
  readonly state: ServerState;
  readonly connection: McpConnection;
  readonly catalogs: CatalogRefresher;
  private readonly policy: ServerCachePolicy;
  /** The notification channel and what its notifications do (channels/server-notifications.ts). */
  private readonly notifications: ServerNotifications;
  /** When the server needs the user, and their answer (server-authorization.ts). */
  private readonly authorization: ServerAuthorization;
  /** Set-up of each connection, run once per connection. */
  private readonly setUps = new WeakMap<Client, Promise<void>>();
  /** A failed connect: when to try again, and why it failed. */
  private backoff: { until: number; delay: number; error: unknown } | undefined;
  /** Why the last set-up failed (kept whole, so a timeout stays a 504). */
  private setUpError: unknown;
  /** This link had a connection in this Durable Object's lifetime: a new one may have missed notifications. */
  private hadConnection = false;
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
        onNotification: (method, params) => this.notifications.received(method, params),
        onStreamLost: () => this.notifications.lost('the notification stream was lost'),
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
      onVanished: (uris) => this.notifications.vanished(uris),
      // An OAuth server's lists may differ from one account to another: not shared in the tenant.
      shared:
        options.sharedCatalogs && config.auth.type !== 'oauth'
          ? { catalogs: options.sharedCatalogs, url: config.url }
          : undefined,
      skills: config.skills,
    });
    this.definitions = new DefinitionCheck({ state: this.state, config, store, pins: options.pins });
    const { id, state, connection } = this;
    this.notifications = new ServerNotifications({
      id,
      state,
      connection,
      catalogs: this.catalogs,
      cache: options.cache,
      store,
      maxUris: settings.MAX_SUBSCRIBED_URIS,
    });
    this.authorization = new ServerAuthorization({
      id,
      state,
      store,
      cache: options.cache,
      connection,
      auth: options.auth,
      authRequired: options.authRequired,
      release: () => this.release(),
      forgetBackoff: () => {
        this.backoff = undefined;
      },
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
      if (this.state.status === 'error' || this.state.status === 'auth_required')
        throw upstreamError(this.id, this.setUpError ?? new Error(this.state.error));
      await this.notifications.reopen(client);
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
      if (authRequired) throw this.authorization.required(authRequired);
      this.markError(error);
      const delay = Math.min(CONNECT_BACKOFF_MAX_MS, this.backoff ? this.backoff.delay * 2 : CONNECT_BACKOFF_MIN_MS);
      this.backoff = { until: Date.now() + delay, delay, error };
      throw upstreamError(this.id, error, true);
    }
  }

  /** Lists again the catalogs the freshness contract calls stale (see CatalogRefresher.refreshStale). */
  refreshStale(reuseSince: number): Promise<void> {
    return this.catalogs.refreshStale(reuseSince, (kind) => this.notifications.current?.listChangesSince(kind));
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
        channel: this.notifications.current,
        connect: this.connection.connected
          ? undefined
          : async () => {
              await this.ensure();
              return this.notifications.current;
            },
        onWatched: (channel) => this.notifications.remember(channel, uri),
        onUnwatched: () => this.notifications.forget(uri),
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

  /** A request that failed because the authorization ended: closed, and the user asked (ServerAuthorization.failure). */
  authFailure(error: unknown): Promise<ApiError | undefined> {
    return this.authorization.failure(error);
  }

  /** A request refused for want of scope: the user is asked to grant more, if they can (ServerAuthorization.stepUp). */
  stepUp(error: InsufficientScopeError): Promise<ApiError> {
    return this.authorization.stepUp(error);
  }

  /** The user connected again, or disconnected (ServerAuthorization.reauthorized). */
  reauthorized(grant?: string): Promise<void> {
    return this.authorization.reauthorized(grant);
  }

  /**
   * Closes the notification channel and the connection (a 2025 session is
   * ended with `DELETE`). The state stays; the next use connects anew and,
   * since notifications went unheard meanwhile, trusts nothing cached before.
   */
  async release(): Promise<void> {
    this.catalogs.stop();
    await this.notifications.close();
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
    this.notifications.abandon();
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
      await this.notifications.open(client);
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
      if (authRequired) this.authorization.required(authRequired);
      else this.markError(error);
      await this.connection.reset(client);
    }
    if (this.connection.current === client) this.options.store.saveHeader(state);
  }

  private markError(error: unknown) {
    this.state.status = 'error';
    this.state.error = describeUpstreamError(error);
    this.options.store.saveHeader(this.state);
  }
}
