import type { ContextPlan } from '../../shared/api/catalog';
import type { PriceCard } from '../config/price-cards';

/*
 * The cost planner: for one conversation, which resources go in the cached prefix (inlined: in the system prompt,
 * read through the cache like any read, so current) and which stay on demand (a catalog line, read when the model
 * needs it), and how long the provider should keep the prefix. A pure function of the catalog's listed sizes, the
 * model's price card (models/price-cards.ts) and the conversation's pace, so that it gives the same answer turn after
 * turn — a plan that changed would rewrite the cached prefix — until the catalog or the pace really changes.
 *
 * What it may never do: inline a resource without a listed size (its cost is unknown until read: it stays on
 * demand), hide one (every on-demand resource keeps its catalog line), or serve text the freshness contract would
 * not (inlined text is read through the cache every turn like any other read).
 *
 * The estimate, in input-token equivalents over `turns` turns (PLANNER_TURNS), then dollars:
 * - the prefix (tools, instructions, catalog lines, inlined text) is written once and read by every later request —
 *   when caching is on and the prefix reaches the model's minimum; otherwise paid in full by every request;
 * - each on-demand resource is read at most once (the history keeps what was read, cached), with the chance that
 *   some turn needs it (one of N resources per turn, uniformly): its text written once, read by half the requests
 *   after it on average, plus one more round trip (a request and the call's output tokens).
 * Candidates are inlined smallest first; the cheapest prefix of that order wins (ties: fewer inlined).
 */

export interface PlannedResource {
  server: string;
  uri: string;
  /** Listed size (characters or bytes: the server's word). */
  chars: number;
}

export type CacheTtl = ContextPlan['ttl'];

export interface PlannerSettings {
  /** Turns the estimate is made for. */
  PLANNER_TURNS: number;
  /** Most estimated tokens of text the plan may inline. */
  INLINE_MAX_TOKENS: number;
  /** `auto`: the provider's long lifetime once the conversation's pace has a gap longer than half the short one. */
  PROMPT_CACHE_TTL: 'auto' | CacheTtl;
}

export interface PlannerInput {
  /** The text resources with a listed size, in catalog order (any without one stays on demand and is not given). */
  resources: PlannedResource[];
  /** Estimated tokens of what every request carries besides inlined text: tools, base instruction, instructions. */
  baseTokens: number;
  card: PriceCard | undefined;
  /** Prompt caching is asked of the provider for this conversation (PROMPT_CACHING, the tenant's promptCaching). */
  caching: boolean;
  /** Time between the conversation's turns so far (ms). */
  gapsMs: readonly number[];
  settings: PlannerSettings;
}

/** The plan as the API shows it (shared/api's schema is the source): inlined resources in catalog order, the TTL, why. */
export type { ContextPlan } from '../../shared/api/catalog';
type PlanEstimate = NonNullable<ContextPlan['estimate']>;

/** The same estimate as prompt/tokens.ts: characters per token. */
const CHARS_PER_TOKEN = 3.3;
/** What one catalog line costs (URI, title, type and size, a cut description). */
const LINE_TOKENS = 25;
/** What the model writes to read a resource (the call: name and arguments). */
const CALL_OUTPUT_TOKENS = 40;

const tokensOf = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

export function planContext(input: PlannerInput): ContextPlan {
  const { card, settings } = input;
  const ttl = chooseTtl(input);
  if (!card)
    return {
      inlined: [],
      ttl,
      reason: 'on demand: no price card for this model, so nothing is inlined and the provider keeps its defaults',
    };
  if (!input.resources.length)
    return { inlined: [], ttl, reason: 'nothing to inline: no text resource lists its size' };
  const order = input.resources
    .map((resource, index) => ({ resource, index, tokens: tokensOf(resource.chars) }))
    .sort((a, b) => a.tokens - b.tokens || a.index - b.index);
  const cost = estimator(input, ttl);
  let best = { k: 0, units: cost(order, 0) };
  let inlinedTokens = 0;
  for (let k = 1; k <= order.length; k++) {
    inlinedTokens += order[k - 1]!.tokens;
    if (inlinedTokens > settings.INLINE_MAX_TOKENS) break;
    const units = cost(order, k);
    if (units < best.units) best = { k, units }; // strictly: a tie keeps fewer inlined
  }
  const usd = (units: number) => (units * card.input) / 1e6;
  const totalTokens = order.reduce((sum, o) => sum + o.tokens, 0);
  const all = totalTokens <= settings.INLINE_MAX_TOKENS ? cost(order, order.length) : Number.POSITIVE_INFINITY;
  const estimate: PlanEstimate = {
    turns: settings.PLANNER_TURNS,
    chosenUsd: usd(best.units),
    inlineAllUsd: usd(all),
    onDemandUsd: usd(cost(order, 0)),
  };
  const inlined = order
    .slice(0, best.k)
    .sort((a, b) => a.index - b.index)
    .map((o) => o.resource);
  return { inlined, ttl, reason: reasonOf(input, inlined, order.length, estimate, card), estimate };
}

