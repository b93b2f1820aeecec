// Code over resources benchmark (issue 46): ten analytical questions over large text resources — counts, sums,
// top-k, group-by, joins across two resources — answered three ways, per model on the price cards:
//
// - code: a 10-turn conversation through the real service under `wrangler dev` (the converter Worker beside it: it
//   instruments programs) with RUN_CODE=on; the fake model (bench/lib/fake-model.mjs, reached through the real
//   provider packages) answers each question by calling run_code with the program written for it
//   (bench/lib/code-corpus.mjs), then answers with what the program returned. Right = the <program-output> the model
//   was given parses to exactly the reference answer, and the answer quotes it. Dollars: every request body as sent,
//   priced by bench/lib/pricing.mjs, plus each run at the Dynamic Worker price (src/config/price-cards.ts usdOfRun,
//   its wall time standing for its CPU time: an upper bound).
// - windowed: RUN_CODE=off, the fake model reads the question's resources window after window with read_resource (as
//   a model must today to count exactly) in a fresh conversation per question, under the service's default per-turn
//   limits (MAX_STEPS, MAX_RESOURCE_BYTES_PER_TURN): measured, how far it got. Extrapolated, the floor of reading
//   every window: each window's own tokens sent once at the input price, plus the measured first request (system
//   prompt, tools, question) once and then cached per round trip, plus a read call's output per window.
// - paste: the question's resources pasted into a cached system prompt, one request (pricing.mjs's paste bodies,
//   the cheaper lifetime) — where it fits the model's context window; else "does not fit". Its answer is not checked:
//   the model would count in its head.
// - run CPU: on the 50,000-row CSV with the read cached (the same question asked before in the conversation),
//   workerd's CPU (/proc schedstat) around a turn that runs the program, minus a turn that answers without a tool
//   (the same conversation), median of BENCH_CODE_REPEATS; the run's own wallMs and steps from the tool output.
//
//   npm run bench:code
//   BENCH_CODE=quick npm run bench:code                   # Sonnet 5.5 and gpt-6.1-terra only
//   BENCH_CODE_MODELS=claude-haiku-5-5 BENCH_CODE_WRITE=0 npm run bench:code
//   BENCH_CODE_FROM=run.log npm run bench:code            # re-render a saved run's BENCH_RESULT line
//   BENCH_CODE_REPEATS=9 BENCH_CODE_SETTLE_MS=300 npm run bench:code   # more CPU samples, more quiet time around each
//
// On a shared machine the CPU medians move between runs (other processes, and the garbage collections of the
// conversation's isolate, which holds megabytes of cached text, land in one turn or another): read the ranges.
//
// Ports (127.0.0.1): wrangler dev BENCH_CODE_PORT (8960), its inspector +1, the fake model +2, the MCP server +3.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { usdOfRun } from '../src/config/price-cards.ts';
import { catalog, createConversation, runTurn } from './lib/client.mjs';
import { codeCorpus } from './lib/code-corpus.mjs';
import { startCorpusServer } from './lib/corpus-server.mjs';
import { contentText, startFakeModel, withItems } from './lib/fake-model.mjs';
import {
  benchModels,
  bill,
  dollars,
  modelVars,
  outputTokens,
  pasteAnthropic,
  pasteOpenAI,
  pastePrompt,
  PRICES,
  tokens,
  ttlsOf,
  usageUnderCard,
} from './lib/pricing.mjs';
import { continuation } from './lib/reader-policy.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { cpuOf, NO_LIMITS, startWrangler } from './lib/stack.mjs';

const env = process.env;
const QUICK = env.BENCH_CODE === 'quick';
const PORT = Number(env.BENCH_CODE_PORT ?? 8960);
const WRITE = env.BENCH_CODE_WRITE !== '0';
const REPEATS = Number(env.BENCH_CODE_REPEATS ?? 5);
/** Quiet time around each measured turn (ms): a turn's own background work is counted, the one before is not. */
const SETTLE_MS = Number(env.BENCH_CODE_SETTLE_MS ?? 150);
/** The service's defaults (src/config/settings.ts): the windowed reading runs under them. */
const WINDOW_CHARS = 24_000;
const MAX_STEPS = 8;
const MAX_RESOURCE_BYTES_PER_TURN = 10 * 1024 * 1024;

const MODELS = benchModels(env.BENCH_CODE_MODELS, QUICK);

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};
const providerOf = (model) => PRICES[model].provider;
const STEP_LIMIT_NOTE = /^You have used all \d+ tool steps of this turn/;
const PROGRAM_BLOCK = /<program-output calls="(\d+)" read="([^"]*)">\n([\s\S]*?)\n<\/program-output>/;

