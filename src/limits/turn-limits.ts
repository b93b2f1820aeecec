import type { AppConfig } from '../config';
import { ApiError } from '../errors';

/**
 * Turns per window per end user and per tenant (each tenant may set its
 * own), checked in one call to the tenant's limiter. Past either: 429 with
 * Retry-After, and nothing is used up — a user refused because the tenant is
 * at its limit keeps their own slot. Only a new turn counts (a message, a
 * prompt, a regeneration); answering an approval or a server's question
 * continues a turn already counted.
 */
export async function takeTurn(env: Pick<Env, 'RATE_LIMITER'>, config: AppConfig, owner: { tenant: string; user: string }): Promise<void> {
  const tenant = config.tenants?.find((t) => t.id === owner.tenant);
  const windowMs = tenant?.limits?.windowMs ?? 60_000;
  const result = await limiterOf(env, owner.tenant).take([
    { key: `user:${owner.user}`, limit: tenant?.limits?.turnsPerUser ?? config.settings.TURNS_PER_MINUTE_PER_USER, windowMs, who: 'this user' },
    { key: 'tenant', limit: tenant?.limits?.turns ?? config.settings.TURNS_PER_MINUTE_PER_TENANT, windowMs, who: 'this tenant' },
  ]);
  if (result.allowed) return;
  const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
  throw new ApiError(429, 'rate_limited', `Too many turns for ${result.who}: at most ${result.limit} per ${result.windowMs / 1000} s; retry in ${seconds} s`, {
    'Retry-After': String(seconds),
  });
}

/** The tenant's limiter: its own windows and its end users'. */
export const limiterOf = (env: Pick<Env, 'RATE_LIMITER'>, tenant: string) => env.RATE_LIMITER.getByName(`tenant:${tenant}`);
