// Cost benchmark: what a conversation costs in dollars, with prompt caching.
// The six-turn conversations of bench:bytes (the 10 KB / 50 KB / 500 KB /
// 5 MB corpora of bench/lib/corpora.mjs, served by bench/lib/corpus-server.mjs)
// run through the real service under `wrangler dev` against the fake model
// (bench/lib/fake-model.mjs + reader-policy.mjs), reached through the real
// provider packages: Anthropic Messages (`MODEL=anthropic:claude-sonnet-4-5`,
// cache breakpoints on), the same with `PROMPT_CACHING=off`, and OpenAI
// Responses (`MODEL=openai:gpt-4.1`, `prompt_cache_key`). The fake records
// every request body exactly as sent; bench/lib/pricing.mjs counts their
// tokens, applies each provider's cache rules and list prices (Anthropic
// bodies priced for Sonnet 4.5 and Haiku 4.5, OpenAI ones for gpt-4.1 and
// gpt-5), and prices a pasting host's bodies (every document in the system
// prompt, the same questions and answers; cached and not) side by side.
//
//   npm run bench:cost
//   COST_CORPORA=10k,50k COST_WRITE=0 npm run bench:cost    # a quick check, BENCHMARKS.md left alone
//   COST_DETAIL=50k npm run bench:cost                      # also print each request's cache reads / writes
//   COST_FROM=run.log npm run bench:cost                    # re-render a saved run's BENCH_RESULT line
//
// Ports (127.0.0.1): wrangler dev COST_PORT (8840), its inspector +1, the
// fake model +2, the corpus MCP server +3. Each run starts its own wrangler
// with fresh state, so every conversation starts with a cold cache.
import { readFileSync } from 'node:fs';
import { createConversation, runTurn } from './lib/client.mjs';
import { corpus, CORPUS_NAMES } from './lib/corpora.mjs';
import { startCorpusServer } from './lib/corpus-server.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import {
  ANTHROPIC_CACHE,
  anthropicBlocks,
  anthropicDivergence,
  anthropicUsage,
  clearTokenMemo,
  dollars,
  OPENAI_CACHE,
  openaiUsage,
  outputTokens,
  pasteAnthropic,
  pasteOpenAI,
  pastePrompt,
  PRICES,
} from './lib/pricing.mjs';
import { createReaderPolicy } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { NO_LIMITS, startWrangler } from './lib/stack.mjs';

const NAMES = (process.env.COST_CORPORA ?? CORPUS_NAMES.join(',')).split(',').filter(Boolean);
const PORT = Number(process.env.COST_PORT ?? 8840);
const WRITE = process.env.COST_WRITE !== '0';
const DETAIL = new Set((process.env.COST_DETAIL ?? '').split(',').filter(Boolean));

/** The three runs per corpus: which wire format the service must use, the models its bodies are priced for, its vars. */
const RUNS = {
  anthropic: {
    api: 'messages',
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
    vars: (fake) => ({
      MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'bench-key',
    }),
  },
  'anthropic-off': {
    api: 'messages',
    models: ['claude-sonnet-4-5', 'claude-haiku-4-5'],
    vars: (fake) => ({
      MODEL: 'anthropic:claude-sonnet-4-5',
      ANTHROPIC_BASE_URL: fake.baseUrl,
      ANTHROPIC_API_KEY: 'bench-key',
      PROMPT_CACHING: 'off',
    }),
  },
  openai: {
    api: 'responses',
    models: ['gpt-4.1', 'gpt-5'],
    vars: (fake) => ({ MODEL: 'openai:gpt-4.1', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'bench-key' }),
  },
};
const MODELS = ['claude-sonnet-4-5', 'claude-haiku-4-5', 'gpt-4.1', 'gpt-5'];

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

