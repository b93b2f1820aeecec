import { DurableObject } from 'cloudflare:workers';

/**
 * A sliding-window rate limiter, one Durable Object per key (a tenant, or a
 * tenant's end user): every decision for a key is made in one place, so
 * concurrent requests from many isolates count correctly. Counts are in
 * memory: a restart of the object forgets the current window (documented:
 * limits are protection against abuse, not billing).
 */
export class RateLimiter extends DurableObject<Env> {
  private readonly hits: number[] = [];

  /** Takes one unit if the window allows it; otherwise says when to retry. */
  async take(limit: number, windowMs: number): Promise<{ allowed: boolean; retryAfterMs: number }> {
    const now = Date.now();
    while (this.hits.length && this.hits[0]! <= now - windowMs) this.hits.shift();
    if (this.hits.length >= limit) return { allowed: false, retryAfterMs: this.hits[0]! + windowMs - now };
    this.hits.push(now);
    return { allowed: true, retryAfterMs: 0 };
  }

  /** Returns the latest unit taken (a later check of the same request refused it: it must not count). */
  async giveBack(): Promise<void> {
    this.hits.pop();
  }
}
