import { vaultSource } from '../auth/vault';
import { VaultAuth } from '../auth/vault-auth';
import { InvalidationLog } from '../cache/invalidation-log';
import { ResourceCache } from '../cache/resource-cache';
import { SharedCatalogs } from '../cache/shared-catalogs';
import { loadConfig, serversOf } from '../config';
import { leaseLiveSessions } from '../limits/conversation-limits';
import { liveConversationsOf } from '../limits/live-conversations';
import { kvScopesOf } from '../cache/keys';
import { McpSessions } from '../mcp/sessions';
import { errorFields, logEvent } from '../observability/log';
import type { Elicit } from '../mcp/server-link';
import type { ServerState } from '../mcp/catalog';
import { ServerStateStore } from '../mcp/state-store';

/** The registry hears of a conversation's use at most this often (it orders releases by it). */
const TOUCH_EVERY_MS = 60_000;

export interface LiveSessionsHost {
  env: Env;
  /** The conversation id. */
  name: string;
  storage: DurableObjectStorage;
  owner: { tenant: string; user: string; servers: string[] | undefined };
  /** A turn is being started or streamed (its tools use the sessions until it ends). */
  turnRunning(): boolean;
  /** Calls `releaseIdle(lease)` in about `delayMs` (a Durable Object alarm). */
  scheduleIdleCheck(delayMs: number, lease: string): Promise<void>;
  /** Asks another conversation of the same user to release its sessions; false if it is busy. */
  yieldSessions(other: string): Promise<boolean>;
  waitUntil(promise: Promise<unknown>): void;
  /** A server asks the user something during a turn. */
  elicit?: Elicit | undefined;
  /** A server now needs the user to connect (again), or to grant more access. */
  authRequired?: ((state: ServerState) => void) | undefined;
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
      const config = loadConfig(this.host.env);
      await leaseLiveSessions(this.host.env, config, this.host.owner, this.host.name, (other) => this.host.yieldSessions(other));
      this.leased = true;
      this.lease = crypto.randomUUID();
      this.touchedAt = Date.now();
      await this.host.scheduleIdleCheck(config.settings.MCP_IDLE_MS, this.lease);
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

  /** Counts as a use (the end of a turn, say). The registry hears of it at most once a minute. */
  touch(): void {
    this.lastUsedAt = Date.now();
    if (this.leased && this.lastUsedAt - this.touchedAt > TOUCH_EVERY_MS) {
      this.touchedAt = this.lastUsedAt;
      this.host.waitUntil(
        this.registry()
          .touch(this.host.name)
          .catch(() => {}),
      );
    }
  }

  /**
   * The idle alarm: releases the sessions if unused for MCP_IDLE_MS and no
   * turn runs; otherwise checks again when that time would be up.
   */
  async releaseIdle(lease: string): Promise<void> {
    if (!this.leased || lease !== this.lease) return; // released meanwhile, or a check from before a restart
    const idleMs = loadConfig(this.host.env).settings.MCP_IDLE_MS;
    const remaining = this.lastUsedAt + idleMs - Date.now();
    if (this.busy() || remaining > 0) return this.host.scheduleIdleCheck(Math.max(remaining, 1_000), lease);
    await this.release();
  }

  /** When this conversation last used its sessions, and its current lease (tests, operators). */
  get usage(): { lastUsedAt: number; lease: string; leased: boolean } {
    return { lastUsedAt: this.lastUsedAt, lease: this.lease, leased: this.leased };
  }

  /** Another conversation of this user needs room: release unless a turn runs. */
  async yield(): Promise<boolean> {
    if (this.busy()) return false;
    await this.release();
    return true;
  }

  /** Closes every connection and leaves the registry (idle, yielded, or deleted). */
  async release(): Promise<void> {
    this.leased = false;
    await this.sessions?.release();
    await this.registry()
      .release(this.host.name)
      .catch((error) => logEvent('sessions.release', errorFields(error), 'warn'));
  }

  /** For a deleted conversation: nothing of it outlives it. */
  async close(): Promise<void> {
    await this.release();
    this.sessions = undefined;
    this.cache = undefined;
  }

  private registry() {
    return liveConversationsOf(this.host.env, this.host.owner);
  }

  private build(): McpSessions {
    const config = loadConfig(this.host.env);
    const { settings } = config;
    const { tenant, user, servers } = this.host.owner;
    // A browser token may limit its user to some of the tenant's servers.
    const allowed = servers ? new Set(servers) : undefined;
    const mcpServers = serversOf(config, tenant).filter((server) => !allowed || allowed.has(server.id));
    const scopes = kvScopesOf({ tenant, user });
    const cache = (this.cache = new ResourceCache(
      this.host.env.RESOURCE_CACHE,
      new InvalidationLog(this.host.storage.sql, settings.CACHE_MAX_AGE_MS, settings.CACHE_TRACKED_URIS),
      scopes,
      settings,
    ));
    return new McpSessions({
      servers: mcpServers,
      env: this.host.env,
      settings,
      store: new ServerStateStore(this.host.storage.sql),
      cache: this.cache,
      // Catalogs live under the same key spaces as the resource copies.
      sharedCatalogs: new SharedCatalogs(this.host.env.RESOURCE_CACHE, scopes, settings),
      elicit: this.host.elicit,
      authRequired: this.host.authRequired,
      beforeConnect: () => this.leaseOnce(),
      // Tokens come from the end user's vault (OAuth) or the tenant's (client credentials); copies follow the grant.
      authFor: (server) =>
        server.auth.type === 'none'
          ? undefined
          : new VaultAuth(vaultSource(this.host.env, server.auth.type === 'oauth' ? { tenant, user } : { tenant }, server.id), server.id, (grant) =>
              cache.partition(server.id, grant.grant),
            ),
    });
  }
}