function vars(fake, server, name, run) {
  return {
    MCP_SERVERS: JSON.stringify([{ id: 'corpus', url: server.url(name) }]),
    AUTH_DISABLED: 'true',
    ALLOW_PRIVATE_MCP_URLS: 'true',
    ...NO_LIMITS,
    // COST_VARS='{"READ_WINDOW_CHARS":"12000"}': compare settings side by side.
    ...JSON.parse(process.env.COST_VARS ?? '{}'),
    ...RUNS[run].vars(fake),
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

/** One six-turn conversation under a fresh `wrangler dev`: the turns and every model request (body, time, what the fake answered). */
async function conversation(fake, server, name, run) {
  const c = corpus(name);
  const started = performance.now();
  const w = await startWrangler({ port: PORT, inspectorPort: PORT + 1, vars: vars(fake, server, name, run) });
  fake.reset();
  const turns = [];
  const requests = [];
  try {
    const id = await createConversation(w.base);
    for (const q of c.questions) {
      const from = fake.requests.length;
      const t = await runTurn(w.base, id, q.text);
      const mine = fake.requests.slice(from);
      for (const r of mine)
        if (r.api !== RUNS[run].api)
          throw new Error(`${run}: the service called the ${r.api} API, not ${RUNS[run].api}`);
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
        expect: q.expect,
        answer: t.answer,
        correct: t.answer.includes(q.expect),
        requests: mine.length,
        calls,
        ms: Math.round(t.ms),
        problems: t.problems,
      };
      turns.push(turn);
      console.log(
        `  ${name} ${run} turn ${turns.length}: ${calls.join(' → ')} · ${turn.correct ? 'right' : 'WRONG'}${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
  } finally {
    await w.stop();
  }
  const gaps = requests.slice(1).map((r, i) => r.at - requests[i].at);
  return {
    turns,
    requests,
    wallMs: Math.round(performance.now() - started),
    maxGapMs: gaps.length ? Math.max(...gaps) : 0,
  };
}

/** Usage per request (tokens: input, cached, written, uncached, output) under one model's cache rules. */
function usage(model, requests, { cache = true } = {}) {
  const p = PRICES[model];
  const u =
    p.provider === 'anthropic'
      ? anthropicUsage(requests, { minCacheable: p.minCacheable })
      : openaiUsage(requests, { cache, minTokens: p.minCacheable });
  return u.map((x, i) => ({ ...x, output: outputTokens(requests[i].step), turn: requests[i].turn }));
}

/** A table row: $ per conversation and per-turn means, from per-request usage. */
function row(id, label, model, us, turns, extra = {}) {
  const n = turns.length;
  return {
    id,
    label,
    usd: sum(us.map((u) => dollars(u, PRICES[model]))),
    inputPerTurn: sum(us.map((u) => u.input)) / n,
    cachedPerTurn: sum(us.map((u) => u.cached)) / n,
    writtenPerTurn: sum(us.map((u) => u.written)) / n,
    outputPerTurn: sum(us.map((u) => u.output)) / n,
    tripsPerTurn: us.length / n,
    maxInput: Math.max(...us.map((u) => u.input)),
    ...extra,
  };
}

const rightOf = (turns) => `${turns.filter((t) => t.correct).length}/${turns.length}`;

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
          : d.was.type === 'tool_result' && /^\[(Read|Searched)[^\]]*not repeated/.test(b.text)
            ? 'an earlier turn’s tool result replaced by a note (read elision)'
            : `a ${d.was.role} ${d.was.type} block changed`;
    const k = kinds.get(kind) ?? { kind, count: 0, lostTokens: 0, boundary: 0 };
    k.count++;
    k.lostTokens += d.lostTokens;
    if (requests[j].turn !== requests[j - 1].turn) k.boundary++;
    kinds.set(kind, k);
  }
  return [...kinds.values()];
}

/** User messages carrying more than the question (e.g. catalog entries riding with it). */
function extraUserBlocks(requests) {
  const last = requests.at(-1)?.body;
  return (last?.messages ?? []).filter(
    (m) => m.role === 'user' && Array.isArray(m.content) && m.content.filter((b) => b.type === 'text').length > 1,
  ).length;
}

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const usd = (x) =>
  !Number.isFinite(x) ? 'n/a' : x < 0.1 ? `$${x.toFixed(4)}` : x < 10 ? `$${x.toFixed(3)}` : `$${fmt(x, 2)}`;
const ratio = (x) => (!Number.isFinite(x) ? 'n/a' : x >= 10 ? `${fmt(x, 0)}×` : `${fmt(x, 2)}×`);
const kb = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)} MB` : `${fmt(x / 1000, 1)} KB`);

async function corpusRun(fake, server, name) {
  const c = corpus(name);
  const runs = {};
  for (const run of Object.keys(RUNS)) {
    console.log(`cost: corpus ${name}, ${run} …`);
    runs[run] = await conversation(fake, server, name, run);
  }
  const prompt = pastePrompt(c.docs);
  const models = {};
  const detail = {};
  for (const model of MODELS) {
    const p = PRICES[model];
    const ours = runs[p.provider === 'anthropic' ? 'anthropic' : 'openai'];
    const qa = ours.turns.map((t) => ({ question: t.question, answer: t.answer }));
    // A pasting host sends one request per turn, when our turn started; it streams the same answer.
    const startOf = (i) => ours.requests.find((r) => r.turn === i)?.at ?? 0;
    const asRequests = (bodies) =>
      bodies.map((body, i) => ({ body, at: startOf(i), turn: i, step: { text: qa[i].answer } }));
    const rows = [];
    const oursUsage = usage(model, ours.requests);
    detail[model] = oursUsage.map(({ turn, input, cached, written, uncached, output }) => ({
      turn,
      input,
      cached,
      written,
      uncached,
      output,
    }));
    if (p.provider === 'anthropic') {
      const off = runs['anthropic-off'];
      rows.push(row('ours', 'ours, caching on', model, oursUsage, ours.turns, { right: rightOf(ours.turns) }));
      rows.push(
        row('ours-off', 'ours, caching off (PROMPT_CACHING=off)', model, usage(model, off.requests), off.turns, {
          right: rightOf(off.turns),
        }),
      );
      rows.push(
        row(
          'paste-cached',
          'paste, cached',
          model,
          usage(model, asRequests(pasteAnthropic(prompt, qa, { cache: true }))),
          ours.turns,
        ),
      );
      rows.push(
        row(
          'paste',
          'paste, uncached',
          model,
          usage(model, asRequests(pasteAnthropic(prompt, qa, { cache: false }))),
          ours.turns,
        ),
      );
    } else {
      const pasted = asRequests(pasteOpenAI(prompt, qa, { model }));
      rows.push(
        row('ours', 'ours (prompt_cache_key, automatic caching)', model, oursUsage, ours.turns, {
          right: rightOf(ours.turns),
        }),
      );
      rows.push(
        row(
          'ours-off',
          'ours, no cache hit (same bodies at list price)',
          model,
          usage(model, ours.requests, { cache: false }),
          ours.turns,
        ),
      );
      rows.push(row('paste-cached', 'paste, cached (automatic)', model, usage(model, pasted), ours.turns));
      rows.push(
        row('paste', 'paste, no cache hit (list price)', model, usage(model, pasted, { cache: false }), ours.turns),
      );
    }
    models[model] = rows;
  }
  if (DETAIL.has(name)) printDetail(name, runs, detail);
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
          maxGapMs: r.maxGapMs,
        },
      ]),
    ),
    models,
    detail,
    // Tools + system prompt of our first request: the part cached for every conversation with this catalog.
    toolsAndSystemTokens:
      anthropicBlocks(runs.anthropic.requests[0].body)
        .filter((b) => b.part !== 'messages')
        .at(-1)?.end ?? 0,
    breaks: cacheBreaks(runs.anthropic.requests),
    extraUserBlocks: extraUserBlocks(runs.anthropic.requests),
  };
  clearTokenMemo();
  return result;
}

