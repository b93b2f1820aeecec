// Cost benchmark: what a conversation costs in dollars, with prompt caching, against the honest baseline — a host
// that pastes every document into a prompt the provider caches — and against the limit of reading on demand (the
// oracle: one request per turn, the passage it needs appended to a cached prefix).
//
// Twelve-turn conversations over the four corpora of bench/lib/corpora.mjs (10 KB, 50 KB, 500 KB, 5 MB; six
// questions, then six follow-ups: new facts and questions asked again), served by bench/lib/corpus-server.mjs, run
// through the real service under `wrangler dev` against the fake model (bench/lib/fake-model.mjs +
// reader-policy.mjs), reached through the real provider packages — one run per model, as the service's cost
// planner decides per model (src/prompt/cost-planner.ts, the price cards of src/config/price-cards.ts): Claude
// Sonnet 5.5, Haiku 5.5, Opus 5.5 and Sonnet 4.5 (Anthropic Messages), the same Sonnet 5.5 with
// PROMPT_CACHING=off, and gpt-5.6, gpt-6.1-terra and gpt-4.1 (OpenAI Responses). The fake records every request body
// as sent; bench/lib/pricing.mjs counts their tokens and applies each provider's cache rules and list prices.
//
// Two paces. "fast": the turns as they ran (seconds apart). "human": the same requests re-timed with gaps between
// turns of 20 s, 90 s, 4 min, 8 min and 15 min in turn (cache expiry modelled for every side). The service observes
// the real pace (conversation/pace.ts), which here is fast; what its PROMPT_CACHE_TTL=auto would have asked for at
// the human pace — 1-hour Anthropic entries from the first gap past 5 minutes on — is applied to its bodies.
//
//   npm run bench:cost
//   COST_CORPORA=10k,50k COST_RUNS=claude-sonnet-5-5,gpt-6.1-terra COST_WRITE=0 npm run bench:cost   # a quick check
//   COST_TURNS=6 npm run bench:cost                               # six-turn conversations only
//   COST_DETAIL=50k npm run bench:cost                            # also print each request's cache reads / writes
//   COST_FROM=run.log npm run bench:cost                          # re-render a saved run's BENCH_RESULT line
//   COST_DUMP=/tmp/bodies npm run bench:cost                      # also write every run's request bodies there
//
// Ports (127.0.0.1): wrangler dev COST_PORT (8840), its inspector +1, the fake model +2, the corpus MCP server +3.
// Each run starts its own wrangler with fresh state, so every conversation starts with a cold cache.
import { readFileSync, writeFileSync } from 'node:fs';
import { catalog, createConversation, runTurn } from './lib/client.mjs';
import { corpus, CORPUS_NAMES } from './lib/corpora.mjs';
import { startCorpusServer } from './lib/corpus-server.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import {
  anthropicBlocks,
  anthropicDivergence,
  clearTokenMemo,
  dollars,
  oracleAnthropic,
  oracleOpenAI,
  pasteAnthropic,
  pasteOpenAI,
  pastePrompt,
  PRICES,
  usageUnderCard,
} from './lib/pricing.mjs';
import { analyse, createReaderPolicy, findFact } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { NO_LIMITS, startWrangler } from './lib/stack.mjs';

const NAMES = (process.env.COST_CORPORA ?? CORPUS_NAMES.join(',')).split(',').filter(Boolean);
const PORT = Number(process.env.COST_PORT ?? 8840);
const WRITE = process.env.COST_WRITE !== '0';
const DETAIL = new Set((process.env.COST_DETAIL ?? '').split(',').filter(Boolean));
const TURNS = Number(process.env.COST_TURNS ?? 12);
/** The human pace: gaps between turns, in turn. */
const GAPS_MS = [20_000, 90_000, 240_000, 480_000, 900_000];
/** The service's read window (READ_WINDOW_CHARS' default): the oracle's passage of a longer document. */
const WINDOW_CHARS = 24_000;

