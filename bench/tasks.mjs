// MCP Tasks (issue 28): what following a long-running tool call costs the
// conversation's Durable Object while it runs, and how soon the answer goes
// on once it ends. The real service under `wrangler dev`, an MCP server with
// a task tool in Node (bench/lib/task-server.mjs: SDK v2, the Tasks extension
// by hand, recording when each task completed and when each `tasks/get` was
// answered) and the fake OpenAI-compatible model (bench/lib/fake-model.mjs):
// step 1 calls `jobs__job {ms, pollIntervalMs, progressMs}`, the continued
// answer says what the job gave.
//
// 1. Polling: `wrangler dev`s side by side, each with one conversation, a WebSocket open on it (a tab) and its own
//    MCP server. On "task" the conversation's tool call became a task that stays `working`; "idle" (same vars) holds a
//    conversation that had an ordinary turn and no task; "quiet" is "task" with LOG_LEVEL=warn (TASKS_QUIET=0: left
//    out). All are measured over the same windows: workerd CPU (/proc schedstat, both processes under each wrangler),
//    the `tasks/get` each server answered, the SQLite commits and 4 KiB pages the conversation's database wrote (its
//    WAL, read from wrangler's persist directory: bench/lib/wal.mjs), the message saves (message-updated frames on the
//    tab). Phases: the server asks for a poll every 1 s; every 1 s with a status message that changes between polls
//    (a server reporting progress); every 5 s.
// 2. Completion → first token (task side): the task completes at a random phase of the poll cycle; the tab times the
//    first text delta of the continued answer. Split into the wait for the next poll (the server switched the task to
//    completed → it answered the `tasks/get` that said so), our continuation set-up (→ the model request arrived) and
//    the stream (→ the first text delta reached the socket).
//
//   npm run bench:tasks                 # TASKS_MINUTES=1.5 (1 s and 5 s phases), TASKS_PROGRESS_MINUTES=0.75, TASKS_REPS=8
//   TASKS_MINUTES=2 npm run bench:tasks                 # longer polling windows
//   TASKS_MINUTES=0.25 TASKS_PROGRESS_MINUTES=0 TASKS_REPS=3 TASKS_WRITE=0 npm run bench:tasks   # a quick check
//   TASKS_PROFILE=1 TASKS_WRITE=0 npm run bench:tasks   # also a V8 profile of 20 s of 1 s polling (printed)
//   TASKS_FROM=run.log npm run bench:tasks              # render a saved run's BENCH_RESULT line again
// Also: TASKS_PHASES=poll1s,progress1s,poll5s (which phases), TASKS_LATENCY_INTERVALS=1000,200, TASKS_IDLE_S=15,
// TASKS_QUIET=0 (no LOG_LEVEL=warn side), TASKS_VARS='{"NAME":"value"}' (more vars, every side).
//
// wrangler dev reloads when a file under src/ or public/ changes: a window a reload falls into is refused (run on a
// quiet tree). Ports (127.0.0.1, TASKS_PORT = 8880): task side +0 (inspector +1), quiet +2 (+3), idle +4 (+5), the fake
// model +6, the MCP servers +7, +8, +9.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createConversation, runTurn } from './lib/client.mjs';
import { devBundle, profiler } from './lib/cpu-profile.mjs';
import { contentText, startFakeModel } from './lib/fake-model.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { NO_LIMITS, startWrangler } from './lib/stack.mjs';
import { startTaskServer } from './lib/task-server.mjs';
import { walTracker } from './lib/wal.mjs';

const MINUTES = Number(process.env.TASKS_MINUTES ?? 1.5);
const PROGRESS_MINUTES = Number(process.env.TASKS_PROGRESS_MINUTES ?? 0.75);
const REPS = Number(process.env.TASKS_REPS ?? 8);
const LATENCY_INTERVALS = (process.env.TASKS_LATENCY_INTERVALS ?? '1000,200').split(',').map(Number);
const WRITE = process.env.TASKS_WRITE !== '0';
/** After the measurements: a V8 CPU profile of the task side over 20 s of 1 s polling (printed, not written). */
const PROFILE = process.env.TASKS_PROFILE === '1';
const PORT = Number(process.env.TASKS_PORT ?? 8880);
/** Every side idle (no task anywhere) before and after the polling phases, to compare the sides with nothing to do. */
const IDLE_WINDOW_MS = Number(process.env.TASKS_IDLE_S ?? 15) * 1000;
/** After a turn (or a continuation) ends, before a window opens: its saves and GC are not the window's. */
const SETTLE_MS = 3_000;
/** How often the WAL is read during a window (a checkpoint restarts it; frames written just before one are lost). */
const WAL_SAMPLE_MS = 200;

