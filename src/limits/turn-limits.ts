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
export async function takeTurn(
  env: Pick<Env, 'RATE_LIMITER'>,
  config: AppConfig,
  owner: { tenant: string; user: string },
): Promise<void> {
  const tenant = config.tenants?.find((t) => t.id === owner.tenant);
  const windowMs = tenant?.limits?.windowMs ?? 60_000;
  const result = await limiterOf(env, owner.tenant).take([
    {
      key: `user:${owner.user}`,
      limit: tenant?.limits?.turnsPerUser ?? config.settings.TURNS_PER_MINUTE_PER_USER,
      windowMs,
      who: 'this user',
    },
    {
      key: 'tenant',
      limit: tenant?.limits?.turns ?? config.settings.TURNS_PER_MINUTE_PER_TENANT,
      windowMs,
      who: 'this tenant',
    },
  ]);
  if (!result.allowed) throw tooMany('turns', result);
}

/**
 * Tool calls of one end user's MCP Apps views per minute (a view is code of
 * its server's choosing: it could call in a loop). Past it: 429 with Retry-After.
 */
export async function takeViewCall(
  env: Pick<Env, 'RATE_LIMITER'>,
  config: AppConfig,
  owner: { tenant: string; user: string },
): Promise<void> {
  const limit = config.settings.VIEW_CALLS_PER_MINUTE_PER_USER;
  const result = await limiterOf(env, owner.tenant).take([
    { key: `views:user:${owner.user}`, limit, windowMs: 60_000, who: 'the views of this user' },
  ]);
  if (!result.allowed) throw tooMany("views' tool calls", result);
}

function tooMany(
  what: string,
  refused: { who: string; limit: number; windowMs: number; retryAfterMs: number },
): ApiError {
  const seconds = Math.max(1, Math.ceil(refused.retryAfterMs / 1000));
  return new ApiError(
    429,
    'rate_limited',
    `Too many ${what} for ${refused.who}: at most ${refused.limit} per ${refused.windowMs / 1000} s; retry in ${seconds} s`,
    {
      'Retry-After': String(seconds),
    },
  );
}

/** The tenant's limiter: its own windows and its end users'. */
export const limiterOf = (env: Pick<Env, 'RATE_LIMITER'>, tenant: string) =>
  env.RATE_LIMITER.getByName(`tenant:${tenant}`);