/** One run per model (and one with caching off): its card (PRICES), MODEL, wire format. */
const ALL_RUNS = {
  'claude-sonnet-5-5': { card: 'claude-sonnet-5-5', spec: 'anthropic:claude-sonnet-5-5' },
  'claude-haiku-5-5': { card: 'claude-haiku-5-5', spec: 'anthropic:claude-haiku-5-5' },
  'claude-opus-5-5': { card: 'claude-opus-5-5', spec: 'anthropic:claude-opus-5-5' },
  'claude-sonnet-4-5': { card: 'claude-sonnet-4-5', spec: 'anthropic:claude-sonnet-4-5' },
  'claude-sonnet-5-5-off': { card: 'claude-sonnet-5-5', spec: 'anthropic:claude-sonnet-5-5', off: true },
  'gpt-5.6-sol': { card: 'gpt-5.6-sol', spec: 'openai:gpt-5.6' },
  'gpt-6.1-terra': { card: 'gpt-6.1-terra', spec: 'openai:gpt-6.1-terra' },
  'gpt-4.1': { card: 'gpt-4.1', spec: 'openai:gpt-4.1' },
};
const RUNS = Object.fromEntries(
  Object.entries(ALL_RUNS).filter(([k]) => !process.env.COST_RUNS || process.env.COST_RUNS.split(',').includes(k)),
);

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const apiOf = (run) => (PRICES[run.card].provider === 'anthropic' ? 'messages' : 'responses');

function vars(fake, server, name, run) {
  const anthropic = PRICES[run.card].provider === 'anthropic';
  return {
    MCP_SERVERS: JSON.stringify([{ id: 'corpus', url: server.url(name) }]),
    AUTH_DISABLED: 'true',
    ALLOW_PRIVATE_MCP_URLS: 'true',
    ...NO_LIMITS,
    // COST_VARS='{"READ_WINDOW_CHARS":"12000"}': compare settings side by side.
    ...JSON.parse(process.env.COST_VARS ?? '{}'),
    MODEL: run.spec,
    ...(anthropic
      ? { ANTHROPIC_BASE_URL: fake.baseUrl, ANTHROPIC_API_KEY: 'bench-key' }
      : { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'bench-key' }),
    ...(run.off ? { PROMPT_CACHING: 'off' } : {}),
  };
}

/** A Responses body with its `item_reference`s replaced by the items the fake streamed (they are billed as input like any other). */
function resolved(body, fake) {
  if (!Array.isArray(body.input)) return body;
  return {
    ...body,
    input: body.input.map((entry) => {
      if (entry.type !== 'item_reference') return entry;
      const item = fake.item(entry.id);
      if (!item) throw new Error(`item_reference ${entry.id}: not an item the fake model streamed`);
      return item;
    }),
  };
}

