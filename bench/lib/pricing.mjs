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

/**
 * List prices, USD per million tokens. `minCacheable`: the shortest prefix
 * the provider caches. `contextTokens`: the model's context window (a
 * request above it is rejected; flagged in the report, not priced apart).
 */
export const PRICES = {
  'claude-sonnet-4-5': {
    provider: 'anthropic',
    label: 'Claude Sonnet 4.5',
    input: 3.0,
    cacheWrite: 3.75,
    cacheRead: 0.3,
    output: 15.0,
    minCacheable: 1024,
    contextTokens: 200_000,
    source: 'platform.claude.com pricing, docs copy of 2026-05-04',
  },
  'claude-haiku-4-5': {
    provider: 'anthropic',
    label: 'Claude Haiku 4.5',
    input: 1.0,
    cacheWrite: 1.25,
    cacheRead: 0.1,
    output: 5.0,
    minCacheable: 4096,
    contextTokens: 200_000,
    source: 'platform.claude.com pricing, docs copy of 2026-05-04',
  },
  'gpt-4.1': {
    provider: 'openai',
    label: 'gpt-4.1',
    input: 2.0,
    cacheRead: 0.5,
    output: 8.0,
    minCacheable: 1024,
    contextTokens: 1_047_576,
    source: 'developers.openai.com pricing, copy of 2026-08-15',
  },
  'gpt-5': {
    provider: 'openai',
    label: 'gpt-5',
    input: 1.25,
    cacheRead: 0.125,
    output: 10.0,
    minCacheable: 1024,
    contextTokens: 400_000,
    source: 'developers.openai.com pricing, copy of 2026-08-15',
  },
};

/** Anthropic's cache rules (docs as of 2026-05-04): 5-minute entries refreshed on use, at most 4 breakpoints, a 20-block lookback. */
export const ANTHROPIC_CACHE = { ttlMs: 5 * 60_000, maxBreakpoints: 4, lookbackBlocks: 20 };
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
      },
      unmarked(t),
    );
  }
  const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
  for (const b of system)
    push({ part: 'system', type: b.type, text: blockText(b), mark: !!b.cache_control }, unmarked(b));
  hash = sha(hash, `tool_choice ${JSON.stringify(body.tool_choice ?? null)}`);
  (body.messages ?? []).forEach((m, i) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    blocks.forEach((b, j) => {
      push(
        { part: 'messages', message: i, role: m.role, type: b.type, text: blockText(b), mark: !!b?.cache_control },
        unmarked([j === 0 ? m.role : '', b]),
      );
    });
  });
  return out;
}

/**
 * Anthropic's prompt cache over a sequence of Messages requests sent with
 * one API key (oldest first; `at` in ms, for the 5-minute lifetime).
 * - A breakpoint (a block with cache_control) writes an entry for the prefix
 *   through it, if that prefix has at least `minCacheable` tokens.
 * - A request reads the longest live entry ending at a block p within
 *   `lookbackBlocks` blocks before (or at) one of its breakpoints whose hash
 *   equals its own prefix through p; reading refreshes the entry.
 * - Billed: `read` tokens at the cache-read price, `written` (from the read
 *   up to the last breakpoint written) at the cache-write price, `uncached`
 *   (the rest: after the last breakpoint) at the input price.
 * @param {Array<{ body: any, at?: number }>} requests
 * @returns {Array<{ input: number, cached: number, written: number, uncached: number, breakpoints: number, readAt: number, blocks: number }>}
 */
export function anthropicUsage(
  requests,
  { minCacheable, ttlMs = ANTHROPIC_CACHE.ttlMs, lookbackBlocks = ANTHROPIC_CACHE.lookbackBlocks } = {},
) {
  if (!minCacheable) throw new Error('anthropicUsage: minCacheable is required');
  /** prefix hash → last use (ms) */
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
        const used = entries.get(blocks[p].hash);
        if (used !== undefined && at - used <= ttlMs) {
          if (readAt < 0 || blocks[p].end > blocks[readAt].end) readAt = p;
          break;
        }
      }
    }
    const cached = readAt >= 0 ? blocks[readAt].end : 0;
    if (readAt >= 0) entries.set(blocks[readAt].hash, at);
    let upTo = cached;
    for (const m of marks) {
      if (blocks[m].end < minCacheable) continue;
      entries.set(blocks[m].hash, at);
      upTo = Math.max(upTo, blocks[m].end);
    }
    return {
      input,
      cached,
      written: upTo - cached,
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
 * OpenAI's automatic prompt caching over a sequence of Responses requests:
 * the cached part of a request is its longest common token prefix with an
 * earlier request of the same `prompt_cache_key` (which routes them to the
 * same cache), floored to a multiple of 128 tokens, if at least 1,024.
 * Writes are free. `cache: false` prices every request with no hit.
 * @param {Array<{ body: any }>} requests
 * @returns {Array<{ input: number, cached: number, written: 0, uncached: number, common: number }>}
 */
export function openaiUsage(
  requests,
  { resolve, cache = true, minTokens = OPENAI_CACHE.minTokens, stepTokens = OPENAI_CACHE.stepTokens } = {},
) {
  const seen = new Map();
  return requests.map(({ body }) => {
    const t = openaiTokenIds(body, resolve);
    const key = body.prompt_cache_key ?? '';
    const earlier = seen.get(key) ?? [];
    const common = earlier.reduce((best, e) => Math.max(best, commonPrefix(e, t)), 0);
    const floored = Math.floor(common / stepTokens) * stepTokens;
    const cached = cache && floored >= minTokens ? floored : 0;
    earlier.push(t);
    seen.set(key, earlier);
    return { input: t.length, cached, written: 0, uncached: t.length - cached, common };
  });
}

// ---- dollars -----------------------------------------------------------------------------

/** USD for one request's usage (`cached`, `written`, `uncached`, `output` tokens) at `price`. */
export function dollars(u, price) {
  return (
    (u.uncached * price.input +
      u.written * (price.cacheWrite ?? price.input) +
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
export function pasteAnthropic(prompt, turns, { cache, model = 'claude-sonnet-4-5' }) {
  const mark = cache ? { cache_control: EPHEMERAL } : {};
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
export function pasteOpenAI(prompt, turns, { model = 'gpt-4.1', key = 'paste' } = {}) {
  const history = [{ role: 'system', content: prompt }];
  return turns.map((t) => {
    const body = {
      model,
      input: [...history, { role: 'user', content: [{ type: 'input_text', text: t.question }] }],
      prompt_cache_key: key,
      stream: true,
    };
    history.push(
      { role: 'user', content: [{ type: 'input_text', text: t.question }] },
      { role: 'assistant', content: [{ type: 'output_text', text: t.answer }] },
    );
    return body;
  });
}