/** Polling sides: ours as configured, and (TASKS_QUIET=0 leaves it out) the same with LOG_LEVEL=warn. */
const POLLERS = process.env.TASKS_QUIET === '0' ? ['task'] : ['task', 'quiet'];
const SIDES = [...POLLERS, 'idle'];
const PORTS = {
  task: [PORT, PORT + 1],
  quiet: [PORT + 2, PORT + 3],
  idle: [PORT + 4, PORT + 5],
  model: PORT + 6,
  server: { task: PORT + 7, quiet: PORT + 8, idle: PORT + 9 },
};
const PHASES = [
  { key: 'poll1s', label: 'every 1 s, status unchanged', pollIntervalMs: 1000, progressMs: 0, minutes: MINUTES },
  {
    key: 'progress1s',
    label: 'every 1 s, a new status message at each poll',
    pollIntervalMs: 1000,
    progressMs: 500,
    minutes: PROGRESS_MINUTES,
  },
  { key: 'poll5s', label: 'every 5 s, status unchanged', pollIntervalMs: 5000, progressMs: 0, minutes: MINUTES },
].filter((p) => p.minutes > 0 && (!process.env.TASKS_PHASES || process.env.TASKS_PHASES.split(',').includes(p.key)));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const stat = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length });
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The scripted model: the user's `job {…}` becomes a call of jobs__job with those arguments; a tool result, the answer. */
function decide(chat) {
  const last = chat.messages.at(-1);
  if (last?.role === 'tool') return { text: `The job is done. ${contentText(last.content).slice(0, 200)}` };
  const user = contentText(chat.messages.findLast((m) => m.role === 'user')?.content);
  const job = /job (\{.*\})/.exec(user);
  return job
    ? { toolCalls: [{ name: 'jobs__job', args: JSON.parse(job[1]) }] }
    : { toolCalls: [{ name: 'jobs__echo', args: { text: user } }] };
}

/**
 * A tab on a conversation: the WebSocket of the chat protocol (src/chat/socket), every frame kept with the time it
 * arrived. `waitFor(from, test)`: the first frame at index ≥ `from` that passes `test`.
 */