function printDetail(name, runs, detail) {
  for (const model of MODELS) {
    console.log(`  ${name} · ${PRICES[model].label}, ours, per request (tokens):`);
    console.log('    turn  call             input   cached  written  uncached  output');
    const requests = runs[PRICES[model].provider === 'anthropic' ? 'anthropic' : 'openai'].requests;
    detail[model].forEach((u, i) => {
      const step = requests[i].step;
      const did = 'toolCalls' in step ? step.toolCalls.map((x) => x.name).join('+') : 'answer';
      console.log(
        `    ${String(u.turn + 1).padStart(4)}  ${did.padEnd(15)} ${String(u.input).padStart(7)} ${String(u.cached).padStart(8)} ${String(u.written).padStart(8)} ${String(u.uncached).padStart(9)} ${String(u.output).padStart(7)}`,
      );
    });
  }
}

// ---- the report ----------------------------------------------------------------------------

const find = (c, model, id) => c.models[model].find((r) => r.id === id);
const overWindow = (r, model) => r.maxInput > PRICES[model].contextTokens;

function modelTable(c, model) {
  const p = PRICES[model];
  const ours = find(c, model, 'ours');
  const anthropic = p.provider === 'anthropic';
  const lines = c.models[model].map((r) => {
    const dagger = overWindow(r, model) ? ' †' : '';
    const cells = [
      r.id === 'ours' ? `**${r.label}**` : r.label,
      `${r.id === 'ours' ? `**${usd(r.usd)}**` : usd(r.usd)}${dagger}`,
      fmt(r.inputPerTurn),
      `${fmt(r.cachedPerTurn)} (${fmt(r.inputPerTurn ? (100 * r.cachedPerTurn) / r.inputPerTurn : 0)} %)`,
      ...(anthropic ? [fmt(r.writtenPerTurn)] : []),
      fmt(r.outputPerTurn),
      fmt(r.tripsPerTurn, r.tripsPerTurn % 1 ? 1 : 0),
      r.id === 'ours' ? '1×' : ratio(r.usd / ours.usd),
      r.right ?? 'same answers',
    ];
    return `| ${cells.join(' | ')} |`;
  });
  const head = anthropic
    ? '| | $ per conversation (6 turns) | input tokens per turn | of which cache reads | cache writes per turn | output tokens per turn | model round trips per turn | vs ours | right |\n|---|---|---|---|---|---|---|---|---|'
    : '| | $ per conversation (6 turns) | input tokens per turn | of which cached | output tokens per turn | model round trips per turn | vs ours | right |\n|---|---|---|---|---|---|---|---|';
  return `**${p.label}** (${corpusLabel(c)})\n\n${head}\n${lines.join('\n')}`;
}

