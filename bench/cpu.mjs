// CPU benchmark: workerd CPU per turn of our service next to a floor Worker
// (bench/floor: the same turn done as plainly as the AI SDK allows), both
// under `wrangler dev` on this machine, both talking to the same scripted
// fake model (bench/lib/scripted-turn.mjs). Other processes share the cores,
// so the two are measured in alternation (A B A B …, the order flipped each
// round) and the report gives medians and spreads across rounds.
//
//   npm run bench:cpu                              # CPU_ROUNDS=8, CPU_WARMUP=2, CPU_STARTS=3
//   CPU_ROUNDS=3 CPU_STARTS=1 CPU_WRITE=0 npm run bench:cpu   # a quick check, BENCHMARKS.md untouched
//   CPU_PROFILE=1 npm run bench:cpu                # also print V8 CPU profiles of both (set-up, steady, long); both unminified
//   CPU_NODE=0 npm run bench:cpu                   # without the set-up against an MCP server outside our workerd
//   CPU_BUDGETS=0 npm run bench:cpu                # without ours with budgets in force (a reservation per model request)
//
// CPU is read from /proc (schedstat, ns; the 10 ms ticks of /proc/<pid>/stat
// as a cross-check), summed over both workerd processes of a wrangler (its
// proxy and the Worker's). See meter() for what a turn is charged with.
//
// Ports (8820–8839): ours 8820 (inspector 8821), floor 8822 (8823), fake model 8824; ours against the
// guidelines server in Node (bench/lib/guidelines-server.mjs, 8829) spoken in 2026-07-28 8825 (8826) and
// in 2025-11-25 8827 (8828); ours with budgets in force 8830 (8831).
import { createConversation, deleteConversation, runTurn } from './lib/client.mjs';
import { devBundle, profiler } from './lib/cpu-profile.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { startGuidelinesServer } from './lib/guidelines-server.mjs';
import { decide, LONG_ANSWER, LONG_MARK, LONG_TOKENS, STEADY_ANSWER } from './lib/scripted-turn.mjs';
import { startWrangler, NO_LIMITS } from './lib/stack.mjs';
import { readFileSync } from 'node:fs';
import os from 'node:os';

const ROUNDS = Number(process.env.CPU_ROUNDS ?? 8);
const STARTS = Number(process.env.CPU_STARTS ?? 3);
/** Unrecorded rounds first: V8 keeps optimising ours' larger code for many turns. */
const WARMUP = Number(process.env.CPU_WARMUP ?? 2);
const PROFILE = process.env.CPU_PROFILE === '1';
const WRITE = process.env.CPU_WRITE !== '0';
/** Per round and side: SETUP new conversations (create + first turn), then STEADY_PER turns in each, then LONG long turns. */
const SETUP = 6;
const STEADY_PER = 2;
const LONG = 4;
/** Before and after the rounds, both sides sit idle this long (after a pause) to measure what they burn doing nothing. */
const IDLE_PAUSE_MS = 4_000;
const IDLE_WINDOW_MS = 5_000;
/** After the last turn of a round, before its side's CPU is read. */
const SETTLE_MS = 1_000;
/** After the (unmeasured) deletes between rounds, before the next round. */
const PAUSE_MS = 1_000;
const PORTS = {
  ours: [8820, 8821],
  floor: [8822, 8823],
  model: 8824,
  node2026: [8825, 8826],
  node2025: [8827, 8828],
  guidelines: 8829,
  budgets: [8830, 8831],
};
/**
 * Ours against an MCP server outside our workerd (an SDK v2 server in Node, in each era): the demo server runs in
 * the same workerd as ours, so its CPU counts as ours above; here only ours does. They run the set-up and steady
 * scenarios (a set-up is create + first turn minus a steady turn), side by side with the others.
 */
