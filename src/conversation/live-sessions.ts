import { definitionPinsOf } from '../mcp/catalog/definition-pins';
import type { TurnEvent } from '../turn/turn-events';
import { vaultSource } from '../auth/vault';
import { VaultAuth } from '../auth/vault-auth';
import { InvalidationLog } from '../cache/invalidation-log';
import { ResourceCache } from '../cache/resource-cache';
import { SharedCatalogs } from '../cache/shared-catalogs';
import { serversOf } from '../config';
import { endOrphanedSessions } from '../mcp/catalog/orphaned-sessions';
import type { Owner } from '../owner';
import type { ConversationTerms } from './terms';
import { leaseLiveSessions } from '../limits/conversation-limits';
import { liveConversationsOf } from '../limits/live-conversations';
import { kvScopesOf } from '../cache/keys';
import { McpSessions } from '../mcp/sessions';
import { errorFields, logEvent } from '../observability/log';
import type { Elicit } from '../mcp/server-link';
import type { ServerState } from '../mcp/catalog/catalog';
import { ServerStateStore } from '../mcp/catalog/state-store';
import { UPLOADS_SERVER } from '../../shared/api/files';
import { UPLOADS_CONFIG, uploadsFetch } from '../uploads/loopback';

/** The registry hears of a conversation's use at most this often (it orders releases by it). */
const TOUCH_EVERY_MS = 60_000;

export interface LiveSessionsHost {
  /** The conversation's id, env, settings and owner (the servers it may use come with the existence record). */
  terms: ConversationTerms;
  storage: DurableObjectStorage;
  /** A turn is being started or streamed (its tools use the sessions until it ends). */
  turnRunning(): boolean;
  /** Calls `releaseIdle(lease)` at `at` (the Durable Object's alarm, alarms.ts). */
  alarms: { scheduleIdle(at: number, lease: string): Promise<void> };
  /** Asks another conversation of the same user to release its sessions; false if it is busy. */
  yieldSessions(other: string, owner: Owner): Promise<boolean>;
  waitUntil(promise: Promise<unknown>): void;
  /** A server asks the user something: during a turn, or about a 2025 task (`relatedTask`). */
  elicit?: Elicit | undefined;
  /** A server now needs the user to connect (again), or to grant more access. */
  authRequired?: ((state: ServerState) => void) | undefined;
  /** The sessions were let go outside a turn (idle, yielded): the tenant's ledger hears of it (usage-outbox.ts). */
  released?: (() => void) | undefined;
  /** The conversation has had a file: its built-in `uploads` server is one of its servers (conversation/uploads.ts). */
  hasUploads?: (() => boolean) | undefined;
}

/**
 * A conversation's MCP sessions over time: built on first use after each
 * start (so every start means fresh connections), counted against the end
 * user's LIVE_CONVERSATIONS_PER_USER from the moment one of them connects
 * (a turn the cache serves whole connects nothing and is not counted), and
 * released — listen streams closed, 2025 sessions ended — once the
 * conversation has been unused for MCP_IDLE_MS. The next use connects anew.
 */
export class LiveSessions {
  /** This instance used MCP (a restarted or fresh one holds no sessions, but may still be counted live). */
  private used = false;
  private sessions: McpSessions | undefined;
  private cache: ResourceCache | undefined;
  /** The registry counts this conversation as holding live sessions. */
  private leased = false;
  /** Names each lease, so an idle check scheduled for an earlier one (or before a restart) does nothing. */
  private lease = '';
  private lastUsedAt = 0;
  private touchedAt = 0;
  /** Requests using the sessions right now: they are not released under them. */
  private inUse = 0;
  /** A lease being taken (concurrent first connections share it). */
  private leasing: Promise<void> | undefined;

  constructor(private readonly host: LiveSessionsHost) {}

