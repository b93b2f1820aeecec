import type { AppConfig } from '../config';
import { ApiError } from '../errors';
import { liveConversationsOf } from './live-conversations';
import { limiterOf } from './turn-limits';

/** Conversations one end user may create per minute (`CONVERSATIONS_PER_MINUTE_PER_USER`, or the tenant's); past it, 429 with Retry-After. */
export async function takeConversation(
  env: Pick<Env, 'RATE_LIMITER'>,
  config: AppConfig,
  owner: { tenant: string; user: string },
): Promise<void> {
  const limit = tenantOf(config, owner).conversationsPerUser ?? config.settings.CONVERSATIONS_PER_MINUTE_PER_USER;
  const result = await limiterOf(env, owner.tenant).take([
    { key: `conversations:${owner.user}`, limit, windowMs: 60_000, who: 'this user' },
  ]);
  if (result.allowed) return;
  const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
  throw new ApiError(
    429,
    'rate_limited',
    `Too many new conversations for this user: at most ${limit} per minute; retry in ${seconds} s`,
    {
      'Retry-After': String(seconds),
    },
  );
}

const tenantOf = (config: AppConfig, owner: { tenant: string }) =>
  config.tenants?.find((t) => t.id === owner.tenant)?.limits ?? {};

/** Seconds a client is told to wait when every live conversation of the user is busy. */
const BUSY_RETRY_SECONDS = 5;

/**
 * Makes room for one more conversation of this end user to hold live MCP
 * sessions (`LIVE_CONVERSATIONS_PER_USER`, or the tenant's). Past the limit, the others are
 * asked to release theirs, least recently used first (`yieldSessions`: a
 * conversation in the middle of a turn refuses); when none can, 429.
 */
export async function leaseLiveSessions(
  env: Pick<Env, 'LIVE_CONVERSATIONS'>,
  config: AppConfig,
  owner: { tenant: string; user: string },
  id: string,
  yieldSessions: (other: string) => Promise<boolean>,
): Promise<void> {
  const limit = tenantOf(config, owner).liveConversationsPerUser ?? config.settings.LIVE_CONVERSATIONS_PER_USER;
  const registry = liveConversationsOf(env, owner);
  // Each other conversation is asked at most once, least recently used first; one that is gone leaves the count.
  const asked = new Set<string>();
  for (;;) {
    const lease = await registry.acquire(id, limit);
    if (lease.ok) return;
    const next = lease.others.find((other) => other !== id && !asked.has(other));
    if (next === undefined) break;
    asked.add(next);
    await yieldSessions(next);
  }
  throw new ApiError(
    429,
    'too_many_live_conversations',
    `This user already has ${limit} conversations connected to MCP servers and all are busy; retry in ${BUSY_RETRY_SECONDS} s`,
    { 'Retry-After': String(BUSY_RETRY_SECONDS) },
  );
}
