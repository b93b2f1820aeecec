import type { McpServerConfig, Settings } from '../config';
import type { CacheHint, CachedResource, KvScope } from './types';

/**
 * The freshness contract, in one place (docs/ARCHITECTURE.md, "Freshness
 * contract"). A cached copy (memory or KV) is served only if it is younger
 * than `maxAgeMs` and one of these holds:
 *
 * - the server sent a hint: it is within the hint's `ttlMs` (capped by
 *   `maxAgeMs`); `ttlMs: 0` (stale at once) still lets the reads of one turn
 *   share one fetch (`reuseSince`); with `trustNotifications`, a copy the
 *   notification channel covers is served past its `ttlMs`;
 * - the server sent no hint (2025): a live, acknowledged notification
 *   channel covers the URI and has covered it since before the copy was
 *   fetched (so no change between the fetch and now went unheard), or else
 *   the copy is within `fallbackTtlMs`.
 *
 * Notifications invalidate copies in every case (ResourceCache.invalidate).
 */
export interface ServerCachePolicy {
  /** `RESOURCE_TTL_MS`, or the server's `ttlMs` from config. */
  fallbackTtlMs: number;
  /** `CACHE_MAX_AGE_MS`: no copy older than this, ever; caps a server's `ttlMs`. */
  maxAgeMs: number;
  /** The operator trusts this server to notify every change (config `trustNotifications`). */
  trustNotifications: boolean;
  /** The server's config says every copy is per end user (config `cacheScope: "user"`). */
  perUser: boolean;
  /** The server's config says copies never leave the conversation (`cacheScope: "conversation"`): memory only, no KV. */
  perConversation?: boolean;
}

/** One server's policy, from its config and the settings. */
export function cachePolicyFor(
  config: Pick<McpServerConfig, 'ttlMs' | 'trustNotifications' | 'cacheScope' | 'auth'>,
  settings: Pick<Settings, 'RESOURCE_TTL_MS' | 'CACHE_MAX_AGE_MS'>,
): ServerCachePolicy {
  return {
    fallbackTtlMs: config.ttlMs ?? settings.RESOURCE_TTL_MS,
    maxAgeMs: settings.CACHE_MAX_AGE_MS,
    trustNotifications: config.trustNotifications,
    // What a server shows one user's account is that user's: never shared in the tenant.
    perUser: config.cacheScope !== 'shared' || config.auth.type === 'oauth',
    perConversation: config.cacheScope === 'conversation',
  };
}

/** What is known at the moment of a read. */
export interface ReadMoment {
  now: number;
  /** Since when a live notification channel has covered this URI; undefined when none does. */
  coveredSince: number | undefined;
  /** Start of the turn (or API request) this read belongs to. */
  reuseSince: number;
}

export function isServable(
  entry: Pick<CachedResource, 'fetchedAt' | 'hint'>,
  at: ReadMoment,
  policy: ServerCachePolicy,
): boolean {
  const age = at.now - entry.fetchedAt;
  if (age >= policy.maxAgeMs) return false;
  const covered = at.coveredSince !== undefined && entry.fetchedAt >= at.coveredSince;
  const window = reuseWindowMs(entry.hint, covered, policy);
  // Stale at once: only the reads of the turn that fetched it may share it.
  if (window <= 0) return entry.fetchedAt >= at.reuseSince;
  return age < window;
}

/**
 * How long after its fetch a copy may be served (before a notification
 * says otherwise): what `isServable` applies, and what the read API reports.
 * 0 means "stale at once" (shared only within the turn that fetched it).
 */
export function reuseWindowMs(hint: CacheHint | undefined, covered: boolean, policy: ServerCachePolicy): number {
  if (hint) return covered && policy.trustNotifications ? policy.maxAgeMs : Math.min(hint.ttlMs, policy.maxAgeMs);
  return covered ? policy.maxAgeMs : Math.min(policy.fallbackTtlMs, policy.maxAgeMs);
}

/**
 * The KV key space a result goes to: a `private` result only ever under the
 * end user's key, a `public` one under the tenant's, a hint-less (2025) one
 * as the server's config says. `null`: not to be shared — a copy that is
 * stale at once serves the turn that fetched it, not another conversation
 * (even with `trustNotifications`, which vouches for this conversation's
 * channel, not for another's).
 */
export function kvScopeFor(hint: CacheHint | undefined, policy: ServerCachePolicy): KvScope | null {
  if ((hint && hint.ttlMs <= 0) || policy.perConversation) return null;
  if (policy.perUser || hint?.cacheScope === 'private') return 'user';
  return 'shared';
}

/** Where to look in KV before a read, most specific first: a private copy may exist only under the user's key. */
export function kvScopesToTry(known: KvScope | undefined, policy: ServerCachePolicy): KvScope[] {
  if (policy.perConversation) return [];
  if (policy.perUser) return ['user'];
  return known ? [known] : ['user', 'shared'];
}

/**
 * A server's cache hint. Every 2026 result has one: an absent or negative
 * `ttlMs` means 0 (the spec), an absent scope means private (the safe
 * reading). A 2025 result has one only if the server sent the fields anyway.
 */
export function hintOf(
  result: { ttlMs?: unknown; cacheScope?: unknown },
  era: 'modern' | 'legacy',
): CacheHint | undefined {
  if (era === 'legacy' && result.ttlMs === undefined && result.cacheScope === undefined) return undefined;
  const ttlMs =
    typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) && result.ttlMs > 0 ? result.ttlMs : 0;
  return { ttlMs, cacheScope: result.cacheScope === 'public' ? 'public' : 'private' };
}
