import { DurableObject } from 'cloudflare:workers';

/** One sliding window to take a unit from: its key (a tenant, an end user), its limit, its length. */
export interface Window {
  key: string;
  limit: number;
  windowMs: number;
  /** Who is limited, for the 429's message ("this user", "this tenant"). */
  who: string;
}

/**
 * Sliding-window rate limits, one Durable Object per tenant holding the
 * windows of the tenant and of its end users: every decision for a key is
 * made in one place (concurrent requests from many isolates count
 * correctly), and a turn's user and tenant limits are checked together in
 * one call — all or nothing, so a refusal never uses up a slot. Counts are in
 * memory: a restart forgets the current window (documented: limits protect
 * against abuse; they are not billing).
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly hits = new Map<string, number[]>();

  /** Takes one unit from every window if all allow it; otherwise takes none and names the first that refused. */
  async take(
    windows: Window[],
  ): Promise<
    { allowed: true } | { allowed: false; who: string; limit: number; windowMs: number; retryAfterMs: number }
  > {
    const now = Date.now();
    const current = windows.map((window) => this.current(window.key, now - window.windowMs));
    const refused = windows.findIndex((window, i) => current[i]!.length >= window.limit);
    if (refused >= 0) {
      const window = windows[refused]!;
      return {
        allowed: false,
        who: window.who,
        limit: window.limit,
        windowMs: window.windowMs,
        retryAfterMs: current[refused]![0]! + window.windowMs - now,
      };
    }
    windows.forEach((window, i) => {
      this.hits.set(window.key, [...current[i]!, now]);
    });
    return { allowed: true };
  }

  /** The key's hits since `since`; a key with none left is forgotten (memory stays with the active users). */
  private current(key: string, since: number): number[] {
    const hits = (this.hits.get(key) ?? []).filter((at) => at > since);
    if (hits.length) this.hits.set(key, hits);
    else this.hits.delete(key);
    return hits;
  }
}
