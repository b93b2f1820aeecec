import { describe, expect, it } from 'vitest';
import { priceCardOf, usdOfRun } from '../config/price-cards';
import { type PlannerInput, planContext, programWorthIt } from './cost-planner';

const SONNET_45 = priceCardOf('anthropic:claude-sonnet-4-5')!;
const SONNET_55 = priceCardOf('anthropic:claude-sonnet-5-5')!;
const GPT_41 = priceCardOf('openai:gpt-4.1')!;

const docs = (...sizes: number[]) => sizes.map((chars, i) => ({ server: 'corpus', uri: `doc://${i}`, chars }));

const input = (over: Partial<PlannerInput> = {}): PlannerInput => ({
  resources: docs(2_800, 2_900, 2_600, 2_500),
  baseTokens: 450,
  card: SONNET_45,
  caching: true,
  gapsMs: [],
  settings: { PLANNER_TURNS: 8, INLINE_MAX_TOKENS: 60_000, PROMPT_CACHE_TTL: 'auto' },
  ...over,
});

describe('the cost planner', () => {
  it('inlines a small corpus whole: one cached prefix is cheaper than reading on demand', () => {
    const plan = planContext(input());
    expect(plan.inlined.map((r) => r.uri)).toEqual(['doc://0', 'doc://1', 'doc://2', 'doc://3']);
    expect(plan.estimate!.chosenUsd).toBeLessThan(plan.estimate!.onDemandUsd);
    expect(plan.reason).toMatch(/^inlined all 4 resources: \$0\.\d+ over 8 turns on Claude Sonnet 4\.5/);
  });

  it('keeps a large corpus on demand', () => {
    const plan = planContext(input({ resources: docs(...Array.from({ length: 39 }, () => 12_000)) }));
    expect(plan.inlined).toEqual([]);
    expect(plan.estimate!.chosenUsd).toBeLessThan(plan.estimate!.inlineAllUsd);
    expect(plan.reason).toMatch(/^on demand:/);
  });

  it('in a mixed catalog inlines the small resources and lists the large ones, in catalog order', () => {
    const plan = planContext(input({ resources: docs(60_000, 900, 80_000, 700, 1_100) }));
    expect(plan.inlined.map((r) => r.uri)).toEqual(['doc://1', 'doc://3', 'doc://4']);
    expect(plan.reason).toMatch(/^inlined the 3 smallest of 5 resources/);
  });

  it('never inlines past INLINE_MAX_TOKENS', () => {
    const plan = planContext(
      input({ settings: { PLANNER_TURNS: 8, INLINE_MAX_TOKENS: 1_000, PROMPT_CACHE_TTL: 'auto' } }),
    );
    expect(plan.inlined.length).toBeLessThanOrEqual(1);
  });

  it('a model without a price card: on demand, said so', () => {
    const plan = planContext(input({ card: undefined }));
    expect(plan.inlined).toEqual([]);
    expect(plan.estimate).toBeUndefined();
    expect(plan.reason).toContain('no price card');
  });

  it('the same catalog and card give the same plan, turn after turn (the cached prefix stays)', () => {
    expect(planContext(input({ gapsMs: [20_000] }))).toEqual(planContext(input({ gapsMs: [20_000, 90_000] })));
  });

  it('asks for the long lifetime once a gap between turns outlasted half the short one, where the model has it', () => {
    expect(planContext(input({ gapsMs: [20_000, 90_000] })).ttl).toBe('short');
    expect(planContext(input({ gapsMs: [20_000, 2 * 60_000] })).ttl).toBe('short');
    expect(planContext(input({ gapsMs: [20_000, 4 * 60_000] })).ttl).toBe('long'); // still warm: only new writes cost more
    expect(planContext(input({ gapsMs: [20_000, 8 * 60_000] })).ttl).toBe('long');
    expect(planContext(input({ card: GPT_41, gapsMs: [8 * 60_000] })).ttl).toBe('short'); // no long lifetime to ask for
    expect(planContext(input({ caching: false, gapsMs: [8 * 60_000] })).ttl).toBe('short');
    const forced = { PLANNER_TURNS: 8, INLINE_MAX_TOKENS: 60_000, PROMPT_CACHE_TTL: 'long' as const };
    expect(planContext(input({ settings: forced })).ttl).toBe('long');
  });

  it('weighs the model’s cache rules: Sonnet 5.5 (512-token minimum, reads at 0.05×) reads on demand sooner', () => {
    const fifty = docs(6_200, 6_800, 6_400, 7_000, 6_600, 6_300, 6_900, 6_300);
    expect(planContext(input({ resources: fifty, card: SONNET_55 })).inlined).toEqual([]);
  });
});

describe('whether run_code is worth offering (RUN_CODE=auto)', () => {
  const worth = (longestChars: number | undefined, card = SONNET_55, longOrUnknown = true) =>
    programWorthIt({ longestChars, longOrUnknown, card, runUsd: usdOfRun(1_000), turns: 8 });

  it('a text far longer than a run costs to offer: yes; a short one: no', () => {
    // A run is about $0.002 plus its definition in every request: at Sonnet's input price, some ten thousand characters.
    expect(worth(5_000_000)).toBe(true);
    expect(worth(500_000)).toBe(true);
    expect(worth(2_000)).toBe(false);
  });

  it('a cheaper model needs a longer text before a run pays', () => {
    const haiku = priceCardOf('anthropic:claude-haiku-4-5')!;
    expect(haiku.input).toBeLessThan(SONNET_55.input);
    const threshold = (card: typeof haiku) => {
      let chars = 1_000;
      while (!worth(chars, card)) chars = Math.ceil(chars * 1.05);
      return chars;
    };
    expect(threshold(haiku)).toBeGreaterThan(threshold(SONNET_55));
  });

  it('without a price card (offline, Workers AI) or a known size: when some text may not fit one window', () => {
    expect(programWorthIt({ longestChars: 10, longOrUnknown: true, card: undefined, runUsd: 0.002, turns: 8 })).toBe(
      true,
    );
    expect(programWorthIt({ longestChars: 10, longOrUnknown: false, card: undefined, runUsd: 0.002, turns: 8 })).toBe(
      false,
    );
    expect(worth(undefined, SONNET_55, true)).toBe(true);
    expect(worth(undefined, SONNET_55, false)).toBe(false);
  });
});