const NODE_SIDES = process.env.CPU_NODE === '0' ? [] : ['node2026', 'node2025'];
const ERA_OF = { node2026: '2026-07-28', node2025: '2025-11-25' };
/**
 * Ours with a budget in force that is never reached: each model request is first reserved at the tenant's ledger
 * (usage/meter.ts, one Durable Object call per request, with the entries waiting to be settled). Set-up and steady
 * turns, side by side with ours without budgets: the difference is what a reservation costs.
 */
const BUDGET_SIDES = process.env.CPU_BUDGETS === '0' ? [] : ['budgets'];
/** Model requests in a steady turn of the scripted model: the read, then the answer. */
const REQUESTS_PER_TURN = 2;

const QUESTION = 'What do the team guidelines say about estimates?';
const LONG_QUESTION = `Explain the guidelines at length ${LONG_MARK}`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

const fake = await startFakeModel({ port: PORTS.model, decide });
// Limits high enough never to answer 429, and no live-session eviction: every conversation is the same end user.
const vars = {
  AUTH_DISABLED: 'true',
  MODEL: 'openai-compatible:fake',
  OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
  ...NO_LIMITS,
};
const guidelines = NODE_SIDES.length ? await startGuidelinesServer({ port: PORTS.guidelines }) : undefined;
const varsOf = (side) =>
  side === 'budgets'
    ? { ...vars, BUDGET_TOKENS_PER_DAY: '1000000000000' }
    : ERA_OF[side]
      ? {
          ...vars,
          MCP_SERVERS: JSON.stringify([
            {
              id: 'demo',
              url: guidelines.url,
              transport: 'streamable-http',
              protocol: ERA_OF[side],
              trustAnnotations: true,
            },
          ]),
        }
      : vars;
const start = (side) =>
  startWrangler({
    port: PORTS[side][0],
    inspectorPort: PORTS[side][1],
    vars: varsOf(side),
    // A profile names modules by the comments only unminified output keeps.
    ...(PROFILE ? { args: ['--no-minify'] } : {}),
    ...(side === 'floor' ? { config: 'bench/floor/wrangler.jsonc' } : {}),
  });

/** One turn, checked: the one read, then the expected answer (a wrong turn would measure something else). */
async function turn(base, id, long) {
  const t = await runTurn(base, id, long ? LONG_QUESTION : QUESTION);
  const expected = long ? LONG_ANSWER : STEADY_ANSWER;
  if (!t.problems.length && (t.reads.length !== 1 || t.reads[0].uri !== 'task://guidelines'))
    t.problems.push(`expected one read of task://guidelines, got ${t.reads.length}`);
  if (!t.problems.length && t.answer !== expected) t.problems.push(`unexpected answer: ${t.answer.slice(0, 80)}`);
  if (t.problems.length) throw new Error(`${base}: ${t.problems.join('; ')}`);
  return t.ms;
}

/**
 * Per side, CPU is charged to an operation (a turn, or create + first turn)
 * from its start until the start of that side's next operation (or a final
 * settle): work a turn leaves behind (a save, V8's GC catching up) lands
 * while the other side is measured, and still counts for the operation that
 * caused it. The idle rate × that span is subtracted later.
 */
function meter(stack) {
  let open;
  const close = (sample, now) => {
    if (!open) return;
    Object.assign(open.record, {
      cpu: (sample.cpuNs - open.sample.cpuNs) / 1e6,
      ticks: sample.cpuMs - open.sample.cpuMs,
      span: now - open.t0,
    });
    open = undefined;
  };
  return {
    /** Starts charging a new operation (closing the previous one); returns its record, filled in when it is closed. */
    begin() {
      const sample = stack.workerd();
      const t0 = performance.now();
      close(sample, t0);
      open = { sample, t0, record: {} };
      return open.record;
    },
    end: () => close(stack.workerd(), performance.now()),
  };
}

