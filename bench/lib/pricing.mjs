// What model requests cost, for bench/cost.mjs: tokens of recorded request
// bodies (Anthropic Messages, OpenAI Responses), each provider's prompt-cache
// rules applied to a sequence of them, list prices, and the bodies a pasting
// host would send. Pure functions over bodies: no network, no clock.
//
// Tokens: gpt-tokenizer's o200k_base, the encoding of gpt-4.1 and gpt-5. It
// stands in for Claude too: Anthropic publishes no tokenizer for Claude 3 and
// later (@anthropic-ai/tokenizer is the pre-Claude-3 one, and Anthropic says
// it is inaccurate for newer models), so Claude counts are an estimate.
// Counted: the textual content — each tool as the JSON of {name, description,
// input_schema | parameters}, the system text, every message content block
// (text; a tool call's name and JSON input; a tool result's text; Responses
// input items: message text, function_call name + arguments,
// function_call_output). Not counted: JSON punctuation, roles, the provider's
// own framing tokens (the same few per message for ours and for pasting).
import { createHash } from 'node:crypto';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { PRICE_CARDS } from '../../src/config/price-cards.ts';

/**
 * List prices and cache rules per model: src/config/price-cards.ts, the cards the service's cost planner uses (one
 * source, dated, each with where it comes from). USD per million tokens; `minCacheable`: the shortest prefix the
 * provider caches; `contextTokens`: the model's context window (a request above it is flagged, not priced apart).
 */
export const PRICES = Object.fromEntries(PRICE_CARDS.map((card) => [card.model, card]));

/** Anthropic's cache rules: 5-minute entries (1-hour ones on request) refreshed on use, at most 4 breakpoints, a 20-block lookback. */
export const ANTHROPIC_CACHE = { ttlMs: 5 * 60_000, longTtlMs: 60 * 60_000, maxBreakpoints: 4, lookbackBlocks: 20 };
/** OpenAI's automatic caching: prefixes of 1,024+ tokens, hits in steps of 128 tokens. */
export const OPENAI_CACHE = { minTokens: 1024, stepTokens: 128 };

// ---- tokens ------------------------------------------------------------------------------

const PLAIN = { disallowedSpecial: new Set() }; // "<|endoftext|>" in a document is text, not a special token
const ids = new Map();

/** The o200k_base token ids of `text` (memoised: the same document is sent many times). */
export function tokenIds(text) {
  if (!text) return [];
  let t = ids.get(text);
  if (!t) {
    t = encode(text, PLAIN);
    ids.set(text, t);
  }
  return t;
}

/** The o200k_base token count of `text`. */
export const tokens = (text) => tokenIds(text).length;

/** Forget memoised token ids (between corpora: the 5 MB one holds a few MB of them). */
export const clearTokenMemo = () => ids.clear();

/** Tokens of what the model produced for one request: the answer text, or each tool call's name and JSON arguments. */
export function outputTokens(step) {
  if (!step) return 0;
  if ('toolCalls' in step)
    return step.toolCalls.reduce((n, c) => n + tokens(c.name) + tokens(JSON.stringify(c.args ?? {})), 0);
  return tokens(step.text ?? '');
}

// ---- Anthropic Messages ------------------------------------------------------------------

const unmarked = (value) => JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v));
const sha = (prev, part) => createHash('sha256').update(prev).update('\u0000').update(part).digest('hex');

/** The text a Messages content block carries (what is tokenized). */
function blockText(b) {
  if (typeof b === 'string') return b;
  if (b.type === 'text') return b.text ?? '';
  if (b.type === 'tool_use') return `${b.name}${JSON.stringify(b.input ?? {})}`;
  if (b.type === 'tool_result') {
    if (typeof b.content === 'string') return b.content;
    return (b.content ?? []).map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join('');
  }
  return JSON.stringify({ ...b, cache_control: undefined });
}

/**
 * A Messages request as its cacheable blocks, in the provider's prefix order
 * (tools → system → messages, block by block). Each block: where it is
 * (`part`, `message`, `role`, `type`), its `text` and `tokens`, `end` (tokens
 * of the prefix through it), `hash` (of the prefix through it, cache marks
 * left out; a change of `tool_choice` changes the hashes of the message
 * blocks, as Anthropic documents), and `mark` (it carries `cache_control`).
 */
