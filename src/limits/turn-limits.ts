import type { AppConfig } from '../config';
import { ApiError } from '../errors';

/**
 * Turns per window per end user and per tenant (each tenant may set its
 * own). Past either: 429 with Retry-After, and nothing is used up — a user
 * refused because the tenant is at its limit keeps their own slot. Only a
 * new turn counts (a message, a prompt, a regeneration); answering an
 * approval or a server's question continues a turn already counted.
 */
export async function takeTurn(env: Pick<Env, 'RATE_LIMITER'>, config: AppConfig, owner: { tenant: string; user: string }): Promise<void> {
  const tenant = config.tenants?.find((t) => t.id === owner.tenant);
  const windowMs = tenant?.limits?.windowMs ?? 60_000;
  const checks: Array<[key: string, limit: number, who: string]> = [
    [`user:${owner.tenant}:${owner.user}`, tenant?.limits?.turnsPerUser ?? config.settings.TURNS_PER_MINUTE_PER_USER, 'this user'],
    [`tenant:${owner.tenant}`, tenant?.limits?.turns ?? config.settings.TURNS_PER_MINUTE_PER_TENANT, 'this tenant'],
  ];
  const taken: string[] = [];
  for (const [key, limit, who] of checks) {
    const { allowed, retryAfterMs } = await env.RATE_LIMITER.getByName(key).take(limit, windowMs);
    if (allowed) taken.push(key);
    else {
      await Promise.all(taken.map((k) => env.RATE_LIMITER.getByName(k).giveBack()));
      const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
      throw new ApiError(429, 'rate_limited', `Too many turns for ${who}: at most ${limit} per ${windowMs / 1000} s; retry in ${seconds} s`, { 'Retry-After': String(seconds) });
    }
  }
}