const corpusLabel = (c) => c.title.split(':')[0];

function breaksText(c) {
  if (!c.breaks.length) return 'every request only extends the one before it';
  return c.breaks
    .map(
      (b) =>
        `${b.kind} ${b.count}× (${b.boundary === b.count ? 'all at a turn boundary' : `${b.boundary} at a turn boundary`}; the previous request's last ${fmt(b.lostTokens / b.count)} tokens on average no longer a prefix)`,
    )
    .join('; ');
}

/** The longest first request of a turn (the one that should read what the turn before wrote), in tokens. */
const longestFirst = (c, model) =>
  Math.max(...c.detail[model].filter((u, i, all) => i === 0 || all[i - 1].turn !== u.turn).map((u) => u.input));

function notes(r) {
  const out = [];
  const cheaper = r.corpora.flatMap((c) =>
    MODELS.map((model) => ({ c, model, ours: find(c, model, 'ours'), paste: find(c, model, 'paste-cached') })).filter(
      (x) => x.paste.usd < x.ours.usd,
    ),
  );
  const share = (x) => `${fmt(x.inputPerTurn ? (100 * x.cachedPerTurn) / x.inputPerTurn : 0)} %`;
  if (cheaper.length) {
    const corpora = [...new Set(cheaper.map((x) => x.c))];
    out.push(
      `- **Where pasting (cached) is cheaper than ours**: ${cheaper
        .map(
          ({ c, model, ours, paste }) =>
            `${corpusLabel(c)} × ${PRICES[model].label} (${usd(paste.usd)} against ${usd(ours.usd)}; paste ${fmt(paste.inputPerTurn)} input tokens per turn in one round trip, ${share(paste)} cached; ours ${fmt(ours.inputPerTurn)} over ${fmt(ours.tripsPerTurn, ours.tripsPerTurn % 1 ? 1 : 0)} round trips, ${share(ours)} cached)`,
        )
        .join(
          '; ',
        )}. Why: the pasted corpus is a prefix that never changes, so from the second turn on nearly all of it is billed at the cache price (a tenth of the input price for Anthropic reads and gpt-5, a quarter for gpt-4.1), while ours sends fewer tokens, over two round trips a turn (the read, then the answer), and has almost none of them billed as cached: ${corpora
        .map((c) => {
          const first = longestFirst(c, 'claude-sonnet-4-5');
          return `on ${corpusLabel(c)} our tools and system prompt are ${fmt(c.toolsAndSystemTokens)} tokens and the first request of a turn at most ${fmt(first)}${first < OPENAI_CACHE.minTokens ? ', under the 1,024-token minimum of both providers' : ''}`;
        })
        .join(
          '; ',
        )}; the answer step's prompt is longer (it carries the read window) but no later request starts with it, as the next turn replaces that window with a note (read elision), so the service puts no breakpoint after it.`,
    );
  } else out.push('- Pasting (cached) is nowhere cheaper than ours.');
  const anthropicModels = MODELS.filter((k) => PRICES[k].provider === 'anthropic');
  const savings = anthropicModels.map(
    (model) =>
      `${PRICES[model].label}: ${r.corpora
        .map((c) => {
          const on = find(c, model, 'ours').usd;
          const off = find(c, model, 'ours-off').usd;
          if (Math.abs(on - off) < 0.005 * off) return `${corpusLabel(c)} the same`;
          return `${corpusLabel(c)} ${on < off ? `${fmt((100 * (off - on)) / off)} % less` : `**${fmt((100 * (on - off)) / off)} % more**`}`;
        })
        .join(', ')}`,
  );
  const dearer = r.corpora.flatMap((c) =>
    anthropicModels.filter((k) => find(c, k, 'ours').usd > find(c, k, 'ours-off').usd).map((model) => ({ c, model })),
  );
  out.push(
    `- **What caching saves us** (ours with caching on against PROMPT_CACHING=off, same questions): ${savings.join(' · ')}.${
      dearer.length
        ? ` Where it costs more (${dearer
            .map(({ c, model }) => {
              const on = find(c, model, 'ours');
              return `${corpusLabel(c)} × ${PRICES[model].label}: ${fmt(6 * on.writtenPerTurn)} tokens written per conversation, ${fmt(6 * on.cachedPerTurn)} read back; first request of a turn at most ${fmt(longestFirst(c, model))} tokens against a minimum of ${fmt(PRICES[model].minCacheable)}`;
            })
            .join(
              '; ',
            )}), the requests that could read are under the model's minimum cacheable prefix, and the answer steps that are over it write a prompt no later request shares (its read window is elided next turn): writes at 1.25× with nothing read back.`
        : ''
    } The minimum is a threshold on an estimated count (o200k, not Claude's tokenizer): prompts near 1,024 or 4,096 tokens may fall on the other side of it.`,
  );
  out.push(
    `- **What breaks Anthropic's cache in our request sequence** (where a request stops being an extension of the one before it): ${r.corpora.map((c) => `${corpusLabel(c)}: ${breaksText(c)}`).join(' · ')}. The tools and the system prompt never changed between requests${r.corpora.some((c) => c.breaks.some((b) => /tool definitions|system prompt/.test(b.kind))) ? ' except where listed' : ''}; user messages carrying more than the question (catalog entries riding with it): ${sum(r.corpora.map((c) => c.extraUserBlocks))}. Where the prefix is over the minimum, every request reads the entry written at the previous user message (the conversation up to the last question, which the service marks as well as the new one) and writes up to the new question; a read window, elided at the next step or turn, is never written.`,
  );
  out.push(
    `- Within a conversation requests here are at most ${fmt(Math.max(...r.corpora.flatMap((c) => Object.values(c.runs).map((x) => x.maxGapMs))) / 1000, 1)} s apart (the fake model answers at once); a person pausing more than 5 minutes between turns would find Anthropic's entries gone (OpenAI keeps prefixes 5–10 minutes, up to an hour off-peak).`,
  );
  const wrong = r.corpora.flatMap((c) =>
    Object.entries(c.runs).flatMap(([run, x]) => x.turns.flatMap((t, i) => (t.correct ? [] : [{ c, run, i, t }]))),
  );
  if (wrong.length) {
    const byTurn = new Map();
    for (const w of wrong) {
      const k = `${corpusLabel(w.c)} turn ${w.i + 1}`;
      byTurn.set(k, [...(byTurn.get(k) ?? []), w]);
    }
    out.push(
      `- Wrong answers (counted in the cost all the same; the paste rows reuse them): ${[...byTurn.entries()]
        .map(
          ([k, ws]) =>
            `${k} ("${ws[0].t.question}": "${ws[0].t.answer.slice(0, 80)}") in ${ws.map((w) => w.run).join(', ')}`,
        )
        .join('; ')}.`,
    );
  }
  const over = r.corpora.flatMap((c) =>
    MODELS.flatMap((m) => c.models[m].filter((x) => overWindow(x, m)).map((x) => ({ c, m, x }))),
  );
  if (over.length) {
    const byCorpus = [...new Set(over.map((o) => o.c))].map((c) => {
      const ms = [...new Set(over.filter((o) => o.c === c).map((o) => o.m))];
      const max = Math.max(...over.filter((o) => o.c === c).map((o) => o.x.maxInput));
      return `${corpusLabel(c)} pasted (up to ${fmt(max)} tokens per request; over ${ms.map((m) => `${PRICES[m].label}'s ${fmt(PRICES[m].contextTokens)}`).join(', ')})`;
    });
    const longest = Math.max(...over.map((o) => o.x.maxInput));
    out.push(
      `- † Over the model's context window: the provider would reject these requests; priced as if they fit. ${byCorpus.join('; ')}. ${
        longest > 1_000_000
          ? 'Even the 1M-token context of gpt-4.1 and of the Claude Sonnet 4.5 beta is too small for them.'
          : "Claude Sonnet 4.5's 1M-token beta would take them, at its long-context rates (not applied here)."
      }`,
    );
  }
  return out.join('\n');
}

