/*
 * What each model's tokens cost and how its provider caches a prompt: the one source of prices, for the cost planner
 * (prompt/cost-planner.ts) and the cost benchmark (bench/lib/pricing.mjs imports this file). Data, dated, each card
 * with where its figures come from. Compiled 2026-12-05 from the providers' own pages as stored copies show them (no
 * live page could be fetched here; where the copies disagree or a figure came only from a secondary source, the card
 * says so in `note`). Re-check against the live pages before billing anyone with them.
 *
 * USD per million tokens. Anthropic: a 5-minute cache write costs 1.25× input and a 1-hour one 2×; reads 0.1× (0.05×
 * on Opus 5.5 and Sonnet 5.5). OpenAI: reads 0.25× (gpt-4.1) or 0.1× (gpt-5 on; 0.05× on gpt-6.1); writes are free
 * before the GPT-5.6 family and 1.25× (30-minute TTL) from it on, 2.5× for the 12-hour TTL where it is offered.
 */

export type CacheStyle =
  /** Anthropic: the request marks where cached prefixes end (`cache_control`), 5-minute or 1-hour entries. */
  | 'breakpoints'
  /** OpenAI before GPT-5.6: prefixes cached by themselves, writes free; `prompt_cache_key` routes a conversation. */
  | 'automatic'
  /** OpenAI from GPT-5.6: an implicit breakpoint at the end (or explicit ones), writes billed, a 30-minute or 12-hour TTL. */
  | 'billed-writes';