async function openTab(base, id) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/conversations/${id}/ws`);
  const frames = [];
  const waiters = new Set();
  ws.addEventListener('message', (event) => {
    const at = Date.now();
    const raw = String(event.data);
    let frame;
    try {
      frame = JSON.parse(raw);
    } catch {
      return;
    }
    let chunk;
    if (frame.type === 'cf_agent_use_chat_response' && frame.body) {
      try {
        chunk = JSON.parse(frame.body);
      } catch {
        // not a chunk
      }
    }
    frames.push({ at, frame, chunk, bytes: raw.length });
    for (const waiter of waiters) waiter();
  });
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', () => reject(new Error(`WebSocket to ${id} failed`)), { once: true });
  });
  return {
    frames,
    waitFor(from, test, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (let i = from; i < frames.length; i++)
            if (test(frames[i])) return (waiters.delete(check), clearTimeout(timer), resolve(frames[i]), true);
          return false;
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          const last = frames.slice(-3).map((x) => JSON.stringify(x.frame).slice(0, 200));
          reject(
            new Error(
              `timed out waiting for a frame (socket state ${ws.readyState}; last frames: ${last.join(' | ')})`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiters.add(check);
      });
    },
    close: () => ws.close(),
  };
}
const isContinuation = (f) => f.frame.type === 'cf_agent_use_chat_response' && f.frame.continuation === true;

/** The persist directory of a wrangler started by stack.mjs (from its command line). */
function persistDir(stack) {
  const args = readFileSync(`/proc/${stack.pid}/cmdline`, 'utf8').split('\0');
  return args[args.indexOf('--persist-to') + 1];
}
/** The SQLite file of the side's one conversation (the only Conversation object it has). */
function conversationDb(stack) {
  const dir = `${persistDir(stack)}/v3/do/mcp-ondemand-Conversation`;
  const files = readdirSync(dir).filter((f) => f.endsWith('.sqlite') && f !== 'metadata.sqlite');
  if (files.length !== 1) throw new Error(`expected one Conversation database in ${dir}, found ${files.length}`);
  return `${dir}/${files[0]}`;
}

/** The Worker's own workerd process under a wrangler (the other is the proxy in front of it), by its inspector flag. */
const kinds = new Map();
function workerCpuNs(stack) {
  let sum = 0;
  for (const pid of stack.workerd().pids) {
    if (!kinds.has(pid)) kinds.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--inspector-addr'));
    if (!kinds.get(pid)) continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // thread gone meanwhile
      }
    }
  }
  return sum;
}

/** node:sqlite, without its one-time ExperimentalWarning on stderr. */
async function loadSqlite() {
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) =>
    String(warning).includes('SQLite') ? undefined : emit.call(process, warning, ...rest);
  try {
    return await import('node:sqlite');
  } finally {
    process.emitWarning = emit;
  }
}
const { DatabaseSync } = await loadSqlite();

/** What a running task keeps in the conversation's database, read from outside (read-only; the DO's WAL allows it). */
function keptPerTask(file) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db
      .prepare('SELECT tool_call_id, length(CAST(row AS BLOB)) AS bytes, row FROM tool_tasks')
      .all()
      .map((r) => ({ key: r.tool_call_id, bytes: r.bytes, row: r.row }));
    const kv = db
      .prepare("SELECT key, length(CAST(key AS BLOB)) + length(value) AS bytes FROM _cf_KV WHERE key = 'alarm:tasks'")
      .all();
    const pages = db.prepare('PRAGMA page_count').get().page_count;
    const pageSize = db.prepare('PRAGMA page_size').get().page_size;
    return { rows, alarmKeyBytes: kv[0]?.bytes ?? 0, dbBytes: pages * pageSize };
  } finally {
    db.close();
  }
}

/** Resolves once neither wrangler has printed anything for 5 s (its start-up builds and reloads are over). */
async function quiet(stacks) {
  const deadline = Date.now() + 120_000;
  let last = '';
  let since = Date.now();
  while (Date.now() - since < 5_000) {
    if (Date.now() > deadline) throw new Error('wrangler dev kept printing (reloading?) for 2 minutes');
    await sleep(500);
    const now = Object.values(stacks)
      .map((s) => s.output().length + s.output().slice(-200))
      .join('|');
    if (now !== last) (last = now), (since = Date.now());
  }
}

/** The service code measured: the commit, and whether src/ had uncommitted changes (TASKS_CODE overrides). */
function codeLabel() {
  if (process.env.TASKS_CODE) return process.env.TASKS_CODE;
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    return dirty ? `${commit} with uncommitted changes under src/` : commit;
  } catch {
    return 'unknown';
  }
}

async function checkedTurn(base, id, text, waiting) {
  for (let attempt = 0; ; attempt++) {
    const t = await runTurn(base, id, text);
    // The previous continuation may still be saving when its last frame left: a 409 then is a retry, not a result.
    if (t.problems.some((p) => p.includes('HTTP 409')) && attempt < 10) {
      await sleep(200);
      continue;
    }
    if (t.problems.length) throw new Error(`${text}: ${t.problems.join('; ')}`);
    if (Boolean(t.metadata?.waitingForTasks) !== waiting)
      throw new Error(`${text}: waitingForTasks ${t.metadata?.waitingForTasks}, expected ${waiting}`);
    return t;
  }
}

// ---- start -----------------------------------------------------------------------------------------------------------

/** Runs the benchmark; returns what the report needs (also printed as a BENCH_RESULT line). */
async function measureAll() {
  const began = performance.now();
  const m = machine();
  const workerdRun = JSON.parse(
    readFileSync('node_modules/wrangler/node_modules/workerd/package.json', 'utf8'),
  ).version;
  const loadBefore = os.loadavg()[0];
  const code = codeLabel();
  const fake = await startFakeModel({ port: PORTS.model, decide, keepBodies: false });
  /** One MCP server per side, so each side's requests are its own. */
  const servers = Object.fromEntries(
    await Promise.all(SIDES.map(async (side) => [side, await startTaskServer({ port: PORTS.server[side] })])),
  );
  const varsOf = (side) => ({
    AUTH_DISABLED: 'true',
    MODEL: 'openai-compatible:fake',
    OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
    ...NO_LIMITS,
    // The server's pollIntervalMs decides (1,000 / 5,000 / 200 ms here), as the test suite runs it.
    TASK_POLL_MIN_MS: '50',
    // TASKS_VARS='{"TASK_POLL_MAX_MS":"10000"}': other settings (every side), to compare runs.
    ...JSON.parse(process.env.TASKS_VARS ?? '{}'),
    ...(side === 'quiet' ? { LOG_LEVEL: 'warn' } : {}),
    MCP_SERVERS: JSON.stringify([
      {
        id: 'jobs',
        url: servers[side].url,
        transport: 'streamable-http',
        protocol: '2026-07-28',
        autoApprove: ['job', 'echo'],
      },
    ]),
  });
  console.log(`tasks: starting ${SIDES.map((side) => `${side} (:${PORTS[side][0]})`).join(', ')} …`);
  const sides = Object.fromEntries(
    await Promise.all(
      SIDES.map(async (side) => [
        side,
        await startWrangler({
          port: PORTS[side][0],
          inspectorPort: PORTS[side][1],
          vars: varsOf(side),
          // A profile names modules by the comments only unminified output keeps.
          ...(PROFILE && side === 'task' ? { args: ['--no-minify'] } : {}),
        }),
      ]),
    ),
  );
  // wrangler dev reloads its Worker when a watched file changes (src/, or public/, where another wrangler's widget build
  // writes as it starts): the object's memory and the tabs' sockets go with it. Wait until all are quiet, then refuse
  // any window a reload falls into.
  const reloads = Object.fromEntries(SIDES.map((side) => [side, 0]));
  for (const side of SIDES)
    sides[side].onOutput((chunk) => {
      if (chunk.includes('Reloading local server')) reloads[side]++;
    });
  const result = {
    m,
    code,
    loadBefore,
    workerdRun,
    minutes: MINUTES,
    progressMinutes: PROGRESS_MINUTES,
    reps: REPS,
    pollers: POLLERS,
    sides: SIDES,
    idleWindowMs: IDLE_WINDOW_MS,
    settleMs: SETTLE_MS,
    walSampleMs: WAL_SAMPLE_MS,
  };
  const tabs = {};
  try {
    await quiet(sides);
    // One conversation per side, an ordinary turn in each (the echo tool answers at once), a tab open on each.
    const conv = {};
    for (const side of SIDES) {
      conv[side] = await createConversation(sides[side].base);
      await checkedTurn(sides[side].base, conv[side], 'echo hello', false);
      tabs[side] = await openTab(sides[side].base, conv[side]);
    }
    const wal = Object.fromEntries(SIDES.map((side) => [side, walTracker(`${conversationDb(sides[side])}-wal`)]));

    /** Starts a task on `side`; resolves once the turn that started it has ended (the answer waits for it). */
    const startTask = async (side, args) => {
      const tasksBefore = servers[side].tasks().length;
      await checkedTurn(sides[side].base, conv[side], `run job ${JSON.stringify(args)}`, true);
      const task = servers[side].tasks()[tasksBefore];
      if (!task) throw new Error(`${side}: the tool call did not become a task on the server`);
      return task;
    };
    /** Completes `task` (or lets it complete) and waits for the continued answer to have been streamed to the tab. */
    const finishTask = async (side, task, from, complete = true) => {
      if (complete) servers[side].complete(task.taskId);
      const token = await tabs[side]
        .waitFor(from, (f) => isContinuation(f) && f.chunk?.type === 'text-delta')
        .catch((error) => {
          const polls = task.polls.map((p) => `${p.at - task.startedAt}:${p.status}`).join(' ');
          throw new Error(
            `${side}: ${error.message}\ntask polls (ms after its start): ${polls}\n${sides[side].output().slice(-3000)}`,
          );
        });
      const done = await tabs[side].waitFor(from, (f) => isContinuation(f) && f.frame.done === true);
      return { token, done };
    };

    // Warm-up: a short task end to end on each polling side (V8 compiles the follower, the continuation).
    await Promise.all(
      POLLERS.map(async (side) => {
        const from = tabs[side].frames.length;
        await finishTask(side, await startTask(side, { ms: 1500, pollIntervalMs: 200 }), from, false);
      }),
    );
    await sleep(SETTLE_MS);

    /** Every side's counters now. */
    const snapshot = () => {
      const x = { t: performance.now(), at: Date.now(), sides: {} };
      for (const side of SIDES) {
        wal[side].sample();
        x.sides[side] = {
          cpu: sides[side].workerd().cpuNs,
          worker: workerCpuNs(sides[side]),
          wal: wal[side].totals(),
          frames: tabs[side].frames.length,
        };
      }
      return x;
    };
    /** A window of `ms` on every side: the WALs read every WAL_SAMPLE_MS meanwhile, `during()` run once half-way. */
    const measure = async (ms, during) => {
      const reloadsBefore = { ...reloads };
      const a = snapshot();
      const end = performance.now() + ms;
      let midway = during ? performance.now() + ms / 2 : Infinity;
      let mid;
      while (performance.now() < end) {
        await sleep(Math.min(WAL_SAMPLE_MS, end - performance.now()));
        for (const side of SIDES) wal[side].sample();
        if (performance.now() >= midway) (mid = during()), (midway = Infinity);
      }
      const b = snapshot();
      if (SIDES.some((side) => reloads[side] !== reloadsBefore[side]))
        throw new Error(
          'wrangler dev reloaded during a window (a watched file changed under src/ or public/): run again on a quiet tree',
        );
      const minutes = (b.t - a.t) / 60_000;
      const perMin = (x) => x / minutes;
      const per = {};
      for (const side of SIDES) {
        const [x, y] = [a.sides[side], b.sides[side]];
        const updates = tabs[side].frames
          .slice(x.frames, y.frames)
          .filter((f) => f.frame.type === 'cf_agent_message_updated');
        const byMethod = {};
        for (const r of servers[side].requests())
          if (r.at >= a.at && r.at < b.at) byMethod[r.method] = (byMethod[r.method] ?? 0) + 1;
        per[side] = {
          cpuMsPerMin: perMin((y.cpu - x.cpu) / 1e6),
          // Of which the Worker's own process (not the proxy in front of it).
          workerCpuMsPerMin: perMin((y.worker - x.worker) / 1e6),
          wal: {
            commits: perMin(y.wal.commits - x.wal.commits),
            pages: perMin(y.wal.frames - x.wal.frames),
            bytes: perMin(y.wal.bytes - x.wal.bytes),
            resets: y.wal.resets - x.wal.resets,
          },
          requestsPerMin: Object.fromEntries(Object.entries(byMethod).map(([k, v]) => [k, perMin(v)])),
          messageSavesPerMin: perMin(updates.length),
          messageSaveBytes: updates.length ? mean(updates.map((f) => JSON.stringify(f.frame.message).length)) : 0,
        };
      }
      return { minutes, from: a.at, to: b.at, sides: per, mid };
    };

    // ---- 1. polling --------------------------------------------------------------------------------------------------
    console.log(`idle window (${IDLE_WINDOW_MS / 1000} s, no task on any side) …`);
    result.idleBefore = await measure(IDLE_WINDOW_MS);
    result.phases = [];
    for (const phase of PHASES) {
      console.log(`phase ${phase.key}: ${phase.label}, ${phase.minutes} min …`);
      const dbFile = conversationDb(sides.task);
      const dbBytesBefore = keptPerTask(dbFile).dbBytes;
      const from = {};
      const task = {};
      for (const side of POLLERS) {
        from[side] = tabs[side].frames.length;
        task[side] = await startTask(side, {
          ms: 0,
          pollIntervalMs: phase.pollIntervalMs,
          progressMs: phase.progressMs,
        });
      }
      await sleep(SETTLE_MS);
      const window = await measure(phase.minutes * 60_000, () => keptPerTask(dbFile));
      for (const side of POLLERS) {
        const polls = task[side].polls.filter((p) => p.at >= window.from && p.at < window.to);
        const gaps = polls.slice(1).map((p, i) => p.at - polls[i].at);
        Object.assign(window.sides[side], {
          polls: polls.length,
          pollsPerMin: polls.length / window.minutes,
          meanGapMs: mean(gaps),
        });
      }
      for (const side of POLLERS) await finishTask(side, task[side], from[side]);
      // The task's part in the answer as saved (what stays in the history after the task).
      const saved = await (await fetch(`${sides.task.base}/v1/conversations/${conv.task}/messages`)).json();
      const part = saved.messages
        .flatMap((msg) => msg.parts)
        .find((p) => p.type === 'data-task' && p.data?.taskId === task.task.taskId);
      result.phases.push({ ...phase, ...window, dbBytesBefore, taskPartBytes: part ? JSON.stringify(part).length : 0 });
      const x = window.sides;
      console.log(
        `  ${x.task.pollsPerMin.toFixed(1)} polls/min · CPU ${x.task.cpuMsPerMin.toFixed(0)}${x.quiet ? ` (LOG_LEVEL=warn ${x.quiet.cpuMsPerMin.toFixed(0)})` : ''} vs ${x.idle.cpuMsPerMin.toFixed(0)} ms/min (idle side) · ${x.task.wal.commits.toFixed(0)} commits, ${x.task.wal.pages.toFixed(0)} pages/min · ${x.task.messageSavesPerMin.toFixed(1)} message saves/min`,
      );
    }
    console.log(`idle window (${IDLE_WINDOW_MS / 1000} s) …`);
    result.idleAfter = await measure(IDLE_WINDOW_MS);

    // ---- 2. completion → first token (task side) ---------------------------------------------------------------------
    result.latency = [];
    for (const interval of LATENCY_INTERVALS) {
      const reps = [];
      for (let r = 0; r < REPS; r++) {
        // Completion at a random phase of the poll cycle, after at least two polls (and well after the turn's save).
        const ms = Math.round(Math.max(1000, 2 * interval) + Math.random() * interval);
        const from = tabs.task.frames.length;
        const modelFrom = fake.requests.length;
        const task = await startTask('task', { ms, pollIntervalMs: interval });
        const turnEndedAt = Date.now();
        const { token, done } = await finishTask('task', task, from, false);
        const completed = task.completedAt;
        const polled = task.polls.find((p) => p.status === 'completed')?.at;
        const model = fake.requests.slice(modelFrom).find((q) => q.at >= polled)?.at;
        if (completed === undefined || polled === undefined || model === undefined)
          throw new Error(`rep ${r}: completed ${completed}, polled ${polled}, model ${model}`);
        // MCP requests our set-up made (the continuation's turn lists the server's tools again unless hints say not to).
        const setupRequests = servers.task.requests().filter((q) => q.at >= polled && q.at <= model);
        reps.push({
          ms,
          total: token.at - completed,
          pollDelay: polled - completed,
          setup: model - polled,
          // Until the turn's first MCP request: the result into the answer and saved, the turn started.
          setupOwn: setupRequests.length ? setupRequests[0].at - polled : model - polled,
          setupMethods: setupRequests.map((q) => q.method),
          stream: token.at - model,
          done: done.at - completed,
          // The turn that started the task was still running when it completed (then the wait includes its end).
          late: turnEndedAt > completed,
        });
        const x = reps.at(-1);
        console.log(
          `latency ${interval} ms #${r + 1}: ${x.total} ms (poll delay ${x.pollDelay}, set-up ${x.setup}, stream ${x.stream})`,
        );
        await sleep(500);
      }
      result.latency.push({
        interval,
        reps,
        total: stat(reps.map((x) => x.total)),
        pollDelay: stat(reps.map((x) => x.pollDelay)),
        setup: stat(reps.map((x) => x.setup)),
        setupOwn: stat(reps.map((x) => x.setupOwn)),
        setupMethods: [...new Set(reps.flatMap((x) => x.setupMethods))],
        withMcp: reps.filter((x) => x.setupMethods.length).length,
        stream: stat(reps.map((x) => x.stream)),
        done: stat(reps.map((x) => x.done)),
        late: reps.filter((x) => x.late).length,
      });
    }

    if (PROFILE) {
      const from = tabs.task.frames.length;
      const task = await startTask('task', { ms: 0, pollIntervalMs: 1000 });
      await sleep(SETTLE_MS);
      const p = await profiler(PORTS.task[1]);
      const pollsBefore = task.polls.length;
      await p.start();
      await sleep(20_000);
      const summary = await p.stop(devBundle(process.cwd(), '// src/turn/tasks/task-follower.ts'));
      const polls = task.polls.length - pollsBefore;
      await finishTask('task', task, from);
      console.log(
        `profile of the task side over ${polls} polls (self ms per poll; ${summary.totalMs} ms in all), by module, then by function:`,
      );
      for (const x of summary.modules.slice(0, 20)) console.log(`  ${(x.ms / polls).toFixed(2)}  ${x.name}`);
      for (const x of summary.functions.slice(0, 20)) console.log(`  ${(x.ms / polls).toFixed(2)}  ${x.name}`);
    }
  } finally {
    for (const tab of Object.values(tabs)) tab.close();
    await Promise.all(Object.values(sides).map((s) => s.stop()));
    await fake.close();
    await Promise.all(Object.values(servers).map((s) => s.close()));
  }
  result.runSeconds = Math.round((performance.now() - began) / 1000);
  console.log(`BENCH_RESULT tasks ${JSON.stringify(result)}`);
  return result;
}