/** One operation on one side, charged by its meter; returns its record (wall now; cpu and span once the side's next operation begins). */
async function op(side, work) {
  const record = sides[side].meter.begin();
  const t0 = performance.now();
  await work(sides[side].stack.base);
  record.wall = performance.now() - t0;
  return record;
}

/**
 * One scenario on both sides, alternating turn by turn (A B A B …): both see
 * the same moment's contention from the other processes on the machine,
 * which varies on a scale of seconds. Returns each side's records.
 */
async function scenario(name, order, states) {
  const records = Object.fromEntries(order.map((side) => [side, []]));
  const each = async (work) => {
    for (const side of order) {
      if (name === 'long' && side !== 'ours' && side !== 'floor') continue;
      records[side].push(await op(side, (base) => work(side, base)));
    }
  };
  if (name === 'setup') {
    for (const side of order) states[side].ids = [];
    for (let i = 0; i < SETUP; i++)
      await each(async (side, base) => {
        const id = await createConversation(base);
        await turn(base, id, false);
        states[side].ids.push(id);
      });
  } else if (name === 'steady') {
    for (let k = 0; k < STEADY_PER; k++)
      for (let i = 0; i < SETUP; i++) await each((side, base) => turn(base, states[side].ids[i], false));
  } else {
    for (let i = 0; i < LONG; i++)
      await each((side, base) =>
        side === 'ours' || side === 'floor' ? turn(base, states[side].ids[i], true) : undefined,
      );
  }
  return records;
}

/**
 * Between rounds, unmeasured: the round's conversations are deleted, so ours'
 * MCP sessions (and the demo server's keep-alives on their streams, 15 s
 * apart) do not pile up and raise its idle CPU round after round. The floor
 * has nothing to release (and no DELETE route).
 */
async function betweenRounds(states) {
  await sleep(SETTLE_MS);
  for (const side of SIDES) sides[side].meter.end();
  for (const side of SIDES.filter((x) => x !== 'floor'))
    for (const id of states[side].ids ?? []) await deleteConversation(sides[side].stack.base, id);
  await sleep(PAUSE_MS);
}

/** A side's records of one scenario, summed. */
const agg = (records) =>
  records.reduce(
    (a, x) => ({ cpu: a.cpu + x.cpu, ticks: a.ticks + x.ticks, span: a.span + x.span, wall: a.wall + x.wall }),
    {
      cpu: 0,
      ticks: 0,
      span: 0,
      wall: 0,
    },
  );

/** CPU ms per second of both sides with nothing to do (after a pause, so earlier work has settled). */
async function idleRates(stacks) {
  await sleep(IDLE_PAUSE_MS);
  const a = stacks.map((s) => s.workerd().cpuNs);
  const t0 = performance.now();
  await sleep(IDLE_WINDOW_MS);
  const span = performance.now() - t0;
  return stacks.map((s, i) => ((s.workerd().cpuNs - a[i]) / 1e6 / span) * 1000);
}
const scenarios = ['setup', 'steady', 'long'];
const logRound = (r) =>
  console.log(
    `round ${r + 1}/${ROUNDS}: ${scenarios.map((s) => `${s} ${(agg(rounds[r][s].ours).cpu / TURNS[s]).toFixed(1)} / ${(agg(rounds[r][s].floor).cpu / TURNS[s]).toFixed(1)} ms`).join(', ')} (ours / floor per turn, idle not subtracted)`,
  );
const TURNS = { setup: SETUP, steady: SETUP * STEADY_PER, long: LONG };