/** One conversation under a fresh `wrangler dev`: the planner's plan, the turns and every model request. */
async function conversation(fake, server, name, key) {
  const run = RUNS[key];
  const c = corpus(name);
  const questions = [...c.questions, ...c.followUps].slice(0, TURNS);
  const started = performance.now();
  const w = await startWrangler({ port: PORT, inspectorPort: PORT + 1, vars: vars(fake, server, name, run) });
  fake.reset();
  const turns = [];
  const requests = [];
  let plan;
  try {
    const id = await createConversation(w.base);
    plan = (await catalog(w.base, id)).plan;
    for (const q of questions) {
      const from = fake.requests.length;
      const t = await runTurn(w.base, id, q.text);
      const mine = fake.requests.slice(from);
      for (const r of mine)
        if (r.api !== apiOf(run)) throw new Error(`${key}: the service called the ${r.api} API, not ${apiOf(run)}`);
      for (const r of mine)
        requests.push({
          turn: turns.length,
          at: r.at,
          step: r.step,
          body: r.api === 'responses' ? resolved(r.body, fake) : r.body,
        });
      const calls = mine.map((r) => ('toolCalls' in r.step ? r.step.toolCalls.map((x) => x.name).join('+') : 'answer'));
      const turn = {
        question: q.text,
        answer: t.answer,
        correct: t.answer.includes(q.expect),
        requests: mine.length,
        calls,
        problems: t.problems,
      };
      turns.push(turn);
      console.log(
        `  ${name} ${key} turn ${turns.length}: ${calls.join(' → ')} · ${turn.correct ? 'right' : 'WRONG'}${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
  } finally {
    await w.stop();
  }
  // COST_DUMP=dir: the run's request bodies, to read what the service sent.
  if (process.env.COST_DUMP)
    writeFileSync(
      `${process.env.COST_DUMP}/${name}-${key}.json`,
      JSON.stringify(
        requests.map((r) => r.body),
        null,
        1,
      ),
    );
  return { turns, requests, plan, wallMs: Math.round(performance.now() - started) };
}

// ---- pricing a run ----------------------------------------------------------------------------

/** Per request: tokens (input, cached, written, writtenLong, uncached, output), under the card's cache rules. */
function usage(card, requests, { cache = true } = {}) {
  return usageUnderCard(card, requests, { cache }).map((x, i) => ({ ...x, turn: requests[i].turn }));
}

/** The human pace: each turn's requests moved by the sum of the gaps before it. */
function humanPaced(requests) {
  const shift = (turn) => sum(Array.from({ length: turn }, (_, k) => GAPS_MS[k % GAPS_MS.length]));
  return requests.map((r) => ({ ...r, at: r.at + shift(r.turn) }));
}

/** The first turn whose preceding gap (human pace) outlasts half `ttlMs`: from it on, PROMPT_CACHE_TTL=auto asks for the long lifetime (src/prompt/cost-planner.ts). */
const firstLongTurn = (ttlMs) => 1 + GAPS_MS.findIndex((g) => g > ttlMs / 2);

/** Our bodies as PROMPT_CACHE_TTL=auto sends them at the human pace: long entries from the first long gap on. */
function autoLong(card, requests) {
  const p = PRICES[card];
  if (!p.longTtlMs) return requests;
  const from = firstLongTurn(p.shortTtlMs);
  if (from < 1) return requests;
  return requests.map((r) => {
    if (r.turn < from) return r;
    if (p.provider === 'anthropic')
      return {
        ...r,
        body: JSON.parse(
          JSON.stringify(r.body, (k, v) => (k === 'cache_control' ? { type: 'ephemeral', ttl: '1h' } : v)),
        ),
      };
    return r.body.prompt_cache_options ? { ...r, body: { ...r.body, prompt_cache_options: { ttl: '12h' } } } : r;
  });
}

/** The lifetimes a well-configured host could ask `card`'s provider for (it picks the cheaper). */
function lifetimes(card) {
  const p = PRICES[card];
  if (p.provider === 'anthropic') return p.longTtlMs ? [undefined, '1h'] : [undefined];
  if (p.cacheStyle !== 'billed-writes') return [undefined];
  return p.longTtlMs ? ['30m', '12h'] : ['30m'];
}

/** The passage a question needs: its whole document, or the read window holding its fact in a longer one. */
function passageOf(c, q) {
  const doc = c.docs.find((d) => d.uri === q.uri);
  const block = (text) =>
    `<resource uri="${doc.uri}" title="${doc.title}" mime="${doc.mimeType}">\n${text}\n</resource>`;
  if (doc.text.length <= WINDOW_CHARS) return { key: doc.uri, text: block(doc.text) };
  const fact = findFact(analyse(q.text), [doc.text]) ?? q.expect;
  const at = Math.max(0, doc.text.indexOf(fact.slice(0, 40)), 0);
  const from = Math.floor(at / WINDOW_CHARS) * WINDOW_CHARS;
  return { key: `${doc.uri}#${from}`, text: block(doc.text.slice(from, from + WINDOW_CHARS)) };
}

/** Dollars of a request sequence, and its tokens per turn, for one card. */
function priced(card, requests, turns, extra = {}) {
  const us = usage(card, requests, extra);
  const n = turns;
  const later = us.filter((u) => u.turn >= 1);
  return {
    usd: sum(us.map((u) => dollars(u, PRICES[card]))),
    inputPerTurn: sum(us.map((u) => u.input)) / n,
    cachedPerTurn: sum(us.map((u) => u.cached)) / n,
    writtenPerTurn: sum(us.map((u) => u.written + u.writtenLong)) / n,
    outputPerTurn: sum(us.map((u) => u.output)) / n,
    tripsPerTurn: us.length / n,
    cacheShareLater: sum(later.map((u) => u.input))
      ? sum(later.map((u) => u.cached)) / sum(later.map((u) => u.input))
      : 0,
    maxInput: Math.max(...us.map((u) => u.input)),
  };
}

/** The cheaper of a baseline's bodies over the lifetimes its host could ask for. */
function cheapest(card, make, at, turns) {
  return lifetimes(card)
    .map((ttl) => ({ ttl, ...priced(card, at(make(ttl)), turns) }))
    .sort((a, b) => a.usd - b.usd)[0];
}

/** Every row of one run, for `n` turns at one pace. */
function rowsOf(c, key, result, n, pace) {
  const run = RUNS[key];
  const card = run.card;
  const p = PRICES[card];
  const requests = result.requests.filter((r) => r.turn < n);
  const turns = result.turns.slice(0, n);
  const qa = turns.map((t) => ({ question: t.question, answer: t.answer }));
  const timed = pace === 'human' ? humanPaced : (x) => x;
  const ours = priced(card, timed(pace === 'human' ? autoLong(card, requests) : requests), n);
  const right = `${turns.filter((t) => t.correct).length}/${n}`;
  if (run.off) return { ours: { ...ours, right } };
  // A pasting host and the oracle send one request per turn, when our turn started, and stream the same answer.
  const startOf = (i) => requests.find((r) => r.turn === i)?.at ?? 0;
  const asRequests = (bodies) =>
    timed(bodies.map((body, i) => ({ body, at: startOf(i), turn: i, step: { text: qa[i].answer } })));
  const prompt = pastePrompt(c.docs);
  const anthropic = p.provider === 'anthropic';
  const paste = (ttl, cache = true) =>
    anthropic ? pasteAnthropic(prompt, qa, { cache, model: card, ttl }) : pasteOpenAI(prompt, qa, { model: card, ttl });
  const pasteCached = cheapest(card, (ttl) => paste(ttl), asRequests, n);
  const pasteUncached = anthropic
    ? priced(card, asRequests(paste(undefined, false)), n)
    : priced(card, asRequests(paste(undefined)), n, { cache: false });
  const sent = new Set();
  const oracleTurns = [...c.questions, ...c.followUps].slice(0, n).map((q, i) => {
    const passage = passageOf(c, q);
    const fresh = !sent.has(passage.key);
    sent.add(passage.key);
    return { ...qa[i], ...(fresh ? { passage: passage.text } : {}) };
  });
  const system = 'You are a helpful assistant. Answer from the documents given with the questions.';
  const oracle = cheapest(
    card,
    (ttl) =>
      anthropic
        ? oracleAnthropic(system, oracleTurns, { model: card, ttl })
        : oracleOpenAI(system, oracleTurns, { model: card, ttl }),
    asRequests,
    n,
  );
  return { ours: { ...ours, right }, pasteCached, pasteUncached, oracle };
}

/** Where each Anthropic request stops extending the one before it (something already sent was changed), by kind. */
function cacheBreaks(requests) {
  const kinds = new Map();
  for (let j = 1; j < requests.length; j++) {
    const d = anthropicDivergence(requests[j - 1].body, requests[j].body);
    if (!d) continue;
    const b = d.block;
    const kind =
      b.part === 'tools'
        ? 'the tool definitions changed'
        : b.part === 'system'
          ? 'the system prompt changed'
          : d.was.type === 'tool_result' && /not repeated/.test(b.text)
            ? 'an earlier tool result replaced by a note (compaction or read elision)'
            : `a ${d.was.role} ${d.was.type} block changed`;
    const k = kinds.get(kind) ?? { kind, count: 0, lostTokens: 0, boundary: 0 };
    k.count++;
    k.lostTokens += d.lostTokens;
    if (requests[j].turn !== requests[j - 1].turn) k.boundary++;
    kinds.set(kind, k);
  }
  return [...kinds.values()];
}

async function corpusRun(fake, server, name) {
  const c = corpus(name);
  const runs = {};
  for (const key of Object.keys(RUNS)) {
    console.log(`cost: corpus ${name}, ${key} …`);
    runs[key] = await conversation(fake, server, name, key);
  }
  const lengths = [...new Set([6, TURNS].filter((n) => n <= TURNS))];
  const models = {};
  for (const key of Object.keys(RUNS)) {
    models[key] = {};
    for (const n of lengths)
      for (const pace of ['fast', 'human']) models[key][`${n}-${pace}`] = rowsOf(c, key, runs[key], n, pace);
  }
  if (DETAIL.has(name)) printDetail(name, runs);
  const anthropicRun = Object.keys(RUNS).find((k) => !RUNS[k].off && PRICES[RUNS[k].card].provider === 'anthropic');
  const result = {
    name,
    title: c.title,
    docs: c.docs.length,
    corpusBytes: sum(c.docs.map((d) => d.size)),
    runs: Object.fromEntries(
      Object.entries(runs).map(([k, r]) => [
        k,
        {
          turns: r.turns.map(({ answer, ...t }) => ({ ...t, answer: answer.slice(0, 300) })),
          wallMs: r.wallMs,
          plan: r.plan && {
            inlined: r.plan.inlined?.length ?? 0,
            ttl: r.plan.ttl,
            reason: r.plan.reason,
          },
        },
      ]),
    ),
    models,
    breaks: anthropicRun ? { run: anthropicRun, kinds: cacheBreaks(runs[anthropicRun].requests) } : undefined,
    toolsAndSystemTokens: anthropicRun
      ? (anthropicBlocks(runs[anthropicRun].requests[0].body)
          .filter((b) => b.part !== 'messages')
          .at(-1)?.end ?? 0)
      : 0,
  };
  clearTokenMemo();
  return result;
}

function printDetail(name, runs) {
  for (const [key, r] of Object.entries(runs)) {
    const us = usage(RUNS[key].card, r.requests);
    console.log(`  ${name} · ${key}, ours, per request (tokens, fast pace):`);
    console.log('    turn  call             input   cached  written  uncached  output');
    us.forEach((u, i) => {
      const step = r.requests[i].step;
      const did = 'toolCalls' in step ? step.toolCalls.map((x) => x.name).join('+') : 'answer';
      console.log(
        `    ${String(u.turn + 1).padStart(4)}  ${did.padEnd(15)} ${String(u.input).padStart(7)} ${String(u.cached).padStart(8)} ${String(u.written + u.writtenLong).padStart(8)} ${String(u.uncached).padStart(9)} ${String(u.output).padStart(7)}`,
      );
    });
  }
}

// ---- the report ----------------------------------------------------------------------------

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const usd = (x) =>
  !Number.isFinite(x) ? 'n/a' : x < 0.1 ? `$${x.toFixed(4)}` : x < 10 ? `$${x.toFixed(3)}` : `$${fmt(x, 2)}`;
const ratio = (x) => (!Number.isFinite(x) ? 'n/a' : x >= 10 ? `${fmt(x, 0)}×` : `${fmt(x, 2)}×`);
const pct = (x) => `${fmt(100 * x)} %`;
const kb = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)} MB` : `${fmt(x / 1000, 1)} KB`);
const corpusLabel = (c) => c.title.split(':')[0];
const priced_ = (r) => Object.keys(r.models).filter((k) => !ALL_RUNS[k]?.off);
const longest = (r) => Math.max(...r.corpora.flatMap((c) => Object.values(c.runs).map((x) => x.turns.length)));

/** The targets of issue 35, each checked on every corpus × model. */
function targets(r) {
  const n = longest(r);
  const checks = [];
  const check = (label, rows) => {
    const missed = rows.filter((x) => !x.ok);
    checks.push(
      `- ${label}: ${missed.length ? `**missed** on ${missed.map((x) => x.where).join(', ')} (met on ${rows.length - missed.length} of ${rows.length})` : `met on all ${rows.length}`}.`,
    );
  };
  const all = r.corpora.flatMap((c) =>
    priced_(c).map((k) => ({ c, k, where: `${corpusLabel(c)} × ${PRICES[ALL_RUNS[k].card].label}`, m: c.models[k] })),
  );
  const at = (name) => all.filter((x) => x.c.name === name);
  const both = (x, f) =>
    ['fast', 'human'].every((pace) => f(x.m[`${n}-${pace}`]) && (!x.m[`6-${pace}`] || f(x.m[`6-${pace}`])));
  check(
    'paste cached / ours ≥ 1.0× at 10 KB, every model, both paces, 6 and 12 turns',
    at('10k').map((x) => ({ ...x, ok: both(x, (m) => m.pasteCached.usd >= m.ours.usd) })),
  );
  check(
    'paste cached / ours ≥ 1.5× at 50 KB, every model, both paces, 6 and 12 turns',
    at('50k').map((x) => ({ ...x, ok: both(x, (m) => m.pasteCached.usd >= 1.5 * m.ours.usd) })),
  );
  check(
    'paste cached / ours ≥ 10× at 500 KB',
    at('500k').map((x) => ({ ...x, ok: both(x, (m) => m.pasteCached.usd >= 10 * m.ours.usd) })),
  );
  check(
    `ours within 1.3× of the oracle from 50 KB up (${n} turns, fast pace)`,
    all
      .filter((x) => x.c.name !== '10k')
      .map((x) => ({ ...x, ok: x.m[`${n}-fast`].ours.usd <= 1.3 * x.m[`${n}-fast`].oracle.usd })),
  );
  check(
    'model round trips per turn ≤ 1.3',
    all.map((x) => ({ ...x, ok: x.m[`${n}-fast`].ours.tripsPerTurn <= 1.3 })),
  );
  check(
    'cache reads ≥ 70 % of input tokens from turn 2 on, fast pace',
    all.map((x) => ({ ...x, ok: x.m[`${n}-fast`].ours.cacheShareLater >= 0.7 })),
  );
  return checks.join('\n');
}

function summaryRows(r) {
  const n = longest(r);
  return r.corpora.flatMap((c) =>
    priced_(c).map((k) => {
      const m = c.models[k];
      const fast = m[`${n}-fast`];
      const human = m[`${n}-human`];
      const six = m['6-fast'];
      const plan = c.runs[k].plan;
      const dag = (x) => (x.maxInput > PRICES[ALL_RUNS[k].card].contextTokens ? ' †' : '');
      return `| ${corpusLabel(c)} · ${c.docs} docs · ${kb(c.corpusBytes)} | ${PRICES[ALL_RUNS[k].card].label} | ${plan ? `${plan.inlined}/${c.docs}` : '?'} | **${usd(fast.ours.usd)}** | ${usd(fast.pasteCached.usd)}${dag(fast.pasteCached)} | ${usd(fast.oracle.usd)} | ${six && n !== 6 ? ratio(six.pasteCached.usd / six.ours.usd) : '–'} | **${ratio(fast.pasteCached.usd / fast.ours.usd)}** | ${ratio(human.pasteCached.usd / human.ours.usd)} | ${ratio(fast.ours.usd / fast.oracle.usd)} | ${fmt(fast.ours.tripsPerTurn, 2)} | ${pct(fast.ours.cacheShareLater)} | ${fast.ours.right} |`;
    }),
  );
}

function detailTable(c, n) {
  const lines = [];
  for (const k of Object.keys(c.models)) {
    const card = ALL_RUNS[k].card;
    for (const pace of ['fast', 'human']) {
      const m = c.models[k][`${n}-${pace}`];
      if (!m) continue;
      const rows = ALL_RUNS[k].off
        ? [['ours, caching off', m.ours]]
        : [
            ['ours', m.ours],
            [`paste, cached${m.pasteCached.ttl ? ` (${m.pasteCached.ttl})` : ''}`, m.pasteCached],
            ['paste, uncached', m.pasteUncached],
            [`oracle${m.oracle.ttl ? ` (${m.oracle.ttl})` : ''}`, m.oracle],
          ];
      for (const [label, x] of rows)
        lines.push(
          `| ${PRICES[card].label}${ALL_RUNS[k].off ? ' (off)' : ''} | ${pace} | ${label === 'ours' ? `**${label}**` : label} | ${usd(x.usd)} | ${fmt(x.inputPerTurn)} | ${pct(x.cachedPerTurn / Math.max(1, x.inputPerTurn))} | ${fmt(x.writtenPerTurn)} | ${fmt(x.tripsPerTurn, 2)} | ${x.right ?? ''} |`,
        );
    }
  }
  return `| model | pace | | $ per conversation | input tokens per turn | cache reads | cache writes per turn | round trips per turn | right |\n|---|---|---|---|---|---|---|---|---|\n${lines.join('\n')}`;
}

function notes(r) {
  const out = [];
  const breaks = r.corpora
    .filter((c) => c.breaks)
    .map(
      (c) =>
        `${corpusLabel(c)}: ${
          c.breaks.kinds.length
            ? c.breaks.kinds
                .map(
                  (b) =>
                    `${b.kind} ${b.count}× (${b.boundary} at a turn boundary; ${fmt(b.lostTokens / b.count)} tokens on average no longer a prefix)`,
                )
                .join('; ')
            : 'every request extends the one before it'
        }`,
    );
  if (breaks.length)
    out.push(
      `- **Where a request stops extending the one before it** (Anthropic, ${PRICES[ALL_RUNS[r.corpora.find((c) => c.breaks).breaks.run].card].label}): ${breaks.join(' · ')}.`,
    );
  const plans = r.corpora.map(
    (c) =>
      `${corpusLabel(c)}: ${priced_(c)
        .map(
          (k) =>
            `${PRICES[ALL_RUNS[k].card].label} ${c.runs[k].plan ? `${c.runs[k].plan.inlined} inlined, ${c.runs[k].plan.ttl}` : '?'}`,
        )
        .join(', ')}`,
  );
  out.push(
    `- **What the planner chose** (documents inlined in the cached prefix, lifetime at the bench's fast pace): ${plans.join(' · ')}.`,
  );
  const wrong = r.corpora.flatMap((c) =>
    Object.entries(c.runs).flatMap(([run, x]) => x.turns.flatMap((t, i) => (t.correct ? [] : [{ c, run, i, t }]))),
  );
  if (wrong.length)
    out.push(
      `- Wrong answers (counted in the cost all the same; the paste and oracle rows reuse them): ${wrong
        .map((w) => `${corpusLabel(w.c)} turn ${w.i + 1} in ${w.run} ("${w.t.question}": "${w.t.answer.slice(0, 60)}")`)
        .join('; ')}.`,
    );
  const over = r.corpora.filter((c) =>
    priced_(c).some(
      (k) => c.models[k][`${longest(r)}-fast`].pasteCached.maxInput > PRICES[ALL_RUNS[k].card].contextTokens,
    ),
  );
  if (over.length)
    out.push(
      `- † Pasting ${over.map(corpusLabel).join(', ')} is over the model's context window: the provider would reject those requests; priced as if they fit.`,
    );
  return out.join('\n');
}