function render(r, m) {
  const summary = r.corpora.flatMap((c) =>
    MODELS.map((model) => {
      const ours = find(c, model, 'ours');
      const cached = find(c, model, 'paste-cached');
      const plain = find(c, model, 'paste');
      const dag = (x) => (overWindow(x, model) ? ' †' : '');
      return `| ${corpusLabel(c)} · ${c.docs} docs · ${kb(c.corpusBytes)} | ${PRICES[model].label} | **${usd(ours.usd)}** | ${usd(cached.usd)}${dag(cached)} | ${usd(plain.usd)}${dag(plain)} | **${ratio(cached.usd / ours.usd)}** | ${ours.right} |`;
    }),
  );
  const priceLine = MODELS.map((k) => {
    const p = PRICES[k];
    return p.provider === 'anthropic'
      ? `${p.label} input $${p.input.toFixed(2)}, cache write (5 min) $${p.cacheWrite.toFixed(2)}, cache read $${p.cacheRead.toFixed(2)}, output $${p.output.toFixed(2)} (minimum cacheable ${fmt(p.minCacheable)} tokens)`
      : `${p.label} input $${p.input.toFixed(2)}, cached input $${p.cacheRead.toFixed(3)}, output $${p.output.toFixed(2)}`;
  });
  const gap = Math.max(...r.corpora.flatMap((c) => Object.values(c.runs).map((x) => x.maxGapMs)));
  const c50 = r.corpora.find((c) => c.name === '50k');
  const perCorpus = r.corpora.map((c) => {
    const body = `${MODELS.map((model) => modelTable(c, model)).join('\n\n')}`;
    return c === c50
      ? `### ${c.title}\n\n${body}`
      : `<details><summary>${c.title}: per model</summary>\n\n${body}\n\n</details>`;
  });
  return `## What a conversation costs: dollars per six-turn conversation, with prompt caching

Command: \`npm run bench:cost\` (bench/cost.mjs) · ${machineLine(m)} · run took ${fmt(r.wallMs / 1000, 0)} s

The conversations of bench:bytes (same corpora, MCP server and fake model; bench/lib/reader-policy.mjs) through the real
service under \`wrangler dev\` (fresh state per run), reached through the real provider packages: Anthropic Messages
(\`MODEL=anthropic:claude-sonnet-4-5\`; the service puts \`cache_control\` on the last system block and on the last block of
the latest two user messages: src/models/prompt-cache.ts), the same with \`PROMPT_CACHING=off\`, and OpenAI Responses (\`MODEL=openai:gpt-4.1\`,
\`prompt_cache_key\` = the conversation id). The fake model records every request body as the package sent it; each is
priced from its tokens (bench/lib/pricing.mjs). **Tokens**: gpt-tokenizer, o200k_base — gpt-4.1's and gpt-5's encoding;
**for Claude an estimate**, as no accurate Claude 3+ tokenizer is published (@anthropic-ai/tokenizer predates Claude 3 and
Anthropic says it is inaccurate for it). Counted: tool definitions (JSON of name, description, schema), system text and
every content block (text; a tool call's name and JSON input; a tool result's text; Responses items likewise, item
references resolved); output = what the fake streamed (the answer, or the tool's name and JSON arguments). **Anthropic's
cache** (docs of 2026-05-04), simulated per run: the prefix runs tools → system → messages, block by block; a breakpoint
writes the prefix through it if it has at least the model's minimum; a request reads the longest entry written earlier
that ends within ${ANTHROPIC_CACHE.lookbackBlocks} blocks before one of its breakpoints and matches its own prefix there (cache marks aside); entries
live 5 minutes from last use (longest gap between two requests of a conversation here: ${fmt(gap / 1000, 1)} s). Billed:
reads at 0.1× the input price, what is written beyond the read at 1.25×, the rest at 1×. The same bodies are priced for
Haiku 4.5. **OpenAI's cache** (automatic): the longest common token prefix with an earlier request of the same
\`prompt_cache_key\`, floored to a multiple of ${OPENAI_CACHE.stepTokens}, if at least ${fmt(OPENAI_CACHE.minTokens)} tokens, at the cached-input price; writes
are free. The same bodies are priced for gpt-5 (its reasoning tokens, billed as output, are not modelled: the fake does
not reason). **Paste, cached** = one request per turn with every document in the system prompt, the conversation so far
with the same answers, the new question, no tools, in each provider's format: Anthropic with breakpoints on the system
prompt and on the last message (a well-configured host), OpenAI as a plain prefix (automatic caching). **Paste,
uncached** = the same without breakpoints (Anthropic); for OpenAI, assuming no cache hit (list price). Prices, USD per
million tokens: ${priceLine.slice(0, 2).join('; ')} (${PRICES['claude-sonnet-4-5'].source}); ${priceLine.slice(2).join('; ')} (${PRICES['gpt-4.1'].source}).

| corpus | model | ours, 6 turns | paste, cached | paste, uncached | paste cached / ours | right (ours) |
|---|---|---|---|---|---|---|
${summary.join('\n')}

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