/** A saved run's BENCH_RESULT line (TASKS_FROM=run.log), to render the report again. */
function fromLog(file) {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('BENCH_RESULT tasks '));
  if (!line) throw new Error(`no BENCH_RESULT tasks line in ${file}`);
  return JSON.parse(line.slice('BENCH_RESULT tasks '.length));
}

const result = process.env.TASKS_FROM ? fromLog(process.env.TASKS_FROM) : await measureAll();

// ---- report ------------------------------------------------------------------------------------------------------------

const f = (x, d = 1) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : 'n/a';
const kib = (bytes) => `${f(bytes / 1024, 1)} KiB`;
const spread = (s, d = 0) => `${f(s.median, d)} (${f(s.min, d)}–${f(s.max, d)})`;
const { phases, m, code, loadBefore, workerdRun } = result;
const quietOn = result.pollers.includes('quiet');
/** CPU ms per minute a side added over the idle side in the same window (all processes, or the Worker's own). */
const added = (x, side, key = 'cpuMsPerMin') => x.sides[side][key] - x.sides.idle[key];
const idleRate = (side) => (result.idleBefore.sides[side].cpuMsPerMin + result.idleAfter.sides[side].cpuMsPerMin) / 2;
const cpuRow = (x) => {
  const t = x.sides.task;
  const others = Object.entries(t.requestsPerMin)
    .filter(([k]) => k !== 'tasks/get')
    .map(([k, v]) => `${k} ${f(v)}`)
    .join(', ');
  const quietCell = quietOn
    ? ` ${f(added(x, 'quiet'), 0)} (${f(added(x, 'quiet') / x.sides.quiet.pollsPerMin, 1)} ms a poll) |`
    : '';
  return `| ${x.label} (${+x.minutes.toFixed(2)} min) | ${f(t.pollsPerMin)} (${f(t.meanGapMs, 0)} ms apart)${others ? `; also ${others}` : ''} | ${f(t.cpuMsPerMin, 0)} | ${f(x.sides.idle.cpuMsPerMin, 0)} | ${f(t.cpuMsPerMin / x.sides.idle.cpuMsPerMin, 1)}× | **${f(added(x, 'task'), 0)}** | **${f(added(x, 'task') / t.pollsPerMin, 1)} ms** | ${f(t.cpuMsPerMin - idleRate('task'), 0)} |${quietCell}`;
};
const storageRow = (x) => {
  const t = x.sides.task;
  const w = t.wal;
  return `| ${x.label} | ${f(w.commits)} | ${f(w.pages)} (${kib(w.bytes)}) | ${f(w.commits / t.pollsPerMin, 2)} / ${f(w.pages / t.pollsPerMin, 1)} | ${f(t.messageSavesPerMin)}${t.messageSavesPerMin ? ` (${kib(t.messageSaveBytes)} each)` : ''} | ${f(x.sides.idle.wal.commits)} / ${f(x.sides.idle.wal.pages)} |`;
};
const keptPhase = phases.find((x) => x.mid?.rows?.length);
const kept = keptPhase?.mid;
const part = phases.find((x) => x.taskPartBytes)?.taskPartBytes;
const latencyRow = (x) =>
  `| ${f(x.interval, 0)} ms | ${x.reps.length} | **${spread(x.total)}** | ${spread(x.pollDelay)} | ${spread(x.setup)} | ${spread(x.setupOwn)} | ${spread(x.stream)} | ${spread(x.done)} |`;
