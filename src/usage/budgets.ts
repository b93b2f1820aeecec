import type { AppConfig } from '../config';
import { ApiError } from '../errors';
import type { Spent } from './ledger';

/** A tenant's budgets, in force for its turns (each one absent: no budget). */
export interface Budgets {
  /** USD per calendar month (UTC), the whole tenant. */
  usdPerMonth?: number | undefined;
  /** Tokens (input + output) per day (UTC), the whole tenant. */
  tokensPerDay?: number | undefined;
  /** USD per day (UTC), each end user. */
  userUsdPerDay?: number | undefined;
}

/** A tenant's budgets: its own limits, else the deployment's defaults (0 there: none). */
export function budgetsOf(config: AppConfig, tenant: string): Budgets {
  const own = config.tenants?.find((t) => t.id === tenant)?.limits;
  const { BUDGET_USD_PER_MONTH, BUDGET_TOKENS_PER_DAY, BUDGET_USER_USD_PER_DAY } = config.settings;
  const or = (value: number | undefined, fallback: number) => value ?? (fallback > 0 ? fallback : undefined);
  return {
    usdPerMonth: or(own?.usdPerMonth, BUDGET_USD_PER_MONTH),
    tokensPerDay: or(own?.tokensPerDay, BUDGET_TOKENS_PER_DAY),
    userUsdPerDay: or(own?.userUsdPerDay, BUDGET_USER_USD_PER_DAY),
  };
}

export const hasBudgets = (budgets: Budgets) =>
  budgets.usdPerMonth !== undefined || budgets.tokensPerDay !== undefined || budgets.userUsdPerDay !== undefined;

/** A budget that is used up: which, its limit, what was spent, and when it starts again. */
export interface Exceeded {
  scope: 'tenant' | 'user';
  unit: 'usd' | 'tokens';
  period: 'month' | 'day';
  limit: number;
  spent: number;
  /** ISO time (UTC) the period ends. */
  resetsAt: string;
}

/** The first budget `spent` has reached, if any. */
export function exceeded(budgets: Budgets, spent: Spent, now = Date.now()): Exceeded | undefined {
  const checks: Array<Omit<Exceeded, 'resetsAt' | 'limit'> & { limit: number | undefined }> = [
    { scope: 'user', unit: 'usd', period: 'day', limit: budgets.userUsdPerDay, spent: spent.userUsdDay },
    { scope: 'tenant', unit: 'tokens', period: 'day', limit: budgets.tokensPerDay, spent: spent.tenantTokensDay },
    { scope: 'tenant', unit: 'usd', period: 'month', limit: budgets.usdPerMonth, spent: spent.tenantUsdMonth },
  ];
  const hit = checks.find((check) => check.limit !== undefined && check.spent >= check.limit);
  return hit && { ...hit, limit: hit.limit!, resetsAt: periodEnd(hit.period, now) };
}

/** What a person reads: "This workspace's budget of $50.00 a month is used up ($50.12 spent); it resets on 2027-01-01 00:00 UTC." */
export function exceededText(hit: Exceeded): string {
  const amount = (n: number) => {
    if (hit.unit === 'usd') return `$${n.toFixed(2)}`;
    const count = Math.round(n);
    return `${count.toLocaleString('en-US')} ${count === 1 ? 'token' : 'tokens'}`;
  };
  const whose = hit.scope === 'user' ? 'Your' : "This workspace's";
  return `${whose} budget of ${amount(hit.limit)} a ${hit.period} is used up (${amount(hit.spent)} spent); it resets on ${hit.resetsAt.slice(0, 16).replace('T', ' ')} UTC.`;
}

/** 429 `budget_exceeded`: the limit, what was spent and when it resets, in the message and as fields; Retry-After until then. */
export function budgetError(hit: Exceeded, now = Date.now()): ApiError {
  const seconds = Math.max(1, Math.ceil((Date.parse(hit.resetsAt) - now) / 1000));
  return new ApiError(
    429,
    'budget_exceeded',
    exceededText(hit),
    { 'retry-after': String(seconds) },
    { budget: { ...hit } },
  );
}

/** The end of the UTC day or month containing `now`. */
function periodEnd(period: 'month' | 'day', now: number): string {
  const d = new Date(now);
  const end =
    period === 'day'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
      : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return new Date(end).toISOString();
}
