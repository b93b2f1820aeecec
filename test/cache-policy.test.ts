import { describe, expect, it } from 'vitest';
import {
  hintOf,
  isServable,
  kvScopeFor,
  kvScopesToTry,
  reuseWindowMs,
  type ServerCachePolicy,
} from '../src/cache/policy';

// The freshness contract as a table (docs/ARCHITECTURE.md, "Freshness contract"):
// pure decisions, so every row can be checked without a server.
const policy: ServerCachePolicy = {
  fallbackTtlMs: 60_000,
  maxAgeMs: 300_000,
  trustNotifications: false,
  perUser: false,
};
const now = 1_000_000_000;
const at = (coveredSince: number | undefined, reuseSince = now) => ({ now, coveredSince, reuseSince });
const copy = (ageMs: number, hint?: { ttlMs: number; cacheScope: 'public' | 'private' }) => ({
  fetchedAt: now - ageMs,
  ...(hint ? { hint } : {}),
});

describe('freshness contract', () => {
  it('2025 (no hint), covered by a live channel since before the fetch: served up to CACHE_MAX_AGE_MS, never past it', () => {
    expect(isServable(copy(200_000), at(now - 250_000), policy)).toBe(true);
    expect(isServable(copy(300_000), at(now - 400_000), policy)).toBe(false);
  });

  it('2025, channel covering only since after the fetch (a change in between went unheard): the TTL applies', () => {
    expect(isServable(copy(30_000), at(now - 10_000), policy)).toBe(true);
    expect(isServable(copy(90_000), at(now - 10_000), policy)).toBe(false);
  });

  it("2025, no channel: RESOURCE_TTL_MS (or the server's configured ttlMs)", () => {
    expect(isServable(copy(59_000), at(undefined), policy)).toBe(true);
    expect(isServable(copy(61_000), at(undefined), policy)).toBe(false);
    expect(isServable(copy(5_000), at(undefined), { ...policy, fallbackTtlMs: 1_500 })).toBe(false);
  });

  it('2026 hint: its ttlMs bounds reuse even when covered (capped by CACHE_MAX_AGE_MS)', () => {
    const hint = { ttlMs: 30_000, cacheScope: 'public' as const };
    expect(isServable(copy(29_000, hint), at(now - 60_000), policy)).toBe(true);
    expect(isServable(copy(31_000, hint), at(now - 60_000), policy)).toBe(false);
    expect(reuseWindowMs({ ttlMs: 86_400_000, cacheScope: 'public' }, true, policy)).toBe(300_000);
  });

  it('2026 ttlMs 0: shared by the reads of the turn that fetched it, never by a later one', () => {
    const stale = { ttlMs: 0, cacheScope: 'private' as const };
    expect(isServable(copy(2_000, stale), at(now - 60_000, now - 5_000), policy)).toBe(true);
    expect(isServable(copy(2_000, stale), at(now - 60_000, now - 1_000), policy)).toBe(false);
  });

  it('trustNotifications: a covered copy outlives its ttlMs (not CACHE_MAX_AGE_MS); an uncovered one does not', () => {
    const trusting = { ...policy, trustNotifications: true };
    const stale = { ttlMs: 0, cacheScope: 'public' as const };
    expect(isServable(copy(120_000, stale), at(now - 200_000), trusting)).toBe(true);
    expect(isServable(copy(120_000, stale), at(undefined), trusting)).toBe(false);
    expect(isServable(copy(300_000, stale), at(now - 400_000), trusting)).toBe(false);
  });
});

describe('cache scopes', () => {
  it("private results go under the end user's key, public ones under the tenant's; stale-at-once ones nowhere", () => {
    expect(kvScopeFor({ ttlMs: 60_000, cacheScope: 'private' }, policy)).toBe('user');
    expect(kvScopeFor({ ttlMs: 60_000, cacheScope: 'public' }, policy)).toBe('shared');
    expect(kvScopeFor(undefined, policy)).toBe('shared');
    expect(kvScopeFor(undefined, { ...policy, perUser: true })).toBe('user');
    expect(kvScopeFor({ ttlMs: 0, cacheScope: 'public' }, policy)).toBeNull();
  });

  it("before the first read, both key spaces are looked in (a private copy may exist only under the user's)", () => {
    expect(kvScopesToTry(undefined, policy)).toEqual(['user', 'shared']);
    expect(kvScopesToTry('shared', policy)).toEqual(['shared']);
    expect(kvScopesToTry(undefined, { ...policy, perUser: true })).toEqual(['user']);
  });

  it('reads hints as the spec says: absent or negative ttlMs is 0, an absent scope is private; 2025 results have none unless sent', () => {
    expect(hintOf({}, 'modern')).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(hintOf({ ttlMs: -5, cacheScope: 'public' }, 'modern')).toEqual({ ttlMs: 0, cacheScope: 'public' });
    expect(hintOf({}, 'legacy')).toBeUndefined();
    expect(hintOf({ ttlMs: 60_000, cacheScope: 'private' }, 'legacy')).toEqual({
      ttlMs: 60_000,
      cacheScope: 'private',
    });
  });
});