export function anthropicBlocks(body) {
  const out = [];
  let end = 0;
  let hash = '';
  const push = (block, key) => {
    const n = tokens(block.text);
    end += n;
    hash = sha(hash, key);
    out.push({ ...block, tokens: n, end, hash });
  };
  for (const t of body.tools ?? []) {
    push(
      {
        part: 'tools',
        type: 'tool',
        text: JSON.stringify({ name: t.name, description: t.description, input_schema: t.input_schema }),
        mark: !!t.cache_control,
        long: t.cache_control?.ttl === '1h',
      },
      unmarked(t),
    );
  }
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const b of system)
    push(
      {
        part: 'system',
        type: b.type,
        text: blockText(b),
        mark: !!b.cache_control,
        long: b.cache_control?.ttl === '1h',
      },
      unmarked(b),
    );
  hash = sha(hash, `tool_choice ${JSON.stringify(body.tool_choice ?? null)}`);
  (body.messages ?? []).forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    blocks.forEach((b, j) => {
      push(
        {
          part: 'messages',
          message: i,
          role: m.role,
          type: b.type,
          text: blockText(b),
          mark: !!b?.cache_control,
          long: b?.cache_control?.ttl === '1h',
        },
        unmarked([j === 0 ? m.role : '', b]),
      );
    });
  });
  return out;
}

/**
 * Anthropic's prompt cache over a sequence of Messages requests sent with
 * one API key (oldest first; `at` in ms, for the entries' lifetimes).
 * - A breakpoint (a block with cache_control) writes an entry for the prefix
 *   through it, if that prefix has at least `minCacheable` tokens; it lives
 *   5 minutes from its last use, or 1 hour when the mark says `ttl: "1h"`.
 * - A request reads the longest live entry ending at a block p within
 *   `lookbackBlocks` blocks before (or at) one of its breakpoints whose hash
 *   equals its own prefix through p; reading refreshes the entry.
 * - Billed: `cached` tokens at the cache-read price, `written` (from the read
 *   up to the last breakpoint written) at the 5-minute write price, or
 *   `writtenLong` at the 1-hour one, `uncached` (the rest) at the input price.
 * @param {Array<{ body: any, at?: number }>} requests
 * @returns {Array<{ input: number, cached: number, written: number, writtenLong: number, uncached: number, breakpoints: number, readAt: number, blocks: number }>}
 */
export function anthropicUsage(
  requests,
  {
    minCacheable,
    ttlMs = ANTHROPIC_CACHE.ttlMs,
    longTtlMs = ANTHROPIC_CACHE.longTtlMs,
    lookbackBlocks = ANTHROPIC_CACHE.lookbackBlocks,
  } = {},
) {
  if (!minCacheable) throw new Error('anthropicUsage: minCacheable is required');
  /** prefix hash → { used: last use (ms), ttl } */
  const entries = new Map();
  return requests.map(({ body, at = 0 }) => {
    const blocks = anthropicBlocks(body);
    const input = blocks.at(-1)?.end ?? 0;
    const marks = blocks.flatMap((b, i) => (b.mark ? [i] : []));
    if (marks.length > ANTHROPIC_CACHE.maxBreakpoints)
      throw new Error(
        `${marks.length} cache breakpoints in one request (the API allows ${ANTHROPIC_CACHE.maxBreakpoints})`,
      );
    let readAt = -1;
    for (const m of marks) {
      for (let p = m; p >= Math.max(0, m - lookbackBlocks); p--) {
        const entry = entries.get(blocks[p].hash);
        if (entry !== undefined && at - entry.used <= entry.ttl) {
          if (readAt < 0 || blocks[p].end > blocks[readAt].end) readAt = p;
          break;
        }
      }
    }
    const cached = readAt >= 0 ? blocks[readAt].end : 0;
    if (readAt >= 0) entries.get(blocks[readAt].hash).used = at;
    let upTo = cached;
    let long = false;
    for (const m of marks) {
      if (blocks[m].end < minCacheable) continue;
      const ttl = blocks[m].long ? longTtlMs : ttlMs;
      const known = entries.get(blocks[m].hash);
      entries.set(blocks[m].hash, { used: at, ttl: Math.max(ttl, known?.ttl ?? 0) });
      if (blocks[m].end > upTo) {
        upTo = blocks[m].end;
        long = blocks[m].long;
      }
    }
    const fresh = upTo - cached;
    return {
      input,
      cached,
      written: long ? 0 : fresh,
      writtenLong: long ? fresh : 0,
      uncached: input - upTo,
      breakpoints: marks.length,
      readAt,
      blocks: blocks.length,
    };
  });
}