function render(r, m) {
  const n = longest(r);
  const cards = [...new Set(Object.values(ALL_RUNS).map((x) => x.card))].filter((card) =>
    r.corpora.some((c) => Object.keys(c.models).some((k) => ALL_RUNS[k].card === card)),
  );
  const priceLine = cards.map((k) => {
    const p = PRICES[k];
    const writes = p.cacheWrite
      ? `, cache write $${p.cacheWrite}${p.cacheWriteLong ? ` (long $${p.cacheWriteLong})` : ''}`
      : ', writes free';
    return `${p.label} input $${p.input}, cache read $${p.cacheRead}${writes}, output $${p.output} (${p.source})`;
  });
  const c50 = r.corpora.find((c) => c.name === '50k');
  const perCorpus = r.corpora.map((c) => {
    const body = detailTable(c, n);
    return c === c50
      ? `### ${c.title}, ${n} turns\n\n${body}`
      : `<details><summary>${c.title}, ${n} turns: per model and pace</summary>\n\n${body}\n\n</details>`;
  });
  return `## What a conversation costs: dollars per conversation, with prompt caching, against pasting and the oracle

Command: \`npm run bench:cost\` (bench/cost.mjs) · ${machineLine(m)} · run took ${fmt(r.wallMs / 1000, 0)} s

${n}-turn conversations (six questions, then six follow-ups: new facts and questions asked again) over the corpora of
bench:bytes, through the real service under \`wrangler dev\` (fresh state per run) and the real provider packages,
one run per model (the cost planner decides per model, from its price card), the fake model answering as
bench/lib/reader-policy.mjs says. Each recorded body is priced from its tokens (bench/lib/pricing.mjs; o200k_base —
**for Claude an estimate**, no Claude 3+ tokenizer is published) under its provider's cache rules: Anthropic — a
breakpoint writes the prefix through it (at least the model's minimum), a request reads the longest live entry within
20 blocks before one of its breakpoints, entries live 5 minutes (1 hour when marked so) from their last use; OpenAI
before GPT-5.6 — the longest common prefix with a live earlier request (10 minutes), in steps of 128, writes free;
GPT-5.6 on — each request's prompt written at its end (1.25×, 30 minutes; 12 hours at 2.5× where offered), a request
reads the longest live earlier prompt it extends. **Paste, cached**: one request per turn, every document in the system
prompt, the same questions and answers, no tools, breakpoints on the system prompt and the last message (Anthropic) or
a plain prefix (OpenAI), with the cheaper of the lifetimes the host could ask for. **Oracle**: one request per turn, the
passage the question needs (its document, or the ${fmt(WINDOW_CHARS)}-character window holding the fact) appended to the
conversation so far, once per passage, cached the same way — the limit of reading on demand. **Fast**: the turns as they
ran, seconds apart. **Human pace**: the same requests with ${GAPS_MS.map((g) => (g < 60_000 ? `${g / 1000} s` : `${g / 60_000} min`)).join(', ')} between turns in turn; the
service would observe that pace and (PROMPT_CACHE_TTL=auto) ask for 1-hour Anthropic entries from the first gap past
half the 5-minute lifetime (turn ${firstLongTurn(5 * 60_000) + 1}) on, which is applied to its bodies; the inlining choice is the fast pace's. Prices, USD per million tokens:
${priceLine.join('; ')}.

| corpus | model | inlined | ours, ${n} turns | paste, cached | oracle | paste / ours, 6 turns | paste / ours, ${n} turns | paste / ours, human pace | ours / oracle | round trips per turn | cache reads from turn 2 | right |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${summaryRows(r).join('\n')}

**Targets** (issue 35):
${targets(r)}

${notes(r)}

${perCorpus.join('\n\n')}
`;
}