const began = performance.now();
const m = machine();
// wrangler runs its own workerd (node_modules/wrangler/node_modules/workerd), which may differ from the top-level one machine() names.
const workerdRun = JSON.parse(readFileSync('node_modules/wrangler/node_modules/workerd/package.json', 'utf8')).version;
const loadBefore = os.loadavg()[0];
const SIDES = ['ours', 'floor', ...BUDGET_SIDES, ...NODE_SIDES];
console.log(`cpu: starting ${SIDES.map((side) => `${side} (:${PORTS[side][0]})`).join(', ')} …`);
const stacks = await Promise.all(SIDES.map((side) => start(side)));
const sides = Object.fromEntries(SIDES.map((side, i) => [side, { stack: stacks[i], meter: meter(stacks[i]) }]));
const fresh = () => Object.fromEntries(SIDES.map((side) => [side, {}]));
const rounds = [];
const idle = { before: [], after: [] };
let profile;
try {
  // Warm-up: unrecorded rounds (V8 compiles, caches fill, the demo server's DO starts).
  for (let w = 0; w < WARMUP; w++) {
    const states = fresh();
    for (const s of scenarios) await scenario(s, SIDES, states);
    await betweenRounds(states);
  }
  idle.before = await idleRates(stacks);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? [...SIDES].reverse() : SIDES;
    const round = {};
    const states = fresh();
    for (const s of scenarios) round[s] = await scenario(s, order, states);
    await betweenRounds(states);
    rounds.push(round);
    logRound(r);
  }
  idle.after = await idleRates(stacks);
  if (PROFILE) {
    // After the measurement: the profiler slows the Worker down.
    profile = { ours: {}, floor: {} };
    for (const side of ['ours', 'floor']) {
      const base = sides[side].stack.base;
      // The bundle as wrangler dev runs it, to name the module of each profiled line.
      // (wrangler keeps it under the config's folder: the floor's is in bench/floor/.wrangler.)
      const source =
        side === 'ours'
          ? devBundle(process.cwd(), '// src/turn/stream.ts')
          : devBundle('bench/floor', '// src/index.ts');
      for (const kind of scenarios) {
        const p = await profiler(PORTS[side][1]);
        let id;
        if (kind !== 'setup') await turn(base, (id = await createConversation(base)), false);
        const n = { setup: 6, steady: 10, long: 3 }[kind];
        await p.start();
        for (let i = 0; i < n; i++) {
          if (kind === 'setup') await turn(base, await createConversation(base), false);
          else await turn(base, id, kind === 'long');
        }
        const summary = await p.stop(source);
        profile[side][kind] = { turns: n, ...summary };
        console.log(
          `profile of ${side}, ${kind === 'setup' ? 'create + first turn' : `${kind} turn`} (self ms per turn; ${summary.totalMs} ms in all), by module, then by function:`,
        );
        for (const f of summary.modules.slice(0, 20)) console.log(`  ${(f.ms / n).toFixed(1)}  ${f.name}`);
        for (const f of summary.functions.slice(0, 12)) console.log(`  ${(f.ms / n).toFixed(1)}  ${f.name}`);
      }
    }
  }
} finally {
  await Promise.all(stacks.map((stack) => stack.stop()));
}

// Start-up: a fresh wrangler each time, workerd CPU from spawn to the end of the first answer of a first turn.
// Ours also against the Node server in 2026-07-28 (what a deployment pays: no demo server to start in our workerd).
const START_SIDES = ['ours', 'floor', ...NODE_SIDES.slice(0, 1)];
const starts = Object.fromEntries(START_SIDES.map((side) => [side, []]));
for (let i = 0; i < STARTS; i++) {
  for (const side of i % 2 ? [...START_SIDES].reverse() : START_SIDES) {
    const t0 = performance.now();
    const stack = await start(side);
    const ready = stack.workerd();
    const id = await createConversation(stack.base);
    await turn(stack.base, id, false);
    // Read as the answer ends: start-up is "until the first answer is there".
    const done = stack.workerd();
    const wall = performance.now() - t0;
    // A workerd restarted during start-up would take its CPU with it: the pids must be the same ones.
    const restarted = ready.pids.join() !== done.pids.join();
    starts[side].push({ cpu: done.cpuNs / 1e6, ready: ready.cpuNs / 1e6, ticks: done.cpuMs, wall, restarted });
    console.log(
      `start ${i + 1}/${STARTS} ${side}: ${(done.cpuNs / 1e6).toFixed(0)} ms CPU, ${(wall / 1000).toFixed(1)} s wall${restarted ? ' (workerd restarted!)' : ''}`,
    );
    await stack.stop();
  }
}
await fake.close();
await guidelines?.close();