// ---- the fake model's policy --------------------------------------------------------------------

/**
 * What the fake model does, by `plan.mode`: `code` — call run_code with the question's program (or
 * `plan.program(q)`), then answer with its output; `windowed` — read the question's resources in order, window after
 * window, until the service stops offering tools, then say how far it got. A message that is no question of the
 * corpus is answered without a tool (the CPU baseline).
 */
function createPolicy(questions, plan) {
  return function decide(body) {
    const messages = body.messages ?? [];
    // The person's message: not the note the service adds in the step past MAX_STEPS (turn/stream.ts stepLimitNote).
    const lastUser = messages.findLastIndex((m) => m.role === 'user' && !STEP_LIMIT_NOTE.test(contentText(m.content)));
    const said = contentText(messages[lastUser]?.content);
    const q = questions.find((x) => said.includes(x.text));
    if (!q) return { text: 'Hello: ask me about the log, the handbook or the orders.' };
    const offered = new Set((body.tools ?? []).map((t) => t.function?.name ?? t.name));
    const calls = new Map();
    for (const m of messages.slice(lastUser))
      for (const c of m.tool_calls ?? [])
        calls.set(c.id, { name: c.function.name, args: JSON.parse(c.function.arguments || '{}') });
    const results = messages
      .slice(lastUser)
      .filter((m) => m.role === 'tool')
      .map((m) => ({ ...calls.get(m.tool_call_id), text: contentText(m.content) }));
    const last = results.at(-1);
    if (plan.mode === 'code') {
      if (last?.name === 'run_code') {
        const block = PROGRAM_BLOCK.exec(last.text);
        return { text: block ? `The program's answer: ${block[3]}` : `The program failed: ${last.text.slice(0, 300)}` };
      }
      if (!offered.has('run_code')) return { text: 'I cannot run a program here (run_code is not offered).' };
      return { toolCalls: [{ name: 'run_code', args: { code: plan.program?.(q) ?? q.program } }] };
    }
    if (offered.has('read_resource')) {
      if (!last) return { toolCalls: [{ name: 'read_resource', args: { uri: q.uris[0] } }] };
      const next = last.name === 'read_resource' ? continuation(last.text) : undefined;
      if (next) return { toolCalls: [{ name: 'read_resource', args: next }] };
      const after = q.uris[q.uris.indexOf(last.args?.uri) + 1];
      if (after) return { toolCalls: [{ name: 'read_resource', args: { uri: after } }] };
      return { text: 'I read every window; I would now count in my head.' };
    }
    return { text: 'I could read only part of the data in this turn, and cannot count exactly from part of it.' };
  };
}

// ---- the service --------------------------------------------------------------------------------

function vars(server, model, extra) {
  return {
    MCP_SERVERS: JSON.stringify([{ id: 'data', url: server.url('code') }]),
    AUTH_DISABLED: 'true',
    ALLOW_PRIVATE_MCP_URLS: 'true',
    ...NO_LIMITS,
    ...modelVars(model, `http://127.0.0.1:${PORT + 2}/v1`),
    ...extra,
  };
}

const start = (server, model, extra) =>
  startWrangler({ port: PORT, inspectorPort: PORT + 1, vars: vars(server, model, extra) });

/** One turn, with the requests the fake model got for it (bodies as the provider bills them). */
async function turn(w, id, fake, text, index) {
  const from = fake.requests.length;
  const t = await runTurn(w.base, id, text);
  const requests = fake.requests.slice(from).map((r) => ({
    turn: index,
    at: r.at,
    step: r.step,
    chat: r.chat,
    body: r.api === 'responses' ? withItems(r.body, fake) : r.body,
  }));
  return { ...t, requests };
}

/** The run_code result the model was given in this turn (the last request's tool message), parsed. */
function programAnswer(requests) {
  const chat = requests.at(-1)?.chat;
  const messages = chat?.messages ?? [];
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  const result = messages.slice(lastUser).findLast((m) => m.role === 'tool');
  const block = result && PROGRAM_BLOCK.exec(contentText(result.content));
  if (!block) return { error: contentText(result?.content ?? '').slice(0, 300) || 'no run_code result' };
  try {
    return { value: JSON.parse(block[3]), text: block[3] };
  } catch {
    return { error: `not JSON: ${block[3].slice(0, 200)}` };
  }
}