// ---- main ----------------------------------------------------------------------------------

const m = machine();
let result;
if (process.env.COST_FROM) {
  const line = readFileSync(process.env.COST_FROM, 'utf8').match(/^BENCH_RESULT cost (\{.*\})$/m);
  if (!line) throw new Error(`no BENCH_RESULT cost line in ${process.env.COST_FROM}`);
  result = JSON.parse(line[1]);
  if (result.measured) m.date = result.measured;
} else {
  const started = performance.now();
  const fake = await startFakeModel({ port: PORT + 2, decide: createReaderPolicy(), keepBodies: true });
  let server;
  try {
    server = await startCorpusServer({ port: PORT + 3, names: NAMES });
    const corpora = [];
    for (const name of NAMES) corpora.push(await corpusRun(fake, server, name));
    result = { measured: m.date, corpora, wallMs: Math.round(performance.now() - started) };
  } finally {
    await fake.close();
    await server?.close();
  }
  console.log(`BENCH_RESULT cost ${JSON.stringify(result)}`);
}
const section = render(result, m);
console.log(`\n${section}`);
const failed = result.corpora.some((c) => Object.values(c.runs).some((r) => r.turns.some((t) => t.problems.length)));
// A turn that failed (an HTTP error, a stream error) has no requests to price: its rows would read as free.
if (WRITE && failed) console.error('cost: some turns failed (see above); BENCHMARKS.md left as it was');
else if (WRITE) writeSection('BENCHMARKS.md', 'bench-cost', section);
process.exit(failed ? 1 : 0);