// Idle CPU rate of each side (ms per s), from the windows before and after the rounds. Ours' grows with its open
// conversations (MCP keep-alives), which pile up round after round: round r gets the rate interpolated between the two.
const idleRate = Object.fromEntries(SIDES.map((side, i) => [side, (idle.before[i] + idle.after[i]) / 2]));
const idleAt = (side, r) => {
  const i = SIDES.indexOf(side);
  return idle.before[i] + ((idle.after[i] - idle.before[i]) * (r + 0.5)) / ROUNDS;
};
/** Per-turn CPU of a scenario's summed records `x` in round `r`, net of its side's idle rate over their span. */
const perTurn = (side, s, x, r) => (x.cpu - (idleAt(side, r) * x.span) / 1000) / TURNS[s];
const series = {};
for (const side of ['ours', 'floor']) {
  series[side] = {
    steady: rounds.map((r, i) => perTurn(side, 'steady', agg(r.steady[side]), i)),
    long: rounds.map((r, i) => perTurn(side, 'long', agg(r.long[side]), i)),
    // Set-up: (create + first turn) minus a steady turn of the same round.
    setup: rounds.map(
      (r, i) => perTurn(side, 'setup', agg(r.setup[side]), i) - perTurn(side, 'steady', agg(r.steady[side]), i),
    ),
    first: rounds.map((r, i) => perTurn(side, 'setup', agg(r.setup[side]), i)),
    startup: starts[side].map((x) => x.cpu),
    // Of which: until GET /health answered (runtime up, the Worker's script loaded).
    ready: starts[side].map((x) => x.ready),
    wall: Object.fromEntries(scenarios.map((s) => [s, median(rounds.map((r) => agg(r[s][side]).wall / TURNS[s]))])),
  };
  series[side].wall.startup = median(starts[side].map((x) => x.wall));
}
// Ours against the Node server, and ours with budgets: set-up and steady turns only.
for (const side of [...NODE_SIDES, ...BUDGET_SIDES]) {
  series[side] = {
    ...(starts[side] ? { startup: starts[side].map((x) => x.cpu), ready: starts[side].map((x) => x.ready) } : {}),
    steady: rounds.map((r, i) => perTurn(side, 'steady', agg(r.steady[side]), i)),
    setup: rounds.map(
      (r, i) => perTurn(side, 'setup', agg(r.setup[side]), i) - perTurn(side, 'steady', agg(r.steady[side]), i),
    ),
    first: rounds.map((r, i) => perTurn(side, 'setup', agg(r.setup[side]), i)),
  };
}
const ratios = (s) => rounds.map((_, i) => series.ours[s][i] / series.floor[s][i]);
const stat = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });
const result = {
  rounds: ROUNDS,
  warmup: WARMUP,
  starts: STARTS,
  batch: TURNS,
  idleMsPerSec: { ...idleRate, before: idle.before, after: idle.after },
  loadBefore,
  workerdRun,
  runSeconds: 0,
  scenarios: {},
};
for (const s of ['steady', 'long', 'first', 'setup', 'startup']) {
  result.scenarios[s] = {
    ours: stat(series.ours[s]),
    floor: stat(series.floor[s]),
    ratio: median(series.ours[s]) / median(series.floor[s]),
    ...(s === 'startup' ? {} : { ratioPerRound: stat(ratios(s)) }),
    wallMs: {
      ours: series.ours.wall[s === 'first' ? 'setup' : s],
      floor: series.floor.wall[s === 'first' ? 'setup' : s],
    },
  };
}
result.external = Object.fromEntries(
  NODE_SIDES.map((side) => [
    side,
    {
      era: ERA_OF[side],
      steady: stat(series[side].steady),
      first: stat(series[side].first),
      setup: stat(series[side].setup),
      ...(series[side].startup
        ? {
            startup: stat(series[side].startup),
            startupRatio: median(series[side].startup) / median(series.floor.startup),
          }
        : {}),
    },
  ]),
);
// A reservation's cost: the paired difference per round (the two sides ran at the same moments), per model request.
if (BUDGET_SIDES.length) {
  const perRequest = (s) => rounds.map((_, i) => (series.budgets[s][i] - series.ours[s][i]) / REQUESTS_PER_TURN);
  result.budgets = {
    steady: stat(series.budgets.steady),
    first: stat(series.budgets.first),
    perRequestSteady: stat(perRequest('steady')),
    perRequestFirst: stat(perRequest('first')),
  };
}
// Cross-check: schedstat ns against /proc stat ticks, over everything measured.
const all = rounds.flatMap((r) => ['ours', 'floor'].flatMap((side) => scenarios.map((s) => agg(r[s][side]))));
result.ticksVsSchedstat = all.reduce((a, x) => a + x.ticks, 0) / all.reduce((a, x) => a + x.cpu, 0);
result.startupUntilHealthMs = { ours: median(series.ours.ready), floor: median(series.floor.ready) };
result.restartedDuringStartup = Object.values(starts).some((list) => list.some((x) => x.restarted));
const sc = result.scenarios;
result.targets = {
  steadyAtMostTheFloor: sc.steady.ratio <= 1.0,
  longAtMost40ms: sc.long.ours.median <= 40,
  // "Ours": against a server outside our workerd (the demo server's CPU is not ours to cut); each era.
  setupAtMost25ms: NODE_SIDES.length
    ? NODE_SIDES.every((side) => result.external[side].setup.median <= 25)
    : sc.setup.ours.median <= 25,
  startupWithin120PercentOfFloor: sc.startup.ratio <= 1.2,
  startupAgainstNodeWithin120PercentOfFloor: NODE_SIDES.length
    ? result.external[NODE_SIDES[0]].startupRatio <= 1.2
    : undefined,
  reservationAtMost2msPerStep: result.budgets ? result.budgets.perRequestSteady.median <= 2 : undefined,
};
if (profile) result.profile = profile;
result.runSeconds = Math.round((performance.now() - began) / 1000);
console.log(`BENCH_RESULT cpu ${JSON.stringify(result)}`);

