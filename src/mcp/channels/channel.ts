import type { CatalogKind } from '../catalog/catalog';

/**
 * How changes of one server reach this conversation: a 2026
 * `subscriptions/listen` stream (listen-channel.ts) or a 2025 session's GET
 * stream plus `resources/subscribe` (legacy-channel.ts). The cache asks it
 * what it covers; a copy is trusted past its TTL only while a live,
 * acknowledged channel has covered its URI since before it was fetched.
 */
export interface NotificationChannel {
  /** Opens the channel: the list kinds, and the URIs followed before (a restart, a new session). */
  open(uris: readonly string[]): Promise<void>;
  /**
   * Makes sure changes of `uri` will be heard, before its first read (an
   * update between our read and our subscription would never be heard of).
   * Resolves once the server acknowledged — or once it is clear it will not
   * (it cannot notify, refused the URI, the channel is full). Rejects only
   * when the server cannot be reached at all.
   */
  watch(uri: string): Promise<void>;
  /**
   * Stops watching `uri` — its read failed, so nothing of it is cached and
   * it must not hold a slot (MAX_SUBSCRIBED_URIS) nor keep the server
   * notifying. Best effort, in the background; the next read watches again.
   */
  unwatch(uri: string): void;
  /** Since when a live, acknowledged channel has covered `uri`; undefined when none does. */
  coveredSince(uri: string): number | undefined;
  /** Since when a live channel delivers this catalog's `list_changed`; undefined when none does. */
  listChangesSince(kind: CatalogKind): number | undefined;
  /** The URIs this channel covers (they are asked for again when it is re-opened). */
  readonly uris: readonly string[];
  /** The channel failed to open and should be replaced (tried again on a later use). */
  broken(now: number): boolean;
  /** Ends the channel (listen streams closed; a 2025 session is ended by its connection). */
  close(): Promise<void>;
}