  /**
   * Runs `work` with the sessions: the idle clock restarted, and not released
   * (idle, or to make room) while it runs. The lease within the user's limit
   * is taken when the work first connects a server (`leaseOnce`).
   */
  async use<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T> {
    this.host.terms.existing(); // 404 before anything connects
    this.used = true;
    this.inUse++;
    try {
      this.touch();
      return await work((this.sessions ??= this.build()));
    } finally {
      this.inUse--;
      this.lastUsedAt = Date.now();
    }
  }

  /** Before a connection opens: this conversation's place among the user's live ones (making room, or 429), and its idle alarm. */
  private leaseOnce(): Promise<void> {
    if (this.leased) return Promise.resolve();
    this.leasing ??= (async () => {
      const { terms } = this.host;
      const owner = terms.owner();
      await leaseLiveSessions(terms.env, terms.config(), owner, terms.name, (other) =>
        this.host.yieldSessions(other, owner),
      );
      this.leased = true;
      this.lease = crypto.randomUUID();
      this.touchedAt = Date.now();
      await this.host.alarms.scheduleIdle(Date.now() + terms.settings().MCP_IDLE_MS, this.lease);
    })().finally(() => {
      this.leasing = undefined;
    });
    return this.leasing;
  }

  private busy(): boolean {
    return this.inUse > 0 || this.host.turnRunning();
  }

  /** The sessions if built (for settling in tests), without counting as a use. */
  get current(): { sessions: McpSessions | undefined; cache: ResourceCache | undefined } {
    return { sessions: this.sessions, cache: this.cache };
  }

  /** A turn's end (turn-events.ts) counts as a use: the idle clock restarts. */
  heard(event: TurnEvent): void {
    if (event.type === 'turnEnded') this.touch();
  }

  /** Counts as a use. The registry hears of it at most once a minute. */
  touch(): void {
    this.lastUsedAt = Date.now();
    if (this.leased && this.lastUsedAt - this.touchedAt > TOUCH_EVERY_MS) {
      this.touchedAt = this.lastUsedAt;
      this.host.waitUntil(
        this.registry()
          .touch(this.host.terms.name)
          .catch(() => {}),
      );
    }
  }

  /**
   * The idle alarm: releases the sessions if unused for MCP_IDLE_MS and no
   * turn runs; otherwise checks again when that time would be up.
   */
  async releaseIdle(lease: string): Promise<void> {
    if (!this.used) {
      // A restarted instance holds no sessions, but may still be counted live.
      const row = this.host.terms.row();
      if (row) await this.releaseOrphans(row.owner);
      return;
    }
    if (!this.leased || lease !== this.lease) return; // released meanwhile, or a check from before a restart
    const idleMs = this.host.terms.settings().MCP_IDLE_MS;
    const remaining = this.lastUsedAt + idleMs - Date.now();
    if (this.busy() || remaining > 0)
      return this.host.alarms.scheduleIdle(Date.now() + Math.max(remaining, 1_000), lease);
    await this.release();
  }

  /**
   * An upload or deletion changed these files (conversation/uploads.ts): sessions already built gain the `uploads`
   * server if they lacked it, drop their copies of `uris` and list the files again on next use (sessions built later
   * find the stored list stale).
   */
  uploadsChanged(uris: string[]): void {
    if (!this.sessions) return;
    this.sessions.addServer(UPLOADS_CONFIG);
    this.sessions.changedByUs(UPLOADS_SERVER, uris);
  }

  /** The end user connected or disconnected `server` (routes/oauth.ts): its connection and copies under the old grant are dropped. */
  async reauthorized(server: string, grant: string | undefined): Promise<void> {
    await this.sessions?.reauthorized(server, grant);
  }

  /** When this conversation last used its sessions, and its current lease (tests, operators). */
  get usage(): { lastUsedAt: number; lease: string; leased: boolean } {
    return { lastUsedAt: this.lastUsedAt, lease: this.lease, leased: this.leased };
  }

