import type { Client } from '@modelcontextprotocol/client';
import type { ResourceCache } from '../../cache/resource-cache';
import { logEvent } from '../../observability/log';
import { CATALOG_KINDS, type CatalogKind, type ServerState } from '../catalog/catalog';
import type { CatalogRefresher } from '../catalog/catalog-refresh';
import type { ServerStateStore } from '../catalog/state-store';
import type { McpConnection, NotificationMethod } from '../connection/connection';
import { extensions } from '../extensions';
import type { NotificationChannel } from './channel';
import { LegacyChannel } from './legacy-channel';
import { ListenChannel } from './listen-channel';

/** How long a 2025 session's lost GET stream has to come back (the SDK retries after 1 s and 1.5 s) before the session is ended. */
const GET_STREAM_REOPEN_MS = 5_000;

/** What one server's notifications need of its link (server-link.ts), which owns all of it. */
export interface ServerNotificationsOptions {
  id: string;
  state: ServerState;
  connection: McpConnection;
  catalogs: CatalogRefresher;
  cache: ResourceCache;
  store: ServerStateStore;
  /** How many URIs one channel may follow (MAX_SUBSCRIBED_URIS). */
  maxUris: number;
}

/**
 * How one server's changes reach its link: the notification channel of the
 * current connection (a 2026 listen stream or a 2025 session's GET stream),
 * the URIs it follows across restarts, what each notification does to the
 * cache and the catalogs, and what a lost channel costs. Split from
 * ServerLink, which decides when a channel is opened and closed.
 */
export class ServerNotifications {
  /** The notification channel of the current connection; undefined until set up, or after it was lost. */
  private channel: NotificationChannel | undefined;
  /** URIs written to the followed list in this Durable Object's lifetime (one write each, not one per read). */
  private readonly remembered = new Set<string>();

  constructor(private readonly options: ServerNotificationsOptions) {}

  /** The channel now, if there is one: the cache asks it what it covers. */
  get current(): NotificationChannel | undefined {
    return this.channel;
  }

  /** Opens the channel of `client`'s era, on the URIs followed before (a restart, a new session). */
  async open(client: Client): Promise<void> {
    const { id, state, connection, store, maxUris } = this.options;
    const channel: NotificationChannel =
      client.getProtocolEra() === 'modern'
        ? new ListenChannel(id, client, state.capabilities, connection.requestOptions, maxUris, (reason) => {
            if (this.channel === channel) this.lost(reason);
          })
        : new LegacyChannel(id, connection, state.capabilities, maxUris);
    this.channel = channel;
    await channel.open(store.followed(id, maxUris));
  }

  /** Before a use of `client`: a channel the server ended (or lost), or that failed to open a while ago, is opened again. */
  async reopen(client: Client): Promise<void> {
    if (this.channel?.broken(Date.now())) {
      void this.channel.close().catch(() => {});
      this.channel = undefined;
    }
    if (!this.channel && this.options.connection.current === client) await this.open(client);
  }

  /** The channel of a connection that is gone (ended with it): nothing to close, the next one opens its own. */
  abandon(): void {
    this.channel = undefined;
  }

  /** Closes the channel (the link is released). */
  async close(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    await channel?.close().catch(() => {});
  }

  /** A URI the channel now covers is asked for again when the channel is re-opened (restart, new session). Written once per start. */
  remember(channel: NotificationChannel, uri: string): void {
    if (this.remembered.has(uri) || channel.coveredSince(uri) === undefined) return;
    this.remembered.add(uri);
    this.options.store.follow(this.options.id, uri);
  }

  /** A URI no longer followed (its read failed): not asked for again when the channel is re-opened. */
  forget(uri: string): void {
    if (!this.remembered.delete(uri)) return;
    this.options.store.unfollow(this.options.id, [uri]);
  }

  /** URIs gone from the server's list: nothing of them stays cached, nor is asked for again. */
  vanished(uris: string[]): void {
    const { id, cache, store } = this.options;
    for (const uri of uris) cache.invalidate({ server: id, uri });
    store.unfollow(id, uris);
    for (const uri of uris) this.remembered.delete(uri);
  }

  /** What a notification of the server does: a changed resource leaves the cache; a changed list is listed again. */
  received(method: NotificationMethod, params: { uri?: string }) {
    const { catalogs } = this.options;
    switch (method) {
      case 'notifications/resources/updated':
        // Synchronous up to the point that matters: once this returns, no later read serves the old content.
        if (params.uri) this.options.cache.invalidate({ server: this.options.id, uri: params.uri });
        return;
      case 'notifications/resources/list_changed':
        // An extension's catalog may change with the resources too (Skills: mcp/extensions/skills/).
        return catalogs.changed(
          (['resources', 'resourceTemplates', ...extensions.changedBy(method)] as CatalogKind[]).filter((kind) =>
            catalogs.announced(kind),
          ),
        );
      case 'notifications/tools/list_changed':
        return catalogs.changed(['tools']);
      case 'notifications/prompts/list_changed':
        return catalogs.changed(['prompts']);
    }
  }

  /**
   * The notification channel ended or broke: notifications may have been
   * missed, so nothing cached from this server is trusted and every catalog
   * is listed again. The channel is opened again on the next use.
   */
  lost(reason: string) {
    const { id, cache, connection, catalogs } = this.options;
    logEvent('mcp.channel', { server: id, outcome: 'lost', reason }, 'warn');
    cache.invalidateServer(id);
    const client = connection.current;
    const kinds = CATALOG_KINDS.filter((kind): kind is CatalogKind => catalogs.announced(kind));
    if (client?.getProtocolEra() === 'legacy') return this.getStreamLost(client, kinds);
    const channel = this.channel;
    this.channel = undefined;
    void channel?.close().catch(() => {});
    if (!client) return; // the connection is gone too: the next use connects (and lists) anew
    catalogs.schedule(kinds);
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
  private getStreamLost(client: Client, kinds: CatalogKind[]) {
    const { id, state, connection, catalogs, store } = this.options;
    catalogs.schedule(kinds);
    setTimeout(() => {
      if (connection.current !== client || connection.getStream.openSince !== undefined) return;
      logEvent(
        'mcp.channel',
        {
          server: id,
          outcome: 'ended',
          reason: 'the GET stream did not come back: a new session on the next use',
        },
        'warn',
      );
      this.channel = undefined;
      void connection.reset(client);
      state.status = 'not_connected';
      store.saveHeader(state);
    }, GET_STREAM_REOPEN_MS);
  }
}