/**
 * The provider's long lifetime when the settings say so, or (auto) once a gap between turns outlasted half the short
 * one: a person is reading and typing, and the next gap may well outlast it. Switching then, while the short entry is
 * still warm, costs only the new writes at the long price; switching after an expiry would re-write everything.
 */
function chooseTtl({ card, caching, gapsMs, settings }: PlannerInput): CacheTtl {
  if (!card?.longTtlMs || !card.cacheWriteLong || !caching) return 'short';
  if (settings.PROMPT_CACHE_TTL !== 'auto') return settings.PROMPT_CACHE_TTL;
  return gapsMs.some((gap) => gap > card.shortTtlMs / 2) ? 'long' : 'short';
}

/** The estimate of a plan inlining the first `k` of `order`, in input-token units. */
function estimator(input: PlannerInput, ttl: CacheTtl) {
  const { card, caching, settings } = input;
  const price = card!;
  const turns = settings.PLANNER_TURNS;
  const write = caching
    ? (ttl === 'long' ? price.cacheWriteLong! : (price.cacheWrite ?? price.input)) / price.input
    : 1;
  const read = caching ? price.cacheRead / price.input : 1;
  const outputRatio = price.output / price.input;
  return (order: Array<{ tokens: number }>, k: number): number => {
    const n = order.length;
    const onDemand = order.slice(k);
    const prefix =
      input.baseTokens + order.slice(0, k).reduce((sum, o) => sum + o.tokens, 0) + LINE_TOKENS * onDemand.length;
    // The chance that a resource is read at least once over the turns, one of n needed per turn.
    const readOnce = 1 - (1 - 1 / n) ** turns;
    const trips = onDemand.length * readOnce;
    const requests = turns + trips;
    const cacheable = caching && prefix >= price.minCacheable;
    const prefixUnits = cacheable ? prefix * write + (requests - 1) * prefix * read : requests * prefix;
    // A read lands in the history: written once, then read by the requests after it (half of them on average).
    const readUnits = onDemand.reduce(
      (sum, o) => sum + readOnce * (cacheable ? o.tokens * (write + (requests / 2) * read) : o.tokens * (requests / 2)),
      0,
    );
    return prefixUnits + readUnits + trips * CALL_OUTPUT_TOKENS * outputRatio;
  };
}

function reasonOf(
  input: PlannerInput,
  inlined: PlannedResource[],
  total: number,
  estimate: PlanEstimate,
  card: PriceCard,
): string {
  const money = (usd: number) => (Number.isFinite(usd) ? `$${usd.toFixed(usd < 0.1 ? 4 : 3)}` : 'over the limit');
  const over = `over ${estimate.turns} turns on ${card.label}${input.caching ? '' : ' (caching off)'}`;
  if (inlined.length === total)
    return `inlined all ${total} resources: ${money(estimate.chosenUsd)} ${over}, against ${money(estimate.onDemandUsd)} read on demand`;
  if (!inlined.length)
    return `on demand: ${money(estimate.chosenUsd)} ${over}, against ${money(estimate.inlineAllUsd)} with every resource inlined`;
  return `inlined the ${inlined.length} smallest of ${total} resources: ${money(estimate.chosenUsd)} ${over}, against ${money(estimate.inlineAllUsd)} all inlined and ${money(estimate.onDemandUsd)} all on demand`;
}

/** Estimated tokens of run_code's definition and sentence, re-sent with every request while it is offered. */
const PROGRAM_TOOL_TOKENS = 260;

/**
 * Whether `run_code` is worth offering under RUN_CODE=auto: one run (a Dynamic Worker load, `runUsd`) plus its
 * definition in every request of `turns` turns, against reading the longest text once in full at the input price —
 * what a question about all of it (a count, a sum, a join) would otherwise cost. Without a price card (the offline
 * stand-in, Workers AI, unknown models) a run is worth it when some text may not fit one window or is of unknown size.
 */
export function programWorthIt(input: {
  /** Characters of the longest text resource (a listed size; a document's known text), or undefined when none is known. */
  longestChars: number | undefined;
  /** Some text resource is longer than one window or of unknown size. */
  longOrUnknown: boolean;
  card: PriceCard | undefined;
  runUsd: number;
  turns: number;
}): boolean {
  const { card } = input;
  if (!card) return input.longOrUnknown;
  if (input.longestChars === undefined) return input.longOrUnknown;
  const readUsd = ((input.longestChars / CHARS_PER_TOKEN) * card.input) / 1e6;
  const offerUsd = input.runUsd + (PROGRAM_TOOL_TOKENS * input.turns * card.input) / 1e6;
  return readUsd > offerUsd;
}