export interface PriceCard {
  /** The model id as the provider names it. */
  model: string;
  provider: 'anthropic' | 'openai';
  label: string;
  input: number;
  output: number;
  cacheRead: number;
  /** A write with the short lifetime (Anthropic 5 min, OpenAI 30 min); absent: writes are free. */
  cacheWrite?: number | undefined;
  /** A write with the long lifetime (Anthropic 1 h, OpenAI 12 h), where the model offers it. */
  cacheWriteLong?: number | undefined;
  /** Lifetimes of a cache entry from its last use. */
  shortTtlMs: number;
  longTtlMs?: number | undefined;
  /** Below this many tokens a prefix is not cached (and costs nothing extra). */
  minCacheable: number;
  contextTokens: number;
  cacheStyle: CacheStyle;
  /** Where the figures come from, and the date of the copy read. */
  source: string;
  /** What is uncertain about this card. */
  note?: string | undefined;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const ANTHROPIC_PRICING = 'platform.claude.com pricing and model pages';
const OPENAI_PRICING = 'developers.openai.com pricing and model pages';

/** A Claude card from its input and output prices: writes 1.25× (5 min) and 2× (1 h), reads `readShare` of input. */
function claude(
  model: string,
  label: string,
  input: number,
  output: number,
  minCacheable: number,
  source: string,
  extra: Partial<PriceCard> = {},
  readShare = 0.1,
): PriceCard {
  return {
    model,
    provider: 'anthropic',
    label,
    input,
    output,
    cacheRead: round(input * readShare),
    cacheWrite: round(input * 1.25),
    cacheWriteLong: round(input * 2),
    shortTtlMs: 5 * MINUTE,
    longTtlMs: HOUR,
    minCacheable,
    contextTokens: 200_000,
    cacheStyle: 'breakpoints',
    source,
    ...extra,
  };
}

/** An OpenAI card of the GPT-5.6 family on: writes 1.25× (30 min) and, where listed, 2.5× (12 h). */
function billed(
  model: string,
  label: string,
  input: number,
  output: number,
  cacheRead: number,
  source: string,
  extra: Partial<PriceCard> = {},
): PriceCard {
  return {
    model,
    provider: 'openai',
    label,
    input,
    output,
    cacheRead,
    cacheWrite: round(input * 1.25),
    shortTtlMs: 30 * MINUTE,
    minCacheable: 1024,
    contextTokens: 1_050_000,
    cacheStyle: 'billed-writes',
    source,
    ...extra,
  };
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

export const PRICE_CARDS: readonly PriceCard[] = [
  // ---- Anthropic, current (5.x) ----
  claude(
    'claude-sonnet-5-5',
    'Claude Sonnet 5.5',
    2,
    10,
    512,
    `${ANTHROPIC_PRICING} (copies of 2026-10-08)`,
    {
      note: 'cache reads 0.05× per the English model page and the pricing page quoted 2026-10-08 (a zh-CN copy says $0.20)',
    },
    0.05,
  ),
  claude('claude-opus-5-5', 'Claude Opus 5.5', 4, 20, 512, `${ANTHROPIC_PRICING} (copies of 2026-10-08)`, {}, 0.05),
  claude('claude-haiku-5-5', 'Claude Haiku 5.5', 0.1, 0.5, 512, `${ANTHROPIC_PRICING} (copy of 2026-10-08)`, {
    note: 'prompts over 100,000 tokens are billed 5× (whole request); the planner keeps prompts far below that',
  }),
  claude('claude-sonnet-5', 'Claude Sonnet 5', 2, 10, 1024, `${ANTHROPIC_PRICING} (zh-CN model page)`),
  claude('claude-opus-5', 'Claude Opus 5', 5, 25, 512, `${ANTHROPIC_PRICING} (model pages)`),
  // ---- Anthropic, earlier ----
  claude('claude-opus-4-8', 'Claude Opus 4.8', 5, 25, 1024, ANTHROPIC_PRICING),
  claude('claude-opus-4-7', 'Claude Opus 4.7', 5, 25, 2048, ANTHROPIC_PRICING),
  claude('claude-opus-4-6', 'Claude Opus 4.6', 5, 25, 4096, ANTHROPIC_PRICING),
  claude('claude-opus-4-5', 'Claude Opus 4.5', 5, 25, 4096, ANTHROPIC_PRICING),
  claude('claude-sonnet-4-6', 'Claude Sonnet 4.6', 3, 15, 1024, ANTHROPIC_PRICING),
  claude('claude-sonnet-4-5', 'Claude Sonnet 4.5', 3, 15, 1024, `${ANTHROPIC_PRICING} (copy of 2026-05-04)`, {
    note: 'from an older pricing page; whether it is still listed is not verified',
  }),
  claude('claude-haiku-4-5', 'Claude Haiku 4.5', 1, 5, 4096, `${ANTHROPIC_PRICING} (copy of 2026-05-04)`),
  claude('claude-opus-4-1', 'Claude Opus 4.1', 15, 75, 1024, ANTHROPIC_PRICING),
  // ---- OpenAI, current (GPT-5.6 on: billed writes) ----
  billed('gpt-6.1-sol', 'gpt-6.1-sol', 2, 10, 0.1, `${OPENAI_PRICING} (pricing table quoted 2026-10-01)`),
  billed('gpt-6.1-terra', 'gpt-6.1-terra', 1, 5, 0.05, `${OPENAI_PRICING} (model page)`, {
    cacheWriteLong: 2.5,
    longTtlMs: 12 * HOUR,
  }),
  billed('gpt-6-sol', 'gpt-6-sol', 2, 10, 0.2, `${OPENAI_PRICING} (model page)`),
  billed('gpt-6-luna', 'gpt-6-luna', 0.1, 0.5, 0.01, `${OPENAI_PRICING} (model page)`),
  billed('gpt-6-astra', 'gpt-6-astra', 10, 50, 1, `${OPENAI_PRICING} (pricing table copy)`),
  billed('gpt-5.6-sol', 'gpt-5.6 (sol)', 5, 30, 0.5, `${OPENAI_PRICING} (model page)`, {
    note: 'list price; a promotion ($4 in, $20 out) ran at least through 2026-11-21; gpt-5.6 is an alias of gpt-5.6-sol',
  }),
  billed('gpt-5.6-terra', 'gpt-5.6-terra', 2, 12, 0.2, `${OPENAI_PRICING} (pricing table copy)`),
  billed('gpt-5.6-luna', 'gpt-5.6-luna', 0.2, 1.2, 0.02, `${OPENAI_PRICING} (model page)`),
  // ---- OpenAI, earlier (automatic caching, free writes) ----
  {
    model: 'gpt-5',
    provider: 'openai',
    label: 'gpt-5',
    input: 1.25,
    output: 10,
    cacheRead: 0.125,
    shortTtlMs: 10 * MINUTE,
    minCacheable: 1024,
    contextTokens: 400_000,
    cacheStyle: 'automatic',
    source: `${OPENAI_PRICING} (copy of 2026-08-15)`,
  },
  {
    model: 'gpt-4.1',
    provider: 'openai',
    label: 'gpt-4.1',
    input: 2,
    output: 8,
    cacheRead: 0.5,
    shortTtlMs: 10 * MINUTE,
    minCacheable: 1024,
    contextTokens: 1_047_576,
    cacheStyle: 'automatic',
    source: `${OPENAI_PRICING} (copy of 2026-08-15)`,
  },
];

/** Other names of a card's model (a provider's alias, a dated id). */
const ALIASES: Record<string, string> = {
  'gpt-5.6': 'gpt-5.6-sol',
  'claude-sonnet-4-5-20250929': 'claude-sonnet-4-5',
  'claude-haiku-4-5-20251001': 'claude-haiku-4-5',
  'claude-opus-4-5-20251101': 'claude-opus-4-5',
  'claude-opus-4-1-20250805': 'claude-opus-4-1',
};

/**
 * The card of `MODEL` (`anthropic:claude-sonnet-5-5`, `openai:gpt-6.1-sol`); undefined for a model we have no prices
 * for (the planner then keeps everything on demand and asks the provider for nothing special) and for the models whose
 * price is not ours to know (`offline`, `workers-ai:…`, `openai-compatible:…`).
 */
export function priceCardOf(spec: string): PriceCard | undefined {
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon);
  const id = spec.slice(colon + 1);
  if (provider !== 'anthropic' && provider !== 'openai') return undefined;
  const model = ALIASES[id] ?? id;
  return PRICE_CARDS.find((card) => card.model === model && card.provider === provider);
}

/**
 * USD of one model request at `card`: uncached input at the input price, cache reads at theirs, cache writes at the
 * write price of their lifetime (input where writes are free of surcharge), output at the output price. What metering
 * (usage/meter.ts) charges; the same figures the cost planner plans with.
 */
export function usdOf(
  usage: {
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    /** Of the cache writes, those with the long lifetime (Anthropic's 1 hour), where the provider says so. */
    cacheWriteLongTokens?: number | undefined;
    outputTokens: number;
  },
  card: PriceCard,
): number {
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const long = Math.min(usage.cacheWriteLongTokens ?? 0, usage.cacheWriteTokens);
  const short = usage.cacheWriteTokens - long;
  const shortPrice = card.cacheWrite ?? card.input;
  return (
    (uncached * card.input +
      usage.cacheReadTokens * card.cacheRead +
      short * shortPrice +
      long * (card.cacheWriteLong ?? shortPrice) +
      usage.outputTokens * card.output) /
    1e6
  );
}

/**
 * One program run (`run_code`) on Cloudflare: each `LOADER.load()` is a Dynamic Worker of its own, billed per load past
 * the plan's included 1,000 a month, plus one request and its CPU time (start-up included) at Workers Standard rates.
 * The cost planner weighs it against the reads a program saves (prompt/cost-planner.ts `programWorthIt`); usage counts
 * runs at it.
 */
export const DYNAMIC_WORKER_RUN = {
  /** USD per Dynamic Worker created (a `load()` is one per invocation). */
  load: 0.002,
  /** USD per request (one RPC call into the Dynamic Worker). */
  request: 0.3 / 1e6,
  /** USD per CPU millisecond (start-up and execution). */
  cpuMs: 0.02 / 1e6,
  source:
    'developers.cloudflare.com/dynamic-workers/pricing, read 2026-12-07: 1,000 Dynamic Workers a month included, then $0.002 each (".load(code) used: 1 Dynamic Worker per invocation"); requests $0.30/million, CPU $0.02/million ms (Workers Standard)',
} as const;

/** USD of one program run that took `cpuMs` (an upper bound: its wall time, where the CPU time is not known). */
export const usdOfRun = (cpuMs: number): number =>
  DYNAMIC_WORKER_RUN.load + DYNAMIC_WORKER_RUN.request + cpuMs * DYNAMIC_WORKER_RUN.cpuMs;