  /**
   * Another conversation of this user needs room: release unless a turn
   * runs. Held by no instance (restarted, deleted), just the count is left —
   * `owner` says whose, as a deleted conversation no longer knows.
   */
  async yield(owner: Owner): Promise<boolean> {
    if (!this.used) {
      await this.releaseOrphans(owner);
      return true;
    }
    if (this.busy()) return false;
    await this.release(owner);
    return true;
  }

  /** Closes every connection and leaves the registry (idle, yielded, or deleted). */
  async release(owner: Owner = this.host.terms.owner()): Promise<void> {
    this.leased = false;
    await this.sessions?.release();
    await liveConversationsOf(this.host.terms.env, owner)
      .release(this.host.terms.name)
      .catch((error) => logEvent('sessions.release', errorFields(error), 'warn'));
    this.host.released?.();
  }

  /** For a deleted conversation (`owner`: its record is about to go): nothing of it outlives it. */
  async close(owner: Owner): Promise<void> {
    if (this.used) await this.release(owner);
    else await liveConversationsOf(this.host.terms.env, owner).release(this.host.terms.name);
    this.used = false;
    this.sessions = undefined;
    this.cache = undefined;
  }

  /** This instance holds no sessions: the 2025 sessions its evicted predecessor left open are ended (orphaned-sessions.ts), then it leaves the count. */
  private async releaseOrphans(owner: Owner): Promise<void> {
    const { terms } = this.host;
    const config = terms.config();
    await endOrphanedSessions(
      new ServerStateStore(this.host.storage.sql),
      serversOf(config, owner.tenant),
      terms.env,
      config.settings,
    );
    await liveConversationsOf(terms.env, owner).release(terms.name);
    this.host.released?.();
  }

  private registry() {
    return liveConversationsOf(this.host.terms.env, this.host.terms.owner());
  }

  private build(): McpSessions {
    const { terms } = this.host;
    const config = terms.config();
    const settings = terms.settings();
    const { owner, servers } = terms.existing();
    const { tenant, user } = owner;
    // A browser token may limit its user to some of the tenant's servers.
    const allowed = servers ? new Set(servers) : undefined;
    const mcpServers = serversOf(config, tenant).filter((server) => !allowed || allowed.has(server.id));
    // The user's own files, once the conversation has had one: whatever servers a token allows (they are theirs).
    if (this.host.hasUploads?.()) mcpServers.push(UPLOADS_CONFIG);
    const scopes = kvScopesOf({ tenant, user });
    const cache = (this.cache = new ResourceCache(
      terms.env.RESOURCE_CACHE,
      new InvalidationLog(this.host.storage.sql, settings.CACHE_MAX_AGE_MS, settings.CACHE_TRACKED_URIS),
      scopes,
      settings,
    ));
    return new McpSessions({
      servers: mcpServers,
      env: terms.env,
      settings,
      store: new ServerStateStore(this.host.storage.sql),
      cache: this.cache,
      // Catalogs live under the same key spaces as the resource copies.
      sharedCatalogs: new SharedCatalogs(terms.env.RESOURCE_CACHE, scopes, settings),
      elicit: this.host.elicit,
      authRequired: this.host.authRequired,
      beforeConnect: () => this.leaseOnce(),
      // Tool definitions and instructions are approved per tenant (mcp/catalog/definition-pins.ts).
      pins: definitionPinsOf(terms.env, tenant),
      // The uploads server is this Worker's own entrypoint, scoped by its props to this conversation (uploads/loopback.ts).
      fetchFor: (server) =>
        server === UPLOADS_CONFIG ? uploadsFetch({ tenant, conversation: terms.name }) : undefined,
      // Tokens come from the end user's vault (OAuth) or the tenant's (client credentials); copies follow the grant.
      authFor: (server) =>
        server.auth.type === 'none'
          ? undefined
          : new VaultAuth(
              vaultSource(terms.env, server.auth.type === 'oauth' ? { tenant, user } : { tenant }, server.id),
              server.id,
              (grant) => cache.partition(server.id, grant.grant),
            ),
    });
  }
}