const allReps = result.latency.flatMap((x) => x.reps);
/** Each MCP method the continuations' set-up sent, with the runs it was sent in. */
const setupMethods = [...new Set(allReps.flatMap((x) => x.setupMethods))].map(
  (method) =>
    `\`${method}\` (${allReps.filter((x) => x.setupMethods.includes(method)).length} of ${allReps.length} runs)`,
);
const idleCheck = (w) =>
  `${result.sides.map((side) => `${side} ${f(w.sides[side].cpuMsPerMin, 0)}`).join(', ')} ms/min`;
const late = result.latency.reduce((a, x) => a + x.late, 0);

const lead = phases.find((x) => x.key === 'poll1s');
const ours = (x) => x.setup.median + x.stream.median;
const summary = [
  lead
    ? `polling every second adds ${f(added(lead, 'task'), 0)} ms of workerd CPU a minute (${f(added(lead, 'task') / lead.sides.task.pollsPerMin, 1)} ms a poll; the idle conversation beside it: ${f(lead.sides.idle.cpuMsPerMin, 0)} ms a minute) and two SQLite commits a poll; the answer is saved again only when the task's status message changes`
    : undefined,
  ...result.latency.map(
    (x) =>
      `at a ${f(x.interval, 0)} ms interval the continued answer's first token reaches a tab ${f(x.total.median, 0)} ms (median) after the task completed, of which about ${f(ours(x), 0)} ms are ours (set-up and stream, medians)`,
  ),
].filter(Boolean);
const quietNote = quietOn
  ? `; a third is the task side with \`LOG_LEVEL=warn\` (since d68dca0 a successful poll logs at \`debug\`, so the
two should agree; before, each poll wrote an \`info\` line for its MCP request, a third of its CPU)`
  : '';