/**
 * Where a request's blocks first differ from the previous request's, when
 * that is before the previous request's end (something it sent was changed
 * or dropped, not only appended to): `{ at, block, lostTokens }`, or
 * undefined when the request only extends the previous one.
 */
export function anthropicDivergence(previous, body) {
  const a = anthropicBlocks(previous);
  const b = anthropicBlocks(body);
  let i = 0;
  while (i < a.length && i < b.length && a[i].hash === b[i].hash) i++;
  if (i >= a.length) return undefined;
  return { at: i, block: b[i] ?? a[i], was: a[i], lostTokens: (a.at(-1)?.end ?? 0) - (i ? a[i - 1].end : 0) };
}

// ---- OpenAI Responses --------------------------------------------------------------------

const partsText = (content) =>
  typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join('');

/**
 * A Responses request as token ids, in a stable order: tools, instructions,
 * then input items in order (item references resolved by `resolve(id)`).
 */
export function openaiTokenIds(body, resolve = () => undefined) {
  const texts = [];
  for (const t of body.tools ?? [])
    texts.push(JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters }));
  if (body.instructions) texts.push(body.instructions);
  for (const entry of body.input ?? []) {
    const item = entry.type === 'item_reference' ? resolve(entry.id) : entry;
    if (!item) throw new Error(`unresolved item_reference ${entry.id}`);
    if (item.type === 'function_call') texts.push(`${item.name}${item.arguments ?? ''}`);
    else if (item.type === 'function_call_output') texts.push(partsText(item.output));
    else if (item.role) texts.push(partsText(item.content));
    else texts.push(JSON.stringify(item));
  }
  const parts = texts.map(tokenIds);
  const out = new Uint32Array(parts.reduce((n, t) => n + t.length, 0));
  let at = 0;
  for (const t of parts) out.set(t, at), (at += t.length);
  return out;
}