/** The ten questions in one conversation with RUN_CODE=on; for `cpu`, then the run-CPU measurement. */
async function codeRun(fake, server, plan, model, { cpu }) {
  const { questions } = codeCorpus();
  const w = await start(server, model, { RUN_CODE: 'on' });
  plan.mode = 'code';
  try {
    const id = await createConversation(w.base);
    await catalog(w.base, id);
    const turns = [];
    for (const [i, q] of questions.entries()) {
      const t = await turn(w, id, fake, q.text, i);
      const got = programAnswer(t.requests);
      const run = t.outputs.find((o) => o.name === 'run_code')?.output;
      const right = !got.error && isDeepStrictEqual(got.value, q.expect) && t.answer.includes(got.text);
      turns.push({
        id: q.id,
        ms: t.ms,
        right,
        got: got.error ?? got.text.replace(/\s+/g, ' ').slice(0, 200),
        run: run && { wallMs: run.wallMs, steps: run.steps, bytes: run.bytes, calls: run.calls.length },
        requests: t.requests,
        problems: t.problems,
      });
      console.log(
        `  code · ${model} · ${q.id}: ${t.requests.length} requests · ${right ? 'right' : `WRONG (${turns.at(-1).got})`} · run ${run?.wallMs ?? '?'} ms wall, ${run?.steps ?? '?'} steps${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
    return { turns, cpu: cpu ? await runCpu(w, fake, server, plan) : undefined };
  } finally {
    await w.stop();
  }
}

/**
 * The run's CPU on the 50,000-row CSV with its read cached: in a fresh conversation the question is asked once (the
 * read reaches the server or the service's cache), then REPEATS times each: the question (its program, and the same
 * answer written for speed) and a message answered without a tool. Run CPU = median turn with the run − median turn
 * without (which leaves in the run's one extra model round trip: an upper bound).
 */
async function runCpu(w, fake, server, plan) {
  const q = codeCorpus().questions.find((x) => x.fastProgram);
  const loadBefore = os.loadavg()[0];
  const id = await createConversation(w.base);
  let n = 100;
  const ask = (text) => turn(w, id, fake, text, n++);
  await ask(q.text);
  const readsBefore = server.reads().code;
  const programs = { program: (x) => x.program, fast: (x) => x.fastProgram, empty: () => 'return { ok: true };' };
  const measured = { program: [], fast: [], empty: [], baseline: [] };
  const runs = { program: [], fast: [], empty: [] };
  for (let i = 0; i < REPEATS; i++) {
    measured.baseline.push((await cpuOf(w, () => ask('Hello, what can you do?'), { settleMs: SETTLE_MS })).ms);
    for (const kind of Object.keys(programs)) {
      plan.program = programs[kind];
      const { ms, result } = await cpuOf(w, () => ask(q.text), { settleMs: SETTLE_MS });
      const got = programAnswer(result.requests);
      const expect = kind === 'empty' ? { ok: true } : q.expect;
      if (!isDeepStrictEqual(got.value, expect)) throw new Error(`cpu: ${kind} answered ${got.error ?? got.text}`);
      measured[kind].push(ms);
      runs[kind].push(result.outputs.find((o) => o.name === 'run_code').output);
    }
  }
  plan.program = undefined;
  const baseline = median(measured.baseline);
  const empty = median(measured.empty);
  const of = (kind) => ({
    turnMs: median(measured[kind]),
    runMs: median(measured[kind]) - baseline,
    spread: [Math.min(...measured[kind]), Math.max(...measured[kind])].map((x) => x - baseline),
    workMs: median(measured[kind]) - empty,
    wallMs: median(runs[kind].map((r) => r.wallMs)),
    steps: median(runs[kind].map((r) => r.steps)),
  });
  const result = {
    question: q.id,
    baselineMs: baseline,
    emptyMs: empty,
    program: of('program'),
    fast: of('fast'),
    empty: of('empty'),
  };
  result.serverReads = server.reads().code - readsBefore;
  result.load = [loadBefore, os.loadavg()[0]];
  for (const kind of ['program', 'fast'])
    result[kind].plainMs = median(
      Array.from({ length: 3 }, () => plainNodeCpu(kind === 'fast' ? 'fastProgram' : 'program')),
    );
  result.cores = os.cpus().length;
  console.log(`  cpu: ${JSON.stringify(result)}`);
  return result;
}

/**
 * CPU (ms) of `which` program of the CPU question (`program` | `fastProgram`) run once in a fresh Node process, with
 * no sandbox and no step counts: what the program itself costs in V8, against which the run in workerd is read.
 */
function plainNodeCpu(which) {
  const script = `import { codeCorpus } from ${JSON.stringify(new URL('./lib/code-corpus.mjs', import.meta.url).href)};
const c = codeCorpus();
const q = c.questions.find((x) => x.fastProgram);
const resources = { read: async ({ uri }) => c.docs.find((d) => d.uri === uri).text };
const run = new (async () => {}).constructor('resources', q[${JSON.stringify(which)}]);
const before = process.cpuUsage();
await run(resources);
const u = process.cpuUsage(before);
console.log((u.user + u.system) / 1000);`;
  return Number(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim());
}

/** Each question in a conversation of its own with RUN_CODE=off: the model reads window after window. */
async function windowedRun(fake, server, plan, model) {
  const { questions } = codeCorpus();
  const w = await start(server, model, { RUN_CODE: 'off' });
  plan.mode = 'windowed';
  try {
    const out = [];
    for (const q of questions) {
      const id = await createConversation(w.base);
      const t = await turn(w, id, fake, q.text, 0);
      const windows = t.outputs.filter((o) => o.name === 'read_resource').length;
      out.push({
        id: q.id,
        ms: t.ms,
        windows,
        answer: t.answer.slice(0, 200),
        stepLimit: !!t.metadata?.stepLimitReached,
        requests: t.requests,
        problems: t.problems,
      });
      console.log(
        `  windowed · ${model} · ${q.id}: ${windows} windows in ${t.requests.length} requests · "${t.answer.slice(0, 90)}"${t.problems.length ? ` · ${t.problems.join('; ')}` : ''}`,
      );
    }
    return out;
  } finally {
    await w.stop();
  }
}

// ---- pricing ------------------------------------------------------------------------------------

const windowTokens = new Map();
/** Tokens of each read window of a resource (its text cut every WINDOW_CHARS characters), memoised per URI. */
function windowsOf(uri) {
  if (!windowTokens.has(uri)) {
    const text = codeCorpus().docs.find((d) => d.uri === uri).text;
    const out = [];
    for (let at = 0; at < text.length; at += WINDOW_CHARS) out.push(tokens(text.slice(at, at + WINDOW_CHARS)));
    windowTokens.set(uri, out);
  }
  return windowTokens.get(uri);
}

/** Per turn of a conversation: its dollars and tokens under `model`'s card (the cache follows the whole conversation). */
function perTurn(model, requests) {
  const rows = usageUnderCard(model, requests);
  const out = new Map();
  rows.forEach((u, i) => {
    const t = out.get(requests[i].turn) ?? { usd: 0, input: 0, cached: 0, output: 0, requests: 0 };
    t.usd += dollars(u, PRICES[model]);
    t.input += u.input;
    t.cached += u.cached;
    t.output += u.output;
    t.requests++;
    out.set(requests[i].turn, t);
  });
  return out;
}

function priceModel(model, code, windowed) {
  const { questions, docs } = codeCorpus();
  const p = PRICES[model];
  const codeTurns = perTurn(
    model,
    code.turns.flatMap((t) => t.requests),
  );
  return questions.map((q, i) => {
    const c = code.turns[i];
    const ct = codeTurns.get(i);
    const runUsd = c.run ? usdOfRun(c.run.wallMs) : 0;
    const wn = windowed[i];
    const measured = bill(model, wn.requests);
    // The floor of reading every window: the first request (system, tools, question) once at full price and then
    // cached on every round trip, each window's tokens once at the input price, a read call's output per window.
    const first = usageUnderCard(model, wn.requests.slice(0, 1))[0];
    const readCall = outputTokens(wn.requests[0].step);
    const perWindow = q.uris.flatMap(windowsOf);
    const n = perWindow.length;
    const floor = {
      windows: n,
      requests: n + 1,
      input: (n + 1) * first.input + sum(perWindow),
      usd:
        (first.input * p.input +
          n * first.input * p.cacheRead +
          sum(perWindow) * p.input +
          (n * readCall + 40) * p.output) /
        1e6,
      ms: (wn.ms / wn.requests.length) * (n + 1),
      /** What the per-trip prefix (cached) adds: the most that reading several windows per round trip could save. */
      prefixUsd: (n * first.input * p.cacheRead) / 1e6,
    };
    const pasteTokens = sum(perWindow) + first.input;
    let paste;
    if (pasteTokens > p.contextTokens) paste = { fits: false, input: pasteTokens };
    else {
      const prompt = pastePrompt(
        q.uris.map((u) => docs.find((d) => d.uri === u)),
        'data',
      );
      const qa = [{ question: q.text, answer: JSON.stringify(q.expect) }];
      const bodies = (ttl) =>
        providerOf(model) === 'anthropic'
          ? pasteAnthropic(prompt, qa, { cache: true, model, ttl })
          : pasteOpenAI(prompt, qa, { model, ttl });
      paste = {
        fits: true,
        ...ttlsOf(model)
          .map((ttl) => bill(model, [{ body: bodies(ttl)[0], at: Date.now(), turn: 0, step: { text: qa[0].answer } }]))
          .sort((a, b) => a.usd - b.usd)[0],
      };
    }
    return {
      id: q.id,
      text: q.text,
      sizes: q.uris.map((u) => docs.find((d) => d.uri === u).size),
      expect: JSON.stringify(q.expect),
      code: { ...ct, modelUsd: ct.usd, runUsd, usd: ct.usd + runUsd, ms: c.ms, right: c.right, got: c.got, run: c.run },
      windowed: {
        measured: { ...measured, windows: wn.windows, ms: wn.ms, answer: wn.answer, stepLimit: wn.stepLimit },
        floor,
      },
      paste,
    };
  });
}

// ---- the report ---------------------------------------------------------------------------------

const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const usd = (x) => (!Number.isFinite(x) ? 'n/a' : x < 0.1 ? `$${x.toFixed(4)}` : `$${x.toFixed(2)}`);
const ratio = (x) => (!Number.isFinite(x) ? 'n/a' : x >= 10 ? `${fmt(x, 0)}×` : `${fmt(x, 1)}×`);
const kb = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)} MB` : `${fmt(x / 1000, 0)} KB`);
const ktok = (x) => (x >= 1e6 ? `${fmt(x / 1e6, 2)}M` : x >= 10_000 ? `${fmt(x / 1000, 0)}k` : fmt(x));
const secs = (ms) => (ms >= 10_000 ? `${fmt(ms / 1000, 0)} s` : `${fmt(ms / 1000, 1)} s`);

function summaryTable(r) {
  const rows = r.models.map(({ model, questions: qs }) => {
    const code = {
      usd: sum(qs.map((q) => q.code.usd)),
      runs: sum(qs.map((q) => q.code.runUsd)),
      input: sum(qs.map((q) => q.code.input)),
      requests: sum(qs.map((q) => q.code.requests)),
      ms: sum(qs.map((q) => q.code.ms)),
      right: qs.filter((q) => q.code.right).length,
    };
    const floor = {
      usd: sum(qs.map((q) => q.windowed.floor.usd)),
      input: sum(qs.map((q) => q.windowed.floor.input)),
      requests: sum(qs.map((q) => q.windowed.floor.requests)),
      ms: sum(qs.map((q) => q.windowed.floor.ms)),
    };
    const m = qs.map((q) => q.windowed.measured);
    const fit = qs.filter((q) => q.paste.fits);
    return `| ${PRICES[model].label} | **${usd(code.usd)}** (runs ${usd(code.runs)}) · ${ktok(code.input)} in · ${code.requests} · ${secs(code.ms)} | **${code.right}/${qs.length}** | ${usd(floor.usd)} · ${ktok(floor.input)} in · ${fmt(floor.requests)} · ${secs(floor.ms)} | ${usd(sum(m.map((x) => x.usd)))} · ${sum(m.map((x) => x.windows))} of ${fmt(sum(qs.map((q) => q.windowed.floor.windows)))} windows · ${sum(m.map((x) => x.requests))} · ${secs(sum(m.map((x) => x.ms)))} · 0/${qs.length} answered | ${fit.length ? `${usd(sum(fit.map((q) => q.paste.usd)))} for the ${fit.length} that fit` : '—'}; ${qs.length - fit.length} do not fit | **${ratio(floor.usd / code.usd)}** |`;
  });
  return `| model | code: $ (of which runs) · input tokens · round trips · wall | code right | windowed, every window (extrapolated floor): $ · input tokens · round trips · wall | windowed as run (measured, default limits) | paste (one cached request per question) | windowed floor / code |
|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

function questionTable(x) {
  const rows = x.questions.map(
    (q, i) =>
      `| ${i + 1}. ${q.text} | ${q.sizes.map(kb).join(' + ')} | \`${q.expect.length > 90 ? `${q.expect.slice(0, 87)}…` : q.expect}\` | ${usd(q.code.usd)} · ${ktok(q.code.input)} · ${q.code.requests} · ${secs(q.code.ms)} | ${q.code.run ? `${fmt(q.code.run.wallMs)} ms · ${fmt(q.code.run.steps)} steps · ${kb(q.code.run.bytes)}` : 'no run'} | ${q.code.right ? 'yes' : `**no**: ${q.code.got}`} | ${fmt(q.windowed.floor.windows)} · ${usd(q.windowed.floor.usd)} · ${ktok(q.windowed.floor.input)} | ${q.windowed.measured.windows} windows · ${usd(q.windowed.measured.usd)} · no | ${q.paste.fits ? `${usd(q.paste.usd)} · ${ktok(q.paste.input)}` : `does not fit (${ktok(q.paste.input)})`} | ${ratio(q.windowed.floor.usd / q.code.usd)} |`,
  );
  return `| question | resources | exact answer | code: $ · input tokens · round trips · wall | the run: wall · steps · read | right | windowed: windows · floor $ · input tokens | windowed as run: read · $ · answered | paste: $ · input tokens | floor / code |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}`;
}

function cpuText(c) {
  if (!c) return '(not measured in this run)';
  const row = (label, x, work = true) =>
    `| ${label} | ${fmt(x.turnMs, 1)} ms | **${fmt(x.runMs, 1)} ms** (${fmt(x.spread[0], 1)}–${fmt(x.spread[1], 1)}) | ${work ? `**${fmt(x.workMs, 1)} ms**` : '—'} | ${fmt(x.wallMs)} ms | ${fmt(x.steps)} | ${x.plainMs === undefined ? '—' : `${fmt(x.plainMs, 1)} ms`} |`;
  return `| program (question "${c.question}") | turn with the run, workerd CPU (median of ${REPEATS}) | the run: minus a turn without a tool (${fmt(c.baselineMs, 1)} ms; range) | the program's own work: minus a turn running an empty program (${fmt(c.emptyMs, 1)} ms) | the run's wallMs | steps | the same program in a fresh Node process, no sandbox, no step counts (CPU, median of 3) |
|---|---|---|---|---|---|---|
${row('as written for the question (an array per row)', c.program)}
${row('the same answer written for speed (a scan, no array per row)', c.fast)}
${row('an empty program (`return { ok: true }`: instrumenting, the load, a round trip)', c.empty, false)}

${c.program.plainMs === undefined ? '' : `The program as written costs ${fmt(c.program.plainMs, 1)} ms of CPU on its own in plain Node (no sandbox, no step counts): its 50,000 arrays (a \`split\` per row) and their garbage are the cost, not the sandbox, whose share (one more model round trip included) is the empty program's ${fmt(c.empty.runMs, 1)} ms. Written as a scan it needs ${fmt(c.fast.plainMs, 1)} ms there.\n\n`}Reads that reached the MCP server during the measured turns: ${c.serverReads} (0: every read came from the service's cache).${c.load ? ` The machine was shared: load average ${c.load.map((x) => fmt(x, 1)).join(' → ')} on ${c.cores} cores over the measurement, so single turns vary (the ranges); the medians are the figures.` : ''}`;
}

function targets(r) {
  const lines = [];
  const check = (label, rows, note = '') => {
    const missed = rows.filter((x) => !x.ok);
    lines.push(
      `- ${label}: ${missed.length ? `**missed** on ${missed.map((x) => x.where).join(', ')} (met on ${rows.length - missed.length} of ${rows.length})` : `**met** (${rows.map((x) => x.where).join(', ')})`}${note}.`,
    );
  };
  check(
    'every answer right (code)',
    r.models.map((x) => ({
      where: `${PRICES[x.model].label} ${x.questions.filter((q) => q.code.right).length}/${x.questions.length}`,
      ok: x.questions.every((q) => q.code.right),
    })),
  );
  check(
    '≥ 50× cheaper than windowed reading on the 5 MB log (per question, against the floor of reading every window)',
    r.models.flatMap((x) =>
      x.questions
        .filter((q) => q.id.startsWith('log-'))
        .map((q) => ({
          where: `${PRICES[x.model].label} ${q.id} ${ratio(q.windowed.floor.usd / q.code.usd)}`,
          ok: q.windowed.floor.usd >= 50 * q.code.usd,
        })),
    ),
  );
  const logRatios = r.models.map((x) => {
    const log = x.questions.filter((q) => q.id.startsWith('log-'));
    return `${PRICES[x.model].label} ${ratio(sum(log.map((q) => q.windowed.floor.usd)) / sum(log.map((q) => q.code.usd)))}`;
  });
  lines.push(
    `  Over the three log questions together (question 1's cache write shared): ${logRatios.join(', ')}. The run's own price ($0.002 a Dynamic Worker load) is ${r.models.map((x) => `${fmt((100 * sum(x.questions.map((q) => q.code.runUsd))) / sum(x.questions.map((q) => q.code.usd)))} %`).join(', ')} of the code column's dollars (${r.models.map((x) => PRICES[x.model].label).join(', ')}).`,
  );
  if (r.cpu)
    check(
      'a run ≤ 50 ms CPU on the 50,000-row CSV with the reads cached',
      [
        { where: `as written, the whole run ${fmt(r.cpu.program.runMs, 1)} ms`, ok: r.cpu.program.runMs <= 50 },
        { where: `as written, its own work ${fmt(r.cpu.program.workMs, 1)} ms`, ok: r.cpu.program.workMs <= 50 },
        { where: `written for speed, the whole run ${fmt(r.cpu.fast.runMs, 1)} ms`, ok: r.cpu.fast.runMs <= 50 },
        { where: `written for speed, its own work ${fmt(r.cpu.fast.workMs, 1)} ms`, ok: r.cpu.fast.workMs <= 50 },
      ],
      r.cpu.serverReads ? ` (but ${r.cpu.serverReads} reads reached the server)` : '',
    );
  return lines.join('\n');
}

/** The share (%) of the windowed floor's dollars that is the cached prefix resent on every round trip. */
const prefixShare = (r) => {
  const qs = r.models.flatMap((x) => x.questions);
  return (100 * sum(qs.map((q) => q.windowed.floor.prefixUsd ?? 0))) / sum(qs.map((q) => q.windowed.floor.usd));
};

function render(r, m) {
  const { docs } = codeCorpus();
  const cards = r.models.map(({ model }) => {
    const p = PRICES[model];
    return `${p.label} input $${p.input}, cache read $${p.cacheRead}${p.cacheWrite ? `, cache write $${p.cacheWrite}` : ''}, output $${p.output}, context ${fmt(p.contextTokens)}`;
  });
  const first = r.models[0];
  const others = r.models
    .slice(1)
    .map(
      (x) => `<details><summary>${PRICES[x.model].label}: per question</summary>\n\n${questionTable(x)}\n\n</details>`,
    );
  return `## Issue 46, code over resources: ten analytical questions — a program, windowed reading, or pasting

Command: \`npm run bench:code\`${r.quick ? ' (BENCH_CODE=quick)' : ''} (bench/code.mjs) · ${machineLine(m)} · run took ${fmt(r.wallMs / 1000)} s

The corpus (bench/lib/code-corpus.mjs, made by code from fixed seeds), served as text resources by one MCP server
(bench/lib/corpus-server.mjs): ${docs.map((d) => `${d.title} (${d.mimeType}, ${kb(d.size)}, ${fmt(Math.ceil(d.text.length / WINDOW_CHARS))} read windows)`).join('; ')}.
The log is bench:bytes' 5 MB log; the handbook is bench:bytes' 500 KB corpus as 39 chapters of one file; the orders
(50,000 rows) join the customers on customer_id. Ten questions (3 on the log, 3 on the orders, 2 joining orders and
customers, 2 on the handbook), each with its exact answer computed by the bench from the generated rows (CSV) or a
regex pass over the text (log, handbook) — not by the programs.

- **Code**: one 10-question conversation per model through the real service under \`wrangler dev\` (with the converter
  Worker, which instruments programs; fresh state), RUN_CODE=on; the fake model (reached through the real provider
  packages) calls \`run_code\` with the program written for the question (it reads with \`resources.read\` and
  computes), then answers with the program's output. **Right** = the \`<program-output>\` in the tool result the model
  was given parses to exactly the reference answer, and the answer quotes it. Dollars: every request body as sent,
  priced from its tokens under the provider's cache rules (bench/lib/pricing.mjs; o200k_base, for Claude an estimate),
  plus each run at the Dynamic Worker price (${'$'}0.002 a load, src/config/price-cards.ts \`usdOfRun\`, its wall time
  taken as its CPU time: an upper bound). Wall time: the service's (the fake model answers at once; a real model adds
  its latency to every round trip).
- **Windowed**: RUN_CODE=off, a fresh conversation per question; the fake model reads the question's resources window
  after window (\`read_resource\`, ${fmt(WINDOW_CHARS)} characters a window) — the only way to count exactly without a
  program. Under the service's default limits (MAX_STEPS = ${MAX_STEPS} tool steps a turn; MAX_RESOURCE_BYTES_PER_TURN =
  ${fmt(MAX_RESOURCE_BYTES_PER_TURN / 1024 / 1024)} MiB, which would allow ${fmt(Math.floor(MAX_RESOURCE_BYTES_PER_TURN / WINDOW_CHARS))} windows) it
  reads ${[...new Set(r.models.flatMap((x) => x.questions.map((q) => q.windowed.measured.windows)))].join(' or ')} windows and stops: it never has the data to answer (**measured**). **Every window** is
  extrapolated, as a floor: each window's own tokens sent once at the input price, the measured first request (system
  prompt, tools, question) once and then at the cache-read price per round trip, a read call's output per window — no
  loop reading one window a round trip can read every window for less (several windows a round trip would save part of
  the cached prefix's ${fmt(prefixShare(r))} % of it). The measured requests show the service close to it: each request carries
  the newest window only (the largest measured request: ${ktok(Math.max(...r.models.flatMap((x) => x.questions.map((q) => q.windowed.measured.maxInput))))} tokens).
  Wall time scaled from the measured per-request time.
- **Paste**: the question's resources in a cached system prompt, one request (the cheaper cache lifetime), where it
  fits the model's context window; its answer is not checked (the model would count in its head).

Prices, USD per million tokens (src/config/price-cards.ts): ${cards.join('; ')}.

${summaryTable(r)}

Question 1 carries the conversation's first request, which writes the system prompt and the tool definitions to the
cache (about ${ktok(first.questions[0].code.input / 2)} tokens a request): the later questions read them from it.

Per question, ${PRICES[first.model].label}:

${questionTable(first)}

${others.join('\n\n')}

**Run CPU** on the 50,000-row orders CSV with its read cached (${PRICES[r.cpuModel ?? first.model]?.label ?? ''} conversation; the question asked
once before the measured turns): workerd CPU under \`wrangler dev\` (/proc schedstat; the service, the converter that
instruments the program and the Dynamic Worker all run in it) around a turn that runs the program, minus a turn of
the same conversation answered without a tool. The difference holds the instrumenting, the load of the Dynamic
Worker, the run, and one more model round trip (the run's result goes back to the model): an upper bound of the run.
Against a turn running an empty program, what is left is the program's own work: its cached 2.5 MB read handed
to the Dynamic Worker, and its computation.

${cpuText(r.cpu)}

**Targets** (issue 46):
${targets(r)}
`;
}

// ---- main ---------------------------------------------------------------------------------------

const m = machine();
let result;
if (env.BENCH_CODE_FROM) {
  const line = readFileSync(env.BENCH_CODE_FROM, 'utf8').match(/^BENCH_RESULT code (\{.*\})$/m);
  if (!line) throw new Error(`no BENCH_RESULT code line in ${env.BENCH_CODE_FROM}`);
  result = JSON.parse(line[1]);
  m.date = result.measured;
} else {
  const started = performance.now();
  const corpus = codeCorpus();
  const plan = { mode: 'code', program: undefined };
  const server = await startCorpusServer({ port: PORT + 3, names: ['code'], corpusOf: () => corpus });
  const fake = await startFakeModel({ port: PORT + 2, decide: createPolicy(corpus.questions, plan), keepBodies: true });
  const models = [];
  let cpu;
  const failed = [];
  try {
    for (const [i, model] of MODELS.entries()) {
      console.log(`code: ${model}, code …`);
      const code = await codeRun(fake, server, plan, model, { cpu: i === 0 });
      cpu ??= code.cpu;
      console.log(`code: ${model}, windowed …`);
      const windowed = await windowedRun(fake, server, plan, model);
      failed.push(...[...code.turns, ...windowed].flatMap((t) => t.problems.map((p) => `${model} ${t.id}: ${p}`)));
      models.push({ model, questions: priceModel(model, code, windowed) });
      fake.reset();
    }
  } finally {
    await fake.close();
    await server.close();
  }
  result = {
    measured: m.date,
    quick: QUICK,
    models,
    cpu,
    cpuModel: MODELS[0],
    failed,
    wallMs: Math.round(performance.now() - started),
  };
  console.log(`BENCH_RESULT code ${JSON.stringify(result)}`);
}
const section = render(result, m);
console.log(`\n${section}`);
if (result.failed.length) console.error(`code: some turns failed:\n${result.failed.join('\n')}`);
if (WRITE && result.failed.length) console.error('code: BENCHMARKS.md left as it was');
else if (WRITE) writeSection('BENCHMARKS.md', 'bench-code', section);
process.exit(result.failed.length ? 1 : 0);
