import { ProtocolError } from '@modelcontextprotocol/client';
import type { CatalogKind, ServerCapabilities } from '../catalog/catalog';
import type { NotificationChannel } from './channel';
import type { McpConnection } from '../connection/connection';
import { isTimeout, upstreamError, upstreamFailure } from '../connection/errors';
import { logEvent } from '../../observability/log';

/** How long a first read waits for the server to answer the session's GET stream. */
const GET_STREAM_WAIT_MS = 500;

/**
 * The 2025-11-25 notification channel of one server: the session's
 * standalone GET stream, plus `resources/subscribe` for each URI read. A
 * server covers nothing unless it really can notify this session: it gave a
 * session id (a stateless server answers every request with a fresh
 * instance and has nobody to notify), its GET stream is open (405 means it
 * has none), and it accepted the subscription. Subscriptions do not outlive
 * the session: a new connection gets a new channel.
 */
export class LegacyChannel implements NotificationChannel {
  /** URIs subscribed in this session, with when the server accepted. */
  private readonly subscribed = new Map<string, number>();
  private readonly refused = new Set<string>();
  private readonly pending = new Map<string, Promise<void>>();
  /** The session this channel belongs to: a replaced session covers nothing. */
  private readonly client: McpConnection['current'];

  constructor(
    private readonly serverId: string,
    private readonly connection: McpConnection,
    private readonly capabilities: ServerCapabilities | undefined,
    private readonly maxUris: number,
  ) {
    this.client = connection.current;
  }

  get uris(): readonly string[] {
    return [...this.subscribed.keys()];
  }

  /** Re-subscribes to the URIs followed before (a restart, a new session), in parallel. */
  async open(uris: readonly string[]): Promise<void> {
    await Promise.allSettled(uris.slice(0, this.maxUris).map((uri) => this.watch(uri)));
  }

  async watch(uri: string): Promise<void> {
    if (this.subscribed.has(uri) || this.refused.has(uri) || !(await this.canNotify())) return;
    if (this.subscribed.size + this.pending.size >= this.maxUris && !this.pending.has(uri)) return;
    let pending = this.pending.get(uri);
    if (!pending) {
      pending = this.subscribe(uri).finally(() => this.pending.delete(uri));
      this.pending.set(uri, pending);
    }
    await pending;
  }

  /** `resources/unsubscribe`, if this session subscribed it (a refusal is forgotten too: the next read may try again). */
  unwatch(uri: string): void {
    this.refused.delete(uri);
    if (!this.subscribed.delete(uri) || !this.live()) return;
    void this.connection
      .call((client, options) => client.unsubscribeResource({ uri }, options), { method: 'resources/unsubscribe' })
      .catch((error) =>
        logEvent('mcp.subscribe', { server: this.serverId, uri, op: 'unsubscribe', ...upstreamFailure(error) }, 'warn'),
      );
  }

  coveredSince(uri: string): number | undefined {
    const streamSince = this.connection.getStream.openSince;
    const subscribedAt = this.subscribed.get(uri);
    if (streamSince === undefined || subscribedAt === undefined || !this.live()) return undefined;
    return Math.max(streamSince, subscribedAt);
  }

  listChangesSince(kind: CatalogKind): number | undefined {
    const caps = this.capabilities;
    const announced =
      kind === 'tools'
        ? caps?.tools?.listChanged
        : kind === 'prompts'
          ? caps?.prompts?.listChanged
          : caps?.resources?.listChanged;
    return announced && this.live() ? this.connection.getStream.openSince : undefined;
  }

  private live(): boolean {
    return (
      this.client !== undefined && this.connection.current === this.client && this.connection.sessionId !== undefined
    );
  }

  async close(): Promise<void> {
    this.subscribed.clear();
  }

  /** A 2025 channel is as good as its session: a lost GET stream ends the session instead. */
  broken(): boolean {
    return false;
  }

  /** Whether this session can ever notify: subscribe announced, a session id, a GET stream the server did not refuse. */
  private async canNotify(): Promise<boolean> {
    if (!this.capabilities?.resources?.subscribe || !this.live()) return false;
    const stream = this.connection.getStream;
    // The SDK opens the GET stream just after `initialize`: a first read waits a moment for its answer, so
    // that it is covered when the server answers at once. Some servers answer only with their first event
    // (15 s later): the read goes ahead, uncovered until the stream is open.
    if (!stream.answered) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([stream.settled, new Promise((resolve) => (timer = setTimeout(resolve, GET_STREAM_WAIT_MS)))]);
      if (timer !== undefined) clearTimeout(timer);
    }
    return stream.refusedStatus === undefined;
  }

  private async subscribe(uri: string): Promise<void> {
    try {
      // Through `call`, so an expired session is re-initialised like for any request.
      await this.connection.call((client, options) => client.subscribeResource({ uri }, options), {
        method: 'resources/subscribe',
      });
      // A session replaced meanwhile (expired and re-initialised) holds the subscription, not this channel's.
      if (this.live()) this.subscribed.set(uri, Date.now());
    } catch (error) {
      // A server that is down or silent will not answer the read either: fail now, once.
      if (!(error instanceof ProtocolError) || isTimeout(error)) throw upstreamError(this.serverId, error);
      // The server refused this subscription: reads still work; the copy relies on a TTL.
      this.refused.add(uri);
      logEvent('mcp.subscribe', { server: this.serverId, uri, ...upstreamFailure(error), outcome: 'refused' }, 'warn');
    }
  }
}