const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
const met = (ok) => (ok ? '**met**' : '**missed**');
const row = (label, s, d = 1) => {
  const x = sc[s];
  const spread = (st) => `${f(st.median, d)} (${f(st.min, d)}–${f(st.max, d)})`;
  // A difference near zero (the floor's set-up) makes a ratio meaningless.
  const ratio =
    s === 'setup'
      ? '—'
      : `${f(x.ratio, 2)}×${x.ratioPerRound ? ` (${f(x.ratioPerRound.min, 2)}–${f(x.ratioPerRound.max, 2)})` : ''}`;
  const wall = s === 'setup' ? '—' : `${f(x.wallMs.ours, 0)} / ${f(x.wallMs.floor, 0)} ms`;
  return `| ${label} | ${spread(x.ours)} | ${spread(x.floor)} | ${ratio} | ${wall} |`;
};
const section = `## CPU per turn: ours next to a floor Worker

Command: \`npm run bench:cpu\` (bench/cpu.mjs; \`CPU_ROUNDS\`, \`CPU_WARMUP\`, \`CPU_STARTS\`) · ${machineLine(m)} (wrangler runs workerd ${workerdRun}) · 1-minute load average before the run ${f(loadBefore, 2)} · run time ${result.runSeconds} s

workerd CPU (both processes under each \`wrangler dev\`: its proxy and the Worker's; from /proc schedstat) per turn of our
service and of a **floor Worker** (bench/floor: one Durable Object per conversation, AI SDK \`streamText\` with one
\`read_resource\` tool returning ~600 bytes from memory, \`stopWhen: stepCountIs(2)\`, \`toUIMessageStreamResponse()\`,
two SQLite rows per turn; no MCP), both against the same fake OpenAI-compatible model on 127.0.0.1: step 1 calls
\`read_resource {uri: "task://guidelines", server: "demo"}\`, step 2 answers. Ours reads the resource from the demo MCP
server in the same Worker. Both run side by side; ${ROUNDS} rounds after ${WARMUP} warm-up rounds, each round running every scenario
on both in alternation, turn by turn (ours, floor, ours, floor …; who goes first flips every round), one turn at a time. Each figure: median over rounds (min–max); ratio =
ours / floor of the medians (min–max of the per-round ratios). A turn is charged with its side's CPU from its start to
that side's next turn (so work left behind — a save, V8's GC catching up — still counts), minus the side's idle CPU
over that span (interpolated by round between windows of ${IDLE_WINDOW_MS / 1000} s with nothing to do before and after
the rounds: ours ${f(idle.before[0], 2)} → ${f(idle.after[0], 2)}, floor ${f(idle.before[1], 2)} → ${f(idle.after[1], 2)} ms/s). Each round's conversations are deleted
after it, unmeasured: an open conversation of ours holds an MCP session whose stream the demo server keeps alive every
15 s, so idle CPU would otherwise grow round after round. Other processes share the ${m.cores} cores, so single figures
are noisy; the medians are what to compare.

| scenario (CPU ms) | ours | floor | ratio | wall per turn ours / floor |
|---|---|---|---|---|
${row(`steady turn in an existing conversation (≈ 40-word answer word by word; ${TURNS.steady} turns a round)`, 'steady')}
${row(`long answer: ${LONG_TOKENS} tokens, one per chunk (${TURNS.long} turns a round)`, 'long')}
${row(`create + first turn (${TURNS.setup} a round)`, 'first')}
${row('**new-conversation set-up**: create + first turn − a steady turn', 'setup')}
${row(`start-up: spawn → first answer of a first turn (${STARTS} starts each)`, 'startup', 0)}

${
  NODE_SIDES.length
    ? `
