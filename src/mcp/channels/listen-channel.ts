import type { Client, McpSubscription, RequestOptions, SubscriptionFilter } from '@modelcontextprotocol/client';
import type { CatalogKind, ServerCapabilities } from '../catalog/catalog';
import type { NotificationChannel } from './channel';
import { upstreamFailure } from '../connection/errors';
import { logEvent } from '../../observability/log';

/** A channel whose `listen` failed is replaced (and tried again) on a use this long after. */
const LISTEN_RETRY_MS = 30_000;

interface Stream {
  subscription: McpSubscription;
  /** What the server agreed to: URIs with the time they became covered, and the list kinds. */
  uris: Map<string, number>;
  lists: Partial<Record<CatalogKind, number>>;
}

/**
 * The 2026-07-28 notification channel of one server: one
 * `subscriptions/listen` stream per conversation, asking for the catalog
 * `list_changed` kinds the server announced and the exact URIs this
 * conversation reads. A filter cannot be changed in place, so covering a new
 * URI opens a wider stream and closes the old one only once the new one is
 * acknowledged: at every moment one acknowledged stream covers each URI.
 * A stream the server ends or loses is reported (`onLost`): notifications
 * may have been missed, and the caller distrusts what it cached.
 */
export class ListenChannel implements NotificationChannel {
  private stream: Stream | undefined;
  /** URIs asked for but not yet in an acknowledged filter. */
  private readonly wanted = new Set<string>();
  /** URIs the server left out of its acknowledged filter: they rely on TTLs. */
  private readonly refused = new Set<string>();
  private widening: Promise<void> | undefined;
  private ended = false;
  /** When the last `listen` failed (server down, refused, timed out). */
  private failedAt: number | undefined;

  constructor(
    private readonly serverId: string,
    private readonly client: Client,
    private readonly capabilities: ServerCapabilities | undefined,
    private readonly options: RequestOptions,
    private readonly maxUris: number,
    private readonly onLost: (reason: string) => void,
  ) {}

  /** Opens the first stream: the list kinds, and URIs followed before (a restart, a re-connect). */
  async open(uris: readonly string[]): Promise<void> {
    for (const uri of uris.slice(0, this.maxUris)) this.wanted.add(uri);
    await this.widen();
  }

  get uris(): readonly string[] {
    return [...(this.stream?.uris.keys() ?? [])];
  }

  async watch(uri: string): Promise<void> {
    if (!this.capabilities?.resources?.subscribe || this.ended) return;
    // A listen failed a moment ago (refused, or never acknowledged: it waited the request's whole time limit): a new
    // URI is not made to wait for another now. It relies on its TTL until a new channel tries again (`broken`).
    if (this.failedAt !== undefined && !this.stream) return void this.refused.add(uri);
    while (!this.stream?.uris.has(uri) && !this.refused.has(uri) && !this.ended) {
      if ((this.stream?.uris.size ?? 0) + this.wanted.size >= this.maxUris && !this.wanted.has(uri)) return;
      this.wanted.add(uri);
      await this.widen();
    }
  }

  /** Out of the filter at once (no coverage, no slot); the stream is narrowed in the background, so the server stops notifying. */
  unwatch(uri: string): void {
    this.wanted.delete(uri);
    this.refused.delete(uri);
    if (!this.stream?.uris.delete(uri) || this.ended) return;
    void this.widen().catch(() => {});
  }

  coveredSince(uri: string): number | undefined {
    return this.stream?.uris.get(uri);
  }

  listChangesSince(kind: CatalogKind): number | undefined {
    return this.stream?.lists[kind];
  }

  /** No stream since a `listen` failed, LISTEN_RETRY_MS ago or more: a new channel should try again. */
  broken(now: number): boolean {
    return !this.stream && !this.ended && this.failedAt !== undefined && now - this.failedAt >= LISTEN_RETRY_MS;
  }

  async close(): Promise<void> {
    this.ended = true;
    const stream = this.stream;
    this.stream = undefined;
    await stream?.subscription.close();
  }

  /** One new stream at a time (wider, or narrower after an unwatch); URIs wanted meanwhile go into the next one. */
  private widen(): Promise<void> {
    this.widening ??= this.openWider().finally(() => (this.widening = undefined));
    return this.widening;
  }

  private async openWider(): Promise<void> {
    const previous = this.stream;
    const uris = [...new Set([...(previous?.uris.keys() ?? []), ...this.wanted])];
    const asked = new Set(this.wanted);
    this.wanted.clear();
    const filter = this.filterFor(uris);
    if (!Object.keys(filter).length) {
      // Narrowed to nothing (the last URI was unwatched, and no lists are announced): no stream at all.
      this.stream = undefined;
      void previous?.subscription.close().catch(() => {});
      return;
    }
    let subscription: McpSubscription;
    try {
      subscription = await this.client.listen(filter, this.options);
    } catch (error) {
      // No stream, no coverage: reads rely on TTLs. Said once per attempt, not fatal.
      logEvent('mcp.channel', { server: this.serverId, ...upstreamFailure(error) }, 'warn');
      for (const uri of asked) this.refused.add(uri);
      this.failedAt = Date.now();
      return;
    }
    if (this.ended) return void subscription.close();
    const now = Date.now();
    const honored = subscription.honoredFilter;
    const stream: Stream = { subscription, uris: new Map(), lists: {} };
    for (const uri of honored.resourceSubscriptions ?? []) stream.uris.set(uri, previous?.uris.get(uri) ?? now);
    for (const uri of asked) if (!stream.uris.has(uri)) this.refused.add(uri);
    if (honored.toolsListChanged) stream.lists.tools = previous?.lists.tools ?? now;
    if (honored.promptsListChanged) stream.lists.prompts = previous?.lists.prompts ?? now;
    if (honored.resourcesListChanged) {
      stream.lists.resources = previous?.lists.resources ?? now;
      stream.lists.resourceTemplates = previous?.lists.resourceTemplates ?? now;
      stream.lists.skills = previous?.lists.skills ?? now;
    }
    this.stream = stream;
    void subscription.closed.then((how) => {
      if (how === 'local' || this.stream !== stream) return;
      this.stream = undefined;
      this.ended = true;
      this.onLost(how === 'graceful' ? 'the server ended the listen stream' : 'the listen stream was lost');
    });
    // The old stream is closed only now that the new one is acknowledged: no gap. Nobody waits for it.
    void previous?.subscription.close().catch(() => {});
  }

  private filterFor(uris: string[]): SubscriptionFilter {
    const caps = this.capabilities;
    const filter: SubscriptionFilter = {};
    if (caps?.tools?.listChanged) filter.toolsListChanged = true;
    if (caps?.prompts?.listChanged) filter.promptsListChanged = true;
    if (caps?.resources?.listChanged) filter.resourcesListChanged = true;
    if (caps?.resources?.subscribe && uris.length) filter.resourceSubscriptions = uris;
    return filter;
  }
}
