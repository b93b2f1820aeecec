import { describe, expect, it } from 'vitest';
import { priceCardOf, usdOf } from './price-cards';

describe('usdOf', () => {
  it('charges uncached input, cache reads, cache writes and output each at its price (input total includes the cache)', () => {
    const card = priceCardOf('anthropic:claude-sonnet-4-5')!;
    expect([card.input, card.cacheRead, card.cacheWrite, card.output]).toEqual([3, 0.3, 3.75, 15]);
    const usd = usdOf({ inputTokens: 1_000, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 50 }, card);
    expect(usd).toBeCloseTo((100 * 3 + 800 * 0.3 + 100 * 3.75 + 50 * 15) / 1e6, 12);
  });

  it('a model whose cache writes are free charges them as input', () => {
    const card = priceCardOf('openai:gpt-4.1')!;
    expect(card.cacheWrite).toBeUndefined();
    expect(usdOf({ inputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 100, outputTokens: 0 }, card)).toBeCloseTo(
      (100 * card.input) / 1e6,
      12,
    );
  });

  it('1-hour writes, where the provider says which, at the long write price', () => {
    const card = priceCardOf('anthropic:claude-sonnet-4-5')!;
    const usage = { inputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 200, outputTokens: 0 };
    expect(usdOf({ ...usage, cacheWriteLongTokens: 150 }, card)).toBeCloseTo((50 * 3.75 + 150 * 6) / 1e6, 12);
  });
});