Against an MCP server outside our workerd (bench/lib/guidelines-server.mjs: an SDK v2 server in Node on 127.0.0.1 serving the
same guidelines with the demo's cache hints — discover and lists an hour, public; the guidelines 30 s, private — spoken in
each era through its own \`wrangler dev\` of ours, in the same rounds), so that only our CPU counts:

| ours against an SDK v2 server in Node (CPU ms) | create + first turn | steady turn | **new-conversation set-up** |
|---|---|---|---|
${NODE_SIDES.map((side) => {
  const x = result.external[side];
  const cell = (st) => `${f(st.median)} (${f(st.min)}–${f(st.max)})`;
  return `| ${x.era} | ${cell(x.first)} | ${cell(x.steady)} | **${cell(x.setup)}** |`;
}).join('\n')}

${NODE_SIDES.filter((side) => result.external[side].startup)
  .map(
    (side) =>
      `Start-up of ours against it (${result.external[side].era}; no demo server to start and seed in our workerd, as in a deployment): ${f(result.external[side].startup.median, 0)} ms (${f(result.external[side].startup.min, 0)}–${f(result.external[side].startup.max, 0)}), ${f(result.external[side].startupRatio, 2)}× the floor's.`,
  )
  .join('\n')}

A new conversation's first turn connects to nothing when the tenant's shared copies serve its catalogs and its read
(ServerLink.available; docs/MCP-CLIENT.md, "Connecting, set-up, robustness"): here every conversation after the first of a
round finds the previous one's.
`
    : ''
}
${
  result.budgets
    ? `With a budget in force (\`BUDGET_TOKENS_PER_DAY\`, never reached), each model request is first reserved at the
tenant's ledger — one Durable Object call, with the entries waiting to be settled (docs/USAGE.md, "Budgets"). Ours with
it (port ${PORTS.budgets[0]}), in the same rounds as ours without: steady turn ${f(result.budgets.steady.median)} ms
(${f(result.budgets.steady.min)}–${f(result.budgets.steady.max)}) against ${f(sc.steady.ours.median)}, create + first turn
${f(result.budgets.first.median)} ms against ${f(sc.first.ours.median)}. **Per model request** (the paired difference of each
round ÷ ${REQUESTS_PER_TURN} requests a turn, median (min–max)): steady ${f(result.budgets.perRequestSteady.median, 2)} ms
(${f(result.budgets.perRequestSteady.min, 2)}–${f(result.budgets.perRequestSteady.max, 2)}), first turn
${f(result.budgets.perRequestFirst.median, 2)} ms (${f(result.budgets.perRequestFirst.min, 2)}–${f(result.budgets.perRequestFirst.max, 2)}).
The ledger runs in the same workerd, so its CPU counts here too. Target ≤ 2 ms a step: ${met(result.targets.reservationAtMost2msPerStep)}.

`
    : ''
}Targets: steady turn ≤ 1.0× the floor: ${met(result.targets.steadyAtMostTheFloor)} (${f(sc.steady.ratio, 2)}×) ·
500-token answer one token per chunk ≤ 40 ms CPU for ours: ${met(result.targets.longAtMost40ms)} (${f(sc.long.ours.median)} ms; the floor itself needs ${f(sc.long.floor.median)} ms here,
${f(sc.long.floor.median / LONG_TOKENS, 2)} ms per chunk, so locally this target is out of reach of any Worker built on \`streamText\`; follow the ratio) ·
new-conversation set-up ≤ 25 ms CPU of ours: ${met(result.targets.setupAtMost25ms)} (${
  NODE_SIDES.length
    ? NODE_SIDES.map((side) => `${result.external[side].era}: ${f(result.external[side].setup.median)} ms`).join(', ')
    : `${f(sc.setup.ours.median)} ms`
}; with the demo server in our workerd: ${f(sc.setup.ours.median)} ms) ·
start-up CPU ≤ 1.2× the floor's: ${met(result.targets.startupWithin120PercentOfFloor)} (${f(sc.startup.ratio, 2)}× with the demo server, which starts, seeds its store and serves the first read in our workerd${
  NODE_SIDES.length
    ? `; against the Node server: ${met(result.targets.startupAgainstNodeWithin120PercentOfFloor)}, ${f(result.external[NODE_SIDES[0]].startupRatio, 2)}×`
    : ''
}).

Set-up includes the demo MCP server's own CPU (it runs in the same workerd) and is measured against turn 2–3 steady turns
(a first turn has no history to send, so the difference slightly understates set-up). Start-up counts every workerd CPU
millisecond from spawn (runtime start, script compile, first requests) until the first answer ended (of which until
\`GET /health\` first answered — the runtime and wrangler's proxy up, the Worker's script loaded —
${f(result.startupUntilHealthMs.ours, 0)} ms ours, ${f(result.startupUntilHealthMs.floor, 0)} ms floor)${result.restartedDuringStartup ? ' (a workerd restarted during a start: its CPU before that is missing)' : ''}; bundling and the
widget build run in wrangler's Node process and are not counted, but are in the wall time.
/proc stat ticks / schedstat over all turns: ${f(result.ticksVsSchedstat, 3)}${Math.abs(result.ticksVsSchedstat - 1) < 0.02 ? ' (the two clocks agree)' : ' (the two clocks disagree: a workerd thread may have exited and taken its schedstat time with it)'}.
`;
if (WRITE) writeSection('BENCHMARKS.md', 'bench-cpu', section);
console.log(section);
