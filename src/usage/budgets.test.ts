import { describe, expect, it } from 'vitest';
import { budgetError, exceeded, exceededText } from './budgets';

const NOW = Date.parse('2026-12-05T15:00:00Z');
const spent = { tenantUsdMonth: 10, tenantTokensDay: 5_000, userUsdDay: 2 };

describe('budgets', () => {
  it('nothing is used up under every limit, or with none', () => {
    expect(exceeded({}, spent, NOW)).toBeUndefined();
    expect(exceeded({ usdPerMonth: 10.01, tokensPerDay: 5_001, userUsdPerDay: 2.5 }, spent, NOW)).toBeUndefined();
  });

  it('the user’s day first, then the tenant’s day, then its month; each with its reset', () => {
    expect(exceeded({ usdPerMonth: 5, userUsdPerDay: 1 }, spent, NOW)).toEqual({
      scope: 'user',
      unit: 'usd',
      period: 'day',
      limit: 1,
      spent: 2,
      resetsAt: '2026-12-06T00:00:00.000Z',
    });
    expect(exceeded({ usdPerMonth: 5 }, spent, NOW)?.resetsAt).toBe('2027-01-01T00:00:00.000Z');
    expect(exceeded({ tokensPerDay: 5_000 }, spent, NOW)?.unit).toBe('tokens');
  });

  it('says it in a sentence, and as a 429 with the fields and Retry-After until the reset', () => {
    const month = exceeded({ usdPerMonth: 5 }, spent, NOW)!;
    expect(exceededText(month)).toBe(
      "This workspace's budget of $5.00 a month is used up ($10.00 spent); it resets on 2027-01-01 00:00 UTC.",
    );
    expect(exceededText(exceeded({ tokensPerDay: 1 }, spent, NOW)!)).toContain('budget of 1 token a day');
    expect(exceededText(exceeded({ userUsdPerDay: 1 }, spent, NOW)!)).toMatch(/^Your budget of \$1\.00 a day/);
    const error = budgetError(month, NOW);
    expect(error.status).toBe(429);
    expect(error.code).toBe('budget_exceeded');
    expect(error.headers['retry-after']).toBe(String(26 * 86_400 + 9 * 3_600)); // Dec 5 15:00 → Jan 1 00:00
    expect(error.toJSON().error).toMatchObject({ code: 'budget_exceeded', budget: { limit: 5, spent: 10 } });
  });
});