const workerShare = phases
  .map(
    (x) =>
      `${x.label}: ${f(added(x, 'task', 'workerCpuMsPerMin'), 0)} ms/min (${f((100 * added(x, 'task', 'workerCpuMsPerMin')) / added(x, 'task'), 0)} %)`,
  )
  .join(' · ');
const quietShare = quietOn
  ? ` With LOG_LEVEL=warn: ${phases
      .map((x) => `${f((100 * added(x, 'quiet', 'workerCpuMsPerMin')) / added(x, 'quiet'), 0)} %`)
      .join(', ')} (the proxy's part goes away with the log line).`
  : '';
const completes = result.latency
  .map((x) => `${f(Math.max(1000, 2 * x.interval), 0)}–${f(Math.max(1000, 2 * x.interval) + x.interval, 0)} ms`)
  .join(' / ');

const section = `## MCP Tasks: following a long tool call, and going on when it ends

Command: \`npm run bench:tasks\` (bench/tasks.mjs; \`TASKS_MINUTES\`, \`TASKS_PROGRESS_MINUTES\`, \`TASKS_REPS\`) · service code ${code} · ${machineLine(m)} (wrangler runs workerd ${workerdRun}) · 1-minute load average before the run ${f(loadBefore, 2)} · run time ${result.runSeconds} s

A tool call whose MCP server answers \`resultType: "task"\` (Tasks extension, MCP 2026-07-28) is followed from the
conversation Durable Object's alarm: \`tasks/get\` at the server's \`pollIntervalMs\` clamped to
TASK_POLL_MIN_MS..TASK_POLL_MAX_MS (set to 50 here, as in the tests, so the server's 1,000 / 5,000 / 200 ms decide; with
the default 1,000 a server asking for 200 ms is polled every second). Set-up: the real service under \`wrangler dev\`; the
MCP server bench/lib/task-server.mjs (SDK v2 in Node, the extension by hand as test/infra/task-servers.ts does, tool
\`job {ms, pollIntervalMs, progressMs}\`, recording when each task completed and when it answered each \`tasks/get\`); the
fake OpenAI-compatible model (bench/lib/fake-model.mjs) calling \`jobs__job\`, then answering with the tool's result.

In short: ${summary.join('; ')}.

### Polling a task that stays \`working\`

${quietOn ? 'Three' : 'Two'} \`wrangler dev\` side by side, each with one conversation, a WebSocket open on it (a tab) and its own
MCP server: on the **task** side the conversation's tool call became a task that does not end during the window; the
**idle** side (the same vars) holds a conversation that had an ordinary turn (a tool answered at once) and no
task${quietNote}. All are measured over the same window, which opens ${result.settleMs / 1000} s after the turn that started the task
ended. CPU: workerd, both processes under each wrangler (/proc schedstat). Ratio = task side / idle side; **added by
polling** = their difference, per minute and per poll; the next column subtracts instead the task side's own idle rate
(windows of ${result.idleWindowMs / 1000} s with no task anywhere, before and after the phases: ${idleCheck(result.idleBefore)} before;
${idleCheck(result.idleAfter)} after). Polls: the \`tasks/get\` the server answered (one task: one alarm invocation
each, a billed Durable Object request).

| server asks for a poll | polls per minute | workerd CPU, task side (ms/min) | idle side, same window (ms/min) | ratio | **added by polling (ms/min)** | **per poll** | task side − its own idle rate (ms/min) |${quietOn ? ' added with LOG_LEVEL=warn (ms/min) |' : ''}
|---|---|---|---|---|---|---|---|${quietOn ? '---|' : ''}
${phases.map(cpuRow).join('\n')}

Of what polling adds, in the Worker's own workerd process (the rest is in the proxy wrangler runs in front of it):
${workerShare}.${quietShare} Local figures: in production there is no inspector or wrangler proxy, logs go to Workers Logs
and polls travel over TLS; compare the rows with each other rather than with a bill.

Storage written, from the conversation's SQLite database under wrangler's persist directory: its write-ahead log is read
every ${result.walSampleMs} ms (bench/lib/wal.mjs: frames whose salt matches the log's header; a checkpoint restarts it),
counting committed transactions and the 4 KiB pages they wrote — the local SQLite's physical writes, not Cloudflare's
billing unit (rows written), which is not visible from outside the object. Message saves: the \`message-updated\` frames
the tab received (the follower saves the answer, and tells every tab, when a task's status or status message changes).

| server asks for a poll | SQLite commits per minute | pages written per minute | commits / pages per poll | message saves per minute | idle side: commits / pages per minute |
|---|---|---|---|---|---|
${phases.map(storageRow).join('\n')}

Per poll the follower re-arms the alarm (the \`alarm:tasks\` entry of the object's KV and the alarm itself) and, only
when the status or its message changed, rewrites the task's row and saves the answer with the new \`data-task\` part
(since d68dca0 the next poll's time alone is kept in memory; before, every poll rewrote the row: 5 pages a poll). Kept while a task runs: its \`tool_tasks\` row, ${kept ? `${f(kept.rows[0].bytes + kept.rows[0].key.length, 0)} bytes (key ${kept.rows[0].key.length} + JSON ${kept.rows[0].bytes})` : 'n/a'},
and the \`alarm:tasks\` entry, ${kept ? `${kept.alarmKeyBytes} bytes` : 'n/a'}, both deleted when the task ends (the database:
${keptPhase ? `${kib(keptPhase.dbBytesBefore)} before the task, ${kib(kept.dbBytes)} while it ran` : 'n/a'}). Kept for good: the \`data-task\` part in the
answer, ${part ? `${part} bytes` : 'n/a'} as saved (the task's id, server, tool, status, message and times).

### From the task's completion to the first token of the continued answer

On the task side, ${result.reps} runs per poll interval in one conversation with a tab open; the task completes
${completes} after it started (uniformly at random: at a random phase of the poll cycle). One clock (this Node
process's) for the MCP server, the fake model and the tab. **Completion → first token**: from the moment the server
switched the task to \`completed\` to the first \`text-delta\` frame of the continued answer on the WebSocket, split into
the **wait for the next poll** (→ the server answered the \`tasks/get\` that said \`completed\`), **our continuation
set-up** (→ the continuation's model request reached the fake model) and **the stream** (→ the first text delta reached
the tab; the fake model answers at once). Median (min–max), ms.

The client follows over the WebSocket (the chat protocol a browser tab speaks, \`useAgentChat\`): the continuation is
pushed to it as it starts, so the client adds nothing. \`GET /v1/conversations/:id/stream\` answers 204 until the
continuation has started and \`GET …/messages\` shows the answer once saved (after its last token): a client following
either would poll, adding up to its own polling interval.

| poll interval | runs | **completion → first token** | wait for the next poll | our continuation set-up | of which until its first MCP request | stream to the tab | completion → continuation done |
|---|---|---|---|---|---|---|---|
${result.latency.map(latencyRow).join('\n')}

The wait for the next poll is up to one interval (half of one on average), plus the \`tasks/get\` round trip and the
time the previous poll took (polls are timed from the end of the one before); the rest is ours. The set-up first puts
the result into the answer, saves it and starts the continuation's turn (until its first MCP request); the turn then
brings the server's catalog up to date before calling the model: ${setupMethods.length ? `${setupMethods.join(', ')}, as this server sends no cache hints (the SDK's \`ttlMs: 0\`: list once per turn)` : 'no MCP request (the catalog was fresh)'}.
${late ? `In ${late} run(s) the task completed before the turn that started it had ended.` : 'Every task completed after the turn that started it had ended.'}
`;
if (WRITE) writeSection('BENCHMARKS.md', 'bench-tasks', section);
console.log(section);
