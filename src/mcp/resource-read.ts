import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { hintOf, isServable, kvScopeFor, kvScopesToTry, reuseWindowMs, type ServerCachePolicy } from '../cache/policy';
import type { ResourceCache } from '../cache/resource-cache';
import type { CacheHint, CacheSource, StoredContents } from '../cache/types';
import { ApiError } from '../errors';
import type { NotificationChannel } from './channels/channel';
import type { McpConnection } from './connection/connection';
import { toStoredContents } from './contents';
import { convertDocuments } from '../documents/convert-contents';
import type { DocumentReading } from '../documents/document-converter';
import { describeUpstreamError, isResourceNotFound, upstreamError } from './connection/errors';

/** What a read returns: the stored contents and where they came from. */
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

/** One read through the cache: what is read, for which turn, through which copies and connection, and who hears of it. */
export interface CacheReadOptions {
  server: string;
  uri: string;
  /** Start of the turn (or request) this read belongs to. */
  reuseSince: number;
  cache: ResourceCache;
  policy: ServerCachePolicy;
  connection: McpConnection;
  /** The server's notification channel, if it has one now. */
  channel: NotificationChannel | undefined;
  /**
   * Set when the server is not connected (a turn served lazily): a copy the
   * contract serves without a channel is served as it is; a miss calls this
   * (which connects and returns the new channel, if any) before the server is read.
   */
  connect?: (() => Promise<NotificationChannel | undefined>) | undefined;
  /** The channel now watches the URI (acknowledged, or refused). */
  onWatched?: (channel: NotificationChannel) => void;
  /** The read failed at the server: the URI is no longer watched. */
  onUnwatched?: () => void;
  /**
   * Checks every copy before it is served (a skill's file: skill-integrity.ts).
   * A server's copy that fails is never stored; a cached one that fails is
   * dropped and read again from the server, once.
   */
  verify?: ((contents: StoredContents[]) => Promise<void>) | undefined;
  /** Documents in what the server sends are converted to text before the copy is stored (documents/). */
  documents?: DocumentReading | undefined;
}

/**
 * One resource read through the cache (memory → KV → server) under the
 * freshness contract (cache/policy.ts). The URI is watched before the server
 * is read — an update landing between our read and our subscription would
 * never be heard of — while memory and KV are looked up, so only a URI's
 * first read pays the watch's round trip. Not connected (`options.connect`):
 * nothing is watched until a miss connects.
 */
export async function readThroughCache(options: CacheReadOptions): Promise<ResourceRead> {
  if (!options.verify) return readOnce(options);
  const read = await readOnce(options);
  try {
    await options.verify(read.contents);
    return read;
  } catch (error) {
    // A copy from memory or KV that fails: dropped (an invalidation, so no older copy is served either), then the server.
    if (read.cache === 'miss') throw error;
    options.cache.invalidate({ server: options.server, uri: options.uri });
    const again = await readOnce(options);
    await options.verify(again.contents);
    return again;
  }
}

async function readOnce(options: CacheReadOptions): Promise<ResourceRead> {
  const { server, uri, reuseSince, cache, policy } = options;
  let channel = options.channel;
  const watch = (on: NotificationChannel) => on.watch(uri).then(() => options.onWatched?.(on));
  const watched = channel ? watch(channel) : Promise.resolve();
  const ready = watched.catch(() => {}); // a server that cannot be reached fails the read itself, below
  const ref = { server, uri };
  const { entry, source } = await cache.read(
    ref,
    {
      kvScopes: kvScopesToTry(cache.knownScope(ref), policy),
      ready,
      // Coverage is our channel's, by our clock: only a copy we stamped can be ordered against it.
      servable: (copy) =>
        isServable(
          copy,
          { now: Date.now(), coveredSince: cache.isOwn(copy) ? channel?.coveredSince(uri) : undefined, reuseSince },
          policy,
        ),
    },
    async () => {
      await watched;
      if (options.connect) {
        channel = await options.connect();
        if (channel) await watch(channel);
      }
      try {
        const loaded = await load(options);
        // Checked before the cache stores it: a copy that fails never reaches memory or KV.
        await options.verify?.(loaded.contents);
        return loaded;
      } catch (error) {
        // Nothing of it is cached: it must not stay subscribed, holding a slot and drawing notifications.
        channel?.unwatch(uri);
        options.onUnwatched?.();
        throw error;
      }
    },
  );
  const since = cache.isOwn(entry) ? channel?.coveredSince(uri) : undefined;
  const covered = since !== undefined && entry.fetchedAt >= since;
  return {
    server,
    uri,
    cache: source,
    fetchedAt: entry.fetchedAt,
    ...(entry.hint ? { hint: entry.hint } : {}),
    freshness: { notifications: covered, ttlMs: reuseWindowMs(entry.hint, covered, policy) },
    contents: entry.contents,
  };
}

/**
 * `resources/read` from the server: its contents (documents in them as their text, so that memory and KV keep the
 * text and a document is converted once per version), its hint, and where in KV the copy may go.
 */
async function load({ server, uri, connection, policy, documents }: CacheReadOptions) {
  const result = await readFromServer({ server, uri, connection });
  const hint = hintOf(result as { ttlMs?: unknown; cacheScope?: unknown }, connection.era ?? 'legacy');
  const stored = toStoredContents(result.contents);
  const contents = documents ? await convertDocuments(stored, documents) : stored;
  return { contents, ...(hint ? { hint } : {}), kvScope: kvScopeFor(hint, policy) };
}

/**
 * One `resources/read`, as the server answers it: nothing cached, nothing converted. A miss above; also a document's
 * own bytes when a page image is cut from them (prompt/scanned-page.ts), which the cache (holding the text) lacks.
 */
export async function readFromServer({
  server,
  uri,
  connection,
}: Pick<CacheReadOptions, 'server' | 'uri' | 'connection'>): Promise<ReadResourceResult> {
  try {
    return await connection.call((client, options) => client.readResource({ uri }, options), {
      method: 'resources/read',
    });
  } catch (error) {
    if (isResourceNotFound(error))
      throw new ApiError(
        404,
        'resource_not_found',
        `MCP server "${server}" has no resource ${uri}: ${describeUpstreamError(error)}`,
      );
    throw upstreamError(server, error);
  }
}