function commonPrefix(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/**
 * OpenAI's prompt caching over a sequence of Responses requests (`at` in ms), per `prompt_cache_key` (which routes
 * a conversation's requests to one cache):
 * - `automatic` (before GPT-5.6): the cached part of a request is its longest common token prefix with a live
 *   earlier request, floored to a multiple of 128 tokens, if at least 1,024; writes are free; a prefix lives
 *   `ttlMs` from its last use (in memory, "5–10 minutes": 10 here).
 * - `billed-writes` (GPT-5.6 on): an implicit breakpoint at the end of each request writes its whole prompt (if at
 *   least 1,024 tokens) at the write price — what was read aside; a request reads the longest live earlier prompt
 *   that is a prefix of its own. Entries live 30 minutes, or 12 hours when the request asks for them
 *   (`prompt_cache_options.ttl: "12h"`, written at the long write price).
 * `cache: false` prices every request with no hit.
 * @param {Array<{ body: any, at?: number }>} requests
 * @returns {Array<{ input: number, cached: number, written: number, writtenLong: number, uncached: number, common: number }>}
 */
export function openaiUsage(
  requests,
  {
    resolve,
    cache = true,
    style = 'automatic',
    ttlMs = 10 * 60_000,
    longTtlMs = 12 * 3_600_000,
    minTokens = OPENAI_CACHE.minTokens,
    stepTokens = OPENAI_CACHE.stepTokens,
  } = {},
) {
  /** key → [{ tokens, used, ttl }] */
  const seen = new Map();
  return requests.map(({ body, at = 0 }) => {
    const t = openaiTokenIds(body, resolve);
    const key = body.prompt_cache_key ?? '';
    const earlier = (seen.get(key) ?? []).filter((e) => at - e.used <= e.ttl);
    const long = body.prompt_cache_options?.ttl === '12h';
    const ttl = style === 'billed-writes' ? (long ? longTtlMs : 30 * 60_000) : ttlMs;
    let cached = 0;
    let common = 0;
    let hit;
    for (const e of earlier) {
      const c = commonPrefix(e.tokens, t);
      common = Math.max(common, c);
      const usable =
        style === 'billed-writes' ? (c === e.tokens.length ? c : 0) : Math.floor(c / stepTokens) * stepTokens;
      if (usable > cached) {
        cached = usable;
        hit = e;
      }
    }
    if (!cache || cached < minTokens) {
      cached = 0;
      hit = undefined;
    }
    if (hit) hit.used = at;
    const writes = style === 'billed-writes' && cache && t.length >= minTokens ? t.length - cached : 0;
    earlier.push({ tokens: t, used: at, ttl });
    seen.set(key, earlier);
    return {
      input: t.length,
      cached,
      written: long ? 0 : writes,
      writtenLong: long ? writes : 0,
      uncached: t.length - cached - writes,
      common,
    };
  });
}

// ---- dollars -----------------------------------------------------------------------------

/** USD for one request's usage (`cached`, `written`, `uncached`, `output` tokens) at `price`. */
export function dollars(u, price) {
  return (
    (u.uncached * price.input +
      u.written * (price.cacheWrite ?? price.input) +
      (u.writtenLong ?? 0) * (price.cacheWriteLong ?? price.cacheWrite ?? price.input) +
      u.cached * price.cacheRead +
      u.output * price.output) /
    1e6
  );
}

// ---- what a pasting host sends -----------------------------------------------------------

/** Every document in one system prompt, as bench:bytes pastes them. */
export function pastePrompt(docs, server = 'corpus') {
  const blocks = docs.map(
    (d) => `<resource uri="${d.uri}" title="${d.title}" mime="${d.mimeType}">\n${d.text}\n</resource>`,
  );
  return `You are a helpful assistant. Answer from these documents of the server "${server}":\n\n${blocks.join('\n\n')}`;
}

const EPHEMERAL = { type: 'ephemeral' };

/**
 * A pasting host's Messages bodies, one per turn (no tools): the documents
 * in the system prompt, the conversation so far with the same answers, the
 * new question. `cache`: breakpoints on the system prompt and on the last
 * message, as a well-configured host would set them.
 * @param {Array<{ question: string, answer: string }>} turns
 */
export function pasteAnthropic(prompt, turns, { cache, model = 'claude-sonnet-4-5', ttl }) {
  const mark = cache ? { cache_control: ttl === '1h' ? { ...EPHEMERAL, ttl } : EPHEMERAL } : {};
  const history = [];
  return turns.map((t) => {
    const body = {
      model,
      max_tokens: 4096,
      system: [{ type: 'text', text: prompt, ...mark }],
      messages: [...history, { role: 'user', content: [{ type: 'text', text: t.question, ...mark }] }],
      stream: true,
    };
    history.push(
      { role: 'user', content: [{ type: 'text', text: t.question }] },
      { role: 'assistant', content: [{ type: 'text', text: t.answer }] },
    );
    return body;
  });
}

/** The same as Responses bodies: the documents in a system message, then the conversation as input items. */
export function pasteOpenAI(prompt, turns, { model = 'gpt-4.1', key = 'paste', ttl } = {}) {
  const history = [{ role: 'system', content: prompt }];
  return turns.map((t) => {
    const body = {
      model,
      input: [...history, { role: 'user', content: [{ type: 'input_text', text: t.question }] }],
      prompt_cache_key: key,
      ...(ttl ? { prompt_cache_options: { ttl } } : {}),
      stream: true,
    };
    history.push(
      { role: 'user', content: [{ type: 'input_text', text: t.question }] },
      { role: 'assistant', content: [{ type: 'output_text', text: t.answer }] },
    );
    return body;
  });
}

// ---- the oracle: one request per turn, the passage it needs appended -------------------------

/**
 * The limit of reading on demand: a host that knows which passage each question needs sends one request per turn —
 * a short system prompt, the conversation so far (each earlier turn's passage, question and answer), the passage
 * this question needs (unless an earlier turn sent it) and the question — with a breakpoint at the end (Anthropic)
 * or a cache key (OpenAI), so every request extends the one before it. No tools, no catalog.
 * @param {Array<{ question: string, answer: string, passage?: string }>} turns
 */
export function oracleAnthropic(system, turns, { model, ttl } = {}) {
  const mark = { cache_control: ttl === '1h' ? { ...EPHEMERAL, ttl } : EPHEMERAL };
  const history = [];
  return turns.map((t) => {
    const said = [...(t.passage ? [{ type: 'text', text: t.passage }] : []), { type: 'text', text: t.question }];
    const last = { role: 'user', content: [...said.slice(0, -1), { ...said.at(-1), ...mark }] };
    const body = {
      model,
      max_tokens: 4096,
      system: [{ type: 'text', text: system }],
      messages: [...history, last],
      stream: true,
    };
    history.push({ role: 'user', content: said }, { role: 'assistant', content: [{ type: 'text', text: t.answer }] });
    return body;
  });
}

export function oracleOpenAI(system, turns, { model, key = 'oracle', ttl } = {}) {
  const history = [{ role: 'system', content: system }];
  return turns.map((t) => {
    const said = [
      ...(t.passage ? [{ type: 'input_text', text: t.passage }] : []),
      { type: 'input_text', text: t.question },
    ];
    const body = {
      model,
      input: [...history, { role: 'user', content: said }],
      prompt_cache_key: key,
      ...(ttl ? { prompt_cache_options: { ttl } } : {}),
      stream: true,
    };
    history.push(
      { role: 'user', content: said },
      { role: 'assistant', content: [{ type: 'output_text', text: t.answer }] },
    );
    return body;
  });
}

/**
 * Per request of one conversation, its tokens under `card`'s provider and cache rules (input, cached, written,
 * uncached …) with its output tokens: the one place a card's cache style and lifetimes are applied
 * (bench:cost, bench:docs). `cache: false`: no hits, no writes (an OpenAI request without caching).
 */
export function usageUnderCard(card, requests, { cache = true } = {}) {
  const p = PRICES[card];
  const usage =
    p.provider === 'anthropic'
      ? anthropicUsage(requests, { minCacheable: p.minCacheable, ttlMs: p.shortTtlMs, longTtlMs: p.longTtlMs })
      : openaiUsage(requests, {
          cache,
          style: p.cacheStyle === 'billed-writes' ? 'billed-writes' : 'automatic',
          ttlMs: p.shortTtlMs,
          longTtlMs: p.longTtlMs,
          minTokens: p.minCacheable,
        });
  return usage.map((u, i) => ({ ...u, output: outputTokens(requests[i].step) }));
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Dollars and tokens of a request sequence under `model`'s card and cache rules (`cache: false`: no hits, no writes). */
export function bill(model, requests, { cache = true } = {}) {
  const p = PRICES[model];
  const rows = usageUnderCard(model, requests, { cache });
  return {
    usd: sum(rows.map((u) => dollars(u, p))),
    input: sum(rows.map((u) => u.input)),
    cached: sum(rows.map((u) => u.cached)),
    output: sum(rows.map((u) => u.output)),
    requests: rows.length,
    maxInput: Math.max(...rows.map((u) => u.input)),
  };
}

/** The cache lifetimes a host could ask `model`'s provider for (a pasting host takes the cheaper). */
export function ttlsOf(model) {
  const p = PRICES[model];
  if (p.provider === 'anthropic') return p.longTtlMs ? [undefined, '1h'] : [undefined];
  if (p.cacheStyle !== 'billed-writes') return [undefined];
  return p.longTtlMs ? ['30m', '12h'] : ['30m'];
}

/** The models the conversation benchmarks run (bench:docs, bench:code): price card → the service's MODEL. */
export const BENCH_MODELS = {
  'claude-sonnet-5-5': 'anthropic:claude-sonnet-5-5',
  'claude-haiku-5-5': 'anthropic:claude-haiku-5-5',
  'gpt-6.1-terra': 'openai:gpt-6.1-terra',
  'gpt-4.1': 'openai:gpt-4.1',
};

/** The cards a run prices: `list` (comma-separated), else all of BENCH_MODELS, or with `quick` one per provider. */
export const benchModels = (list, quick) =>
  (list ?? (quick ? 'claude-sonnet-5-5,gpt-6.1-terra' : Object.keys(BENCH_MODELS).join(',')))
    .split(',')
    .filter(Boolean);

/** The vars that make the service call `card`'s model through its real provider package, at `baseUrl` (the fake). */
export function modelVars(card, baseUrl) {
  return PRICES[card].provider === 'anthropic'
    ? { MODEL: BENCH_MODELS[card], ANTHROPIC_BASE_URL: baseUrl, ANTHROPIC_API_KEY: 'bench-key' }
    : { MODEL: BENCH_MODELS[card], OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: 'bench-key' };
}
