// Load benchmark: N concurrent conversations, each running M turns with the
// offline model against the demo MCP server and server-everything, through a
// real `wrangler dev` (workerd) on this machine, over HTTP. Reports turns/s,
// turn latency, errors, cache hit ratio and workerd memory/CPU, and compares
// the prompt bytes of each turn with the naive approach (every resource of
// both servers pasted into the prompt), computed from the same servers in the
// same run. Reports memory per live conversation and after deletion: workerd's
// RSS while the N conversations live and 10 s after they are deleted, then a
// second round of N (is what the first freed reused?) in which the Worker's
// JavaScript heap is measured and our objects counted, alive and deleted —
// side by side with the same N against a Durable Object Worker that holds
// nothing (bench/floor without a model: the runtime's own cost under wrangler dev).
// Writes its own section of BENCHMARKS.md.
//
//   npm run bench:load                          # N = 50, 200, 500; M = 6
//   LOAD_N=50 LOAD_TURNS=4 npm run bench:load   # a quick check
//   LOAD_FROM=run.log npm run bench:load        # re-render the BENCH_LOAD lines of a saved run's output
//   LOAD_CENSUS=0 LOAD_FLOOR=0 npm run bench:load   # no second round, no floor Worker (faster)
//
// Ports: wrangler dev 8795 (inspector 8796), the floor Worker 8797 (8798),
// server-everything 6911, its counting proxy 6912 (LOAD_PORT,
// LOAD_INSPECTOR_PORT, LOAD_FLOOR_PORT, LOAD_FLOOR_INSPECTOR_PORT, LOAD_HELPER_PORT).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createConversation, catalog, deleteConversation, percentile, readResource, runTurn } from './lib/client.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { failureCensus, startEverything, startWrangler, NO_LIMITS } from './lib/stack.mjs';
import { heapCensus, workerInspector } from './lib/inspector.mjs';
import { CENSUS_NAMES } from './heap-census.mjs';

const NS = (process.env.LOAD_N ?? '50,200,500').split(',').map(Number);
const TURNS = Number(process.env.LOAD_TURNS ?? 6);
const PORT = Number(process.env.LOAD_PORT ?? 8795);
const INSPECTOR_PORT = Number(process.env.LOAD_INSPECTOR_PORT ?? 8796);
const HELPER_PORT = Number(process.env.LOAD_HELPER_PORT ?? 6911);
const FLOOR_PORT = Number(process.env.LOAD_FLOOR_PORT ?? 8797);
const FLOOR_INSPECTOR_PORT = Number(process.env.LOAD_FLOOR_INSPECTOR_PORT ?? 8798);
/**
 * A second round of N conversations on the same stack, for memory only: its RSS with N alive (before anything else),
 * then the heap census. A heap snapshot costs workerd tens to hundreds of MiB of RSS itself (kept, like the rest), so
 * the first round's RSS figures are taken with no inspector attached, and nothing is read after a snapshot but heaps.
 */
const CENSUS = process.env.LOAD_CENSUS !== '0';
const FLOOR = process.env.LOAD_FLOOR !== '0';
/** How long after the deletes memory is read again: deleted objects are aborted at once; this shows nothing else follows. */
const SETTLE_MS = 10_000;
const WRITE = process.env.LOAD_WRITE !== '0';

/** Turn i of every conversation asks QUESTIONS[i % 6]: both servers, two documents each, then the first two again. */
const QUESTIONS = [
  { text: 'What do the team guidelines say about estimates?', server: 'demo', uri: 'task://guidelines' },
  {
    text: 'How does the architecture document describe transports?',
    server: 'everything',
    uri: 'demo://resource/static/document/architecture.md',
  },
  { text: 'Which products does the release test matrix cover?', server: 'demo', uri: 'docs://test-matrix' },
  {
    text: 'What features does the features document list?',
    server: 'everything',
    uri: 'demo://resource/static/document/features.md',
  },
  { text: 'What do the team guidelines say about closing a task?', server: 'demo', uri: 'task://guidelines' },
  {
    text: 'What does the architecture document say about the server structure?',
    server: 'everything',
    uri: 'demo://resource/static/document/architecture.md',
  },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One conversation: create, M turns in sequence, then delete. */
async function conversation(base, turns, results) {
  let id;
  try {
    id = await createConversation(base);
  } catch (error) {
    results.setupFailures.push(`create: ${error.message}`);
    return;
  }
  const history = [];
  for (let i = 0; i < turns; i++) {
    const question = QUESTIONS[i % QUESTIONS.length];
    const turn = await runTurn(base, id, question.text);
    const read = turn.reads[0];
    if (
      !turn.problems.length &&
      (turn.reads.length !== 1 || read.server !== question.server || read.uri !== question.uri)
    ) {
      const state = await catalog(base, id).then(
        (c) => c.servers.find((s) => s.id === question.server),
        () => undefined,
      );
      const server = state
        ? `${state.status}${state.error ? ` (${state.error})` : ''}, ${state.resources.length} resources`
        : 'unknown';
      turn.problems.push(
        `expected one read of ${question.server} ${question.uri}, got ${JSON.stringify(turn.reads.map((r) => [r.server, r.uri]))}; server ${server}; answer: "${turn.answer.slice(0, 80)}"`,
      );
    }
    results.turns.push({
      index: i,
      ms: turn.ms,
      reads: turn.reads.map(({ server, cache }) => ({ server, cache })),
      inputTokens: turn.metadata?.usage?.inputTokens,
      problems: turn.problems,
    });
    history.push({ question: question.text, answer: turn.answer });
  }
  results.histories.push(history);
  results.ids.push(id);
}

/**
 * The naive host's prompt for each turn of a conversation: every text
 * resource of both servers pasted into the system prompt after each server's
 * instructions, then the conversation (questions and the same answers),
 * one model call per turn. Serialised like the offline model's own measure
 * (JSON of the AI SDK prompt), so the two counts compare.
 */
async function naivePrompts(base, history) {
  const id = await createConversation(base);
  const { servers } = await catalog(base, id);
  const parts = [];
  let binaries = 0;
  let textResources = 0;
  for (const server of servers) {
    parts.push(`## Server "${server.id}"\n${server.instructions ?? ''}`);
    for (const resource of server.resources) {
      const read = await readResource(base, id, server.id, resource.uri);
      for (const content of read.contents) {
        if (content.text === undefined) {
          binaries++; // a naive host would decode it as text or drop it; counted as nothing here (in its favour)
          continue;
        }
        textResources++;
        parts.push(`<resource uri="${content.uri}" mime="${content.mimeType ?? ''}">\n${content.text}\n</resource>`);
      }
    }
  }
  await deleteConversation(base, id);
  const system = `You are a helpful assistant. These are the documents of the connected servers:\n\n${parts.join('\n\n')}`;
  const bytes = [];
  const messages = [{ role: 'system', content: system }];
  for (const { question, answer } of history) {
    messages.push({ role: 'user', content: [{ type: 'text', text: question }] });
    bytes.push(JSON.stringify(messages).length);
    messages.push({ role: 'assistant', content: [{ type: 'text', text: answer }] });
  }
  return {
    bytes,
    systemBytes: system.length,
    textResources,
    binaries,
    resources: servers.map((s) => `${s.id}: ${s.resources.length}`).join(', '),
  };
}

const mib = (bytes) => bytes / 2 ** 20;

/** The Worker's heap after a full collection and our objects in it; undefined when its inspector cannot be reached. */
async function heapOf(url) {
  if (!url) return undefined;
  try {
    return await heapCensus(url, CENSUS_NAMES);
  } catch (error) {
    console.log(`heap census failed: ${error.message}`);
    return undefined;
  }
}

/**
 * Memory of one stack: RSS at start, after the first N's turns (per conversation) and 10 s after their deletion; RSS
 * after the second N's turns; the heap then and after their deletion, with our objects counted in each.
 */
function memoryOf(n, startMiB, first, second) {
  const heap = second?.heapAlive &&
    second.heapDeleted && {
      aliveMiB: second.heapAlive.usedMiB,
      deletedMiB: second.heapDeleted.usedMiB,
      objectsAlive: second.heapAlive.counts,
      objectsDeleted: second.heapDeleted.counts,
    };
  return {
    rssStartMiB: startMiB,
    rssAliveMiB: first.aliveMiB,
    rssPerConversationMiB: (first.aliveMiB - startMiB) / n,
    rssAfterDeleteMiB: first.deletedMiB,
    ...(second ? { rssSecondAliveMiB: second.aliveMiB } : {}),
    ...(heap ? { heap } : {}),
  };
}

/** The second round: N conversations started by `start` (their ids), RSS, the heap alive, deleted, the heap after. */
async function censusRound(stack, workerName, start) {
  const ids = await start();
  const aliveMiB = mib(stack.workerd().rss);
  const inspector = await workerInspector(stack.workerd().pids, workerName);
  const heapAlive = await heapOf(inspector);
  await Promise.all(ids.map((id) => deleteConversation(stack.base, id).catch(() => undefined)));
  await sleep(SETTLE_MS);
  return { aliveMiB, heapAlive, heapDeleted: await heapOf(inspector) };
}

/**
 * The same N against bench/floor without a model (Durable Objects that hold nothing): N created at once, each sent M "turns"
 * (two SQLite rows each), then deleted (deleteAll, abort) — what workerd keeps by itself; and a second round the same.
 */
async function floorMemory(n) {
  const floor = await startWrangler({
    port: FLOOR_PORT,
    inspectorPort: FLOOR_INSPECTOR_PORT,
    vars: {},
    config: 'bench/floor/wrangler.jsonc',
  });
  const start = () =>
    Promise.all(
      Array.from({ length: n }, async () => {
        const id = await createConversation(floor.base);
        for (let i = 0; i < TURNS; i++)
          await (await fetch(`${floor.base}/v1/conversations/${id}/messages`, { method: 'POST' })).text();
        return id;
      }),
    );
  try {
    const startMiB = mib(floor.workerd().rss);
    const ids = await start();
    const aliveMiB = mib(floor.workerd().rss);
    await Promise.all(ids.map((id) => deleteConversation(floor.base, id)));
    await sleep(SETTLE_MS);
    const first = { aliveMiB, deletedMiB: mib(floor.workerd().rss) };
    const second = CENSUS ? await censusRound(floor, 'mcp-ondemand-floor', start) : undefined;
    return memoryOf(n, startMiB, first, second);
  } finally {
    await floor.stop();
  }
}

async function runOnce(n) {
  const everything = await startEverything({ port: HELPER_PORT, proxyPort: HELPER_PORT + 1 });
  let wrangler;
  try {
    wrangler = await startWrangler({
      port: PORT,
      inspectorPort: INSPECTOR_PORT,
      vars: {
        AUTH_DISABLED: 'true',
        ...NO_LIMITS,
        MCP_SERVERS: JSON.stringify([
          { id: 'demo', url: '/demo/mcp' },
          { id: 'everything', url: everything.url },
        ]),
      },
    });
    const results = { turns: [], histories: [], ids: [], setupFailures: [] };
    const census = failureCensus(wrangler);
    const rss = [];
    const before = wrangler.workerd();
    const loadAverage = os.loadavg()[0];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rss.push(wrangler.workerd().rss);
        await sleep(250);
      }
    })();

    const started = performance.now();
    await Promise.all(Array.from({ length: n }, () => conversation(wrangler.base, TURNS, results)));
    const wallMs = performance.now() - started;
    const cpuMs = wrangler.workerd().cpuMs - before.cpuMs;
    sampling = false;
    await sampler;
    const rssPeak = Math.max(...rss);
    // Taken before anything else reads the server (the naive bytes below open a session of their own).
    const upstream = everything.counts();
    const sessionsCreated = everything.sessionsCreated();
    const forwardErrors = everything.forwardErrors();
    const failures = census.stop();
    // The N conversations are alive here (their MCP sessions open): what each holds.
    const rssAlive = wrangler.workerd().rss;
    if (failures.length)
      console.log(
        `log lines with an outcome other than ok (N = ${n}):\n${failures
          .slice(0, 15)
          .map((f) => `  ${f.count} × ${f.what}`)
          .join('\n')}`,
      );

    // Conversations are deleted after the measurement (their MCP sessions end with DELETE).
    const deleteFailures = [];
    await Promise.all(
      results.ids.map((id) => deleteConversation(wrangler.base, id).catch((e) => deleteFailures.push(e.message))),
    );
    const rssAfterDelete = wrangler.workerd().rss;
    await sleep(SETTLE_MS);
    const rssSettled = wrangler.workerd().rss;
    const second = CENSUS
      ? await censusRound(wrangler, 'mcp-ondemand', async () => {
          const again = { turns: [], histories: [], ids: [], setupFailures: [] };
          await Promise.all(Array.from({ length: n }, () => conversation(wrangler.base, TURNS, again)));
          return again.ids;
        })
      : undefined;

    const naive = await naivePrompts(wrangler.base, results.histories[0] ?? []);

    const turns = results.turns;
    const failed = turns.filter((t) => t.problems.length);
    const reads = turns.flatMap((t) => t.reads);
    const by = (server) => {
      const mine = reads.filter((r) => server === undefined || r.server === server);
      const count = (source) => mine.filter((r) => r.cache === source).length;
      return {
        reads: mine.length,
        memory: count('memory'),
        kv: count('kv'),
        miss: count('miss'),
        hitRatio: mine.length ? (count('memory') + count('kv')) / mine.length : NaN,
      };
    };
    const oursBytes = Array.from({ length: TURNS }, (_, i) => {
      const values = turns.filter((t) => t.index === i && t.inputTokens !== undefined).map((t) => t.inputTokens * 4);
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
    });
    const ms = turns.filter((t) => !t.problems.length).map((t) => t.ms);
    const firstMs = turns.filter((t) => !t.problems.length && t.index === 0).map((t) => t.ms);
    const laterMs = turns.filter((t) => !t.problems.length && t.index > 0).map((t) => t.ms);
    return {
      n,
      turnsPerConversation: TURNS,
      turns: turns.length,
      errors: failed.length + results.setupFailures.length,
      errorSamples: [...results.setupFailures, ...failed.flatMap((t) => t.problems)].slice(0, 5),
      failures: failures.slice(0, 15),
      deleteFailures: deleteFailures.length,
      wallMs,
      turnsPerSecond: turns.length / (wallMs / 1000),
      p50: percentile(ms, 50),
      p99: percentile(ms, 99),
      max: percentile(ms, 100),
      firstTurnP50: percentile(firstMs, 50),
      laterTurnP50: percentile(laterMs, 50),
      laterTurnP99: percentile(laterMs, 99),
      cache: { all: by(), demo: by('demo'), everything: by('everything') },
      upstreamReadsEverything: upstream['resources/read'] ?? 0,
      // Sessions the server created (its answers to initialize), beside the initialize requests the proxy received:
      // a request the proxy could not forward (forwardErrors) counts there, not here.
      upstreamSessionsEverything: sessionsCreated,
      upstreamInitializeEverything: upstream.initialize ?? 0,
      proxyForwardErrors: forwardErrors,
      workerd: {
        rssStartMiB: before.rss / 2 ** 20,
        rssPeakMiB: rssPeak / 2 ** 20,
        rssAfterDeleteMiB: rssAfterDelete / 2 ** 20,
        cpuPercentOfOneCore: (cpuMs / wallMs) * 100,
      },
      memory: {
        ours: memoryOf(n, mib(before.rss), { aliveMiB: mib(rssAlive), deletedMiB: mib(rssSettled) }, second),
        ...(FLOOR ? { floor: await floorMemory(n) } : {}),
      },
      loadAverageBefore: loadAverage,
      bytes: {
        ours: oursBytes,
        naive: naive.bytes,
        naiveSystemBytes: naive.systemBytes,
        naiveTextResources: naive.textResources,
        naiveBinariesSkipped: naive.binaries,
        resources: naive.resources,
      },
    };
  } finally {
    await wrangler?.stop();
    await everything.stop();
  }
}

const fmt = (x, digits = 0) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const kb = (x) => `${fmt(x / 1000, 1)} KB`;
const pct = (x) => `${fmt(x * 100, 1)} %`;
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The memory table: per N, ours and the floor. */
function memorySection(runs) {
  const rows = runs.flatMap((r) =>
    Object.entries(r.memory ?? {}).map(([side, x]) => {
      // Per conversation alive at the census: one idle since its last turn may have been evicted already.
      const alive = x.heap?.objectsAlive[side === 'ours' ? 'McpSessions' : 'workerd / DurableObjectBase'];
      const each = alive
        ? `${fmt(((x.heap.aliveMiB - x.heap.deletedMiB) * 1024) / alive)} KiB each of ${fmt(alive)}`
        : 'all evicted by then';
      const heap = x.heap ? `${fmt(x.heap.aliveMiB, 1)} → ${fmt(x.heap.deletedMiB, 1)} MiB (${each})` : 'n/a';
      const objects = x.heap
        ? Object.entries(x.heap.objectsAlive)
            .filter(([, count]) => count > 0)
            .map(([name, count]) => `${name} ${fmt(count)} → ${fmt(x.heap.objectsDeleted[name] ?? 0)}`)
            .join(' · ') || 'none'
        : 'n/a';
      const second = x.rssSecondAliveMiB === undefined ? 'n/a' : `${fmt(x.rssSecondAliveMiB)} MiB`;
      return `| ${r.n} | ${side === 'ours' ? 'mcp-ondemand' : 'floor (holds nothing)'} | ${fmt(x.rssStartMiB)} MiB | ${fmt(x.rssAliveMiB)} MiB (${fmt(x.rssPerConversationMiB, 2)} MiB each) | ${fmt(x.rssAfterDeleteMiB)} MiB | ${second} | ${heap} | ${objects} |`;
    }),
  );
  if (!rows.length) return '';
  return `### Memory: per live conversation, and after deletion

Same runs, same stacks. workerd's RSS (both processes, from /proc) before the run; once the N conversations' turns
have ended (each still holds its MCP sessions and cache; none deleted yet); ${SETTLE_MS / 1000} s after all of them were deleted
(sessions ended, storage deleted, the object aborted); then once a second N, started after the deletes on the same
process, have had their turns (is what the first N freed used again?). In that second round the Worker's JavaScript
heap is measured through workerd's V8 inspector — after the full garbage collection a heap snapshot makes — before
and ${SETTLE_MS / 1000} s after the deletes, and our objects are counted in the snapshots (bench/heap-census.mjs's names; those
with none alive are left out). A conversation idle since its last turn may already have been evicted by then: the
count of \`McpSessions\` (one per conversation in memory) says how many were there, and the heap per conversation is
per those. The snapshots cost workerd RSS of their own, so no RSS is read after one. Beside ours, the same N against
a Durable Object Worker that holds nothing (bench/floor without a model: each "turn" a POST storing two SQLite rows,
deleted the same way): what workerd keeps by itself under \`wrangler dev\`. What holds the rest, and why it is not
given back: docs/RELIABILITY.md ("Memory after deletion").

| N | Worker | RSS start | after the N's turns (per conversation) | ${SETTLE_MS / 1000} s after deleting them | after a second N's turns | JS heap, second N: alive → deleted (per conversation in memory) | our objects: alive → deleted |
|---|---|---|---|---|---|---|---|
${rows.join('\n')}
`;
}

function render(runs, m) {
  const rows = runs.map(
    (r) =>
      `| ${r.n} | ${fmt(r.turns)} | ${fmt(r.wallMs / 1000, 1)} s | ${fmt(r.turnsPerSecond, 1)} | ${fmt(r.p50)} ms | ${fmt(r.p99)} ms | ${fmt(r.firstTurnP50)} / ${fmt(r.laterTurnP50)} ms | **${r.errors}** | ${pct(r.cache.all.hitRatio)} (${fmt(r.cache.all.memory)} memory, ${fmt(r.cache.all.kv)} KV, ${fmt(r.cache.all.miss)} miss) | ${fmt(r.cache.everything.miss)} / ${fmt(r.upstreamReadsEverything)} / ${fmt(r.upstreamSessionsEverything)} (${fmt(r.upstreamInitializeEverything)}) | ${fmt(r.workerd.rssStartMiB)} → ${fmt(r.workerd.rssPeakMiB)} MiB | ${fmt(r.workerd.cpuPercentOfOneCore)} % |`,
  );
  // The per-turn table comes from the largest run without errors (a turn that failed to read skews its bytes).
  const last = runs.filter((r) => !r.errors).at(-1) ?? runs[runs.length - 1];
  const byTurn = last.bytes.ours.map(
    (ours, i) =>
      `| ${i + 1} | ${QUESTIONS[i % QUESTIONS.length].text} | ${kb(ours)} | ${kb(last.bytes.naive[i])} | ${fmt(last.bytes.naive[i] / ours, 1)}× |`,
  );
  const perRun = runs
    .map(
      (r) =>
        `N = ${r.n}: ours ${kb(mean(r.bytes.ours))}, naive ${kb(mean(r.bytes.naive))} per turn (${fmt(mean(r.bytes.naive) / mean(r.bytes.ours), 1)}×)`,
    )
    .join(' · ');
  // The published figures of 2026-11-30 (same command, same kind of machine), before lazy connection and the rest of issue 24.
  const before = { 50: [19.9, 1590, 4990, 50], 200: [25.6, 5392, 16934, 200], 500: [22.9, 16315, 46778, 554] };
  const compared = [...new Set(runs.map((r) => r.n))]
    .filter((n) => before[n])
    .map((n) => {
      const [tps, p50, p99, sessions] = before[n];
      const now = runs.filter((r) => r.n === n);
      const list = (f) => now.map(f).join(' / ');
      return `N = ${n}: ${tps} → ${list((r) => fmt(r.turnsPerSecond, 1))} turns/s, p50 ${fmt(p50)} → ${list((r) => fmt(r.p50))} ms, p99 ${fmt(p99)} → ${list((r) => fmt(r.p99))} ms, sessions opened ${sessions} → ${list((r) => fmt(r.upstreamSessionsEverything))}`;
    });
  const dropped = runs
    .filter((r) => Object.keys(r.proxyForwardErrors ?? {}).length)
    .map(
      (r) =>
        `N = ${r.n}: ${Object.entries(r.proxyForwardErrors)
          .map(([code, count]) => `${count} × ${code}`)
          .join(', ')}`,
    );
  const census = runs
    .filter((r) => r.failures?.length)
    .map((r) => `N = ${r.n}: ${r.failures.map((f) => `${f.count} × ${f.what}`).join('; ')}`);
  const problems = runs
    .filter((r) => r.errors || r.deleteFailures)
    .map(
      (r) =>
        `N = ${r.n}: ${r.errors} errors, ${r.deleteFailures} failed deletes; distinct first ones: ${[...new Set(r.errorSamples)].map((e) => `"${e}"`).join(', ')}`,
    );
  return `## Load: concurrent conversations through wrangler dev

Command: \`npm run bench:load\` (bench/load.mjs; \`LOAD_N\` and \`LOAD_TURNS\` override N and M) · ${machineLine(m)}

N conversations at once, each running M = ${runs[0].turnsPerConversation} turns in sequence over HTTP (POST /v1/conversations, then
POST /v1/conversations/:id/messages, reading each SSE stream to its end) against one local \`wrangler dev\`
(one workerd process, fresh state for each N) with two MCP servers: the demo server inside the Worker and
@modelcontextprotocol/server-everything (a Node process on 127.0.0.1, behind a proxy that counts what reaches it).
Model: \`offline\`, so every turn is two model steps (read_resource, then the answer) and all the time is ours and the
servers'. The turns ask, in order: ${QUESTIONS.map((q) => `"${q.text}" (${q.server})`).join(', ')}.
Turn limits are raised for the run (\`TURNS_PER_MINUTE_PER_USER\`/\`_PER_TENANT\` = 10⁸): every conversation is the same end user.
The load generator runs on the same ${m.cores} cores as workerd and server-everything (1-minute load average before each run:
${runs.map((r) => `${fmt(r.loadAverageBefore, 2)} at N = ${r.n}`).join(', ')}). workerd figures add up its two processes under wrangler (a small proxy in front, and
the Worker's), sampled from /proc every 250 ms.

| N | turns | wall time | turns/s | p50 turn | p99 turn | p50 first / later turns | errors | cache hit ratio (reads by source) | server-everything: misses / reads it received / sessions it created (initialize requests) | workerd RSS start → peak | workerd CPU (% of one core) |
|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

An error is any turn whose HTTP status was not 200, whose stream carried an \`error\` chunk or a failed tool call, ended
without \`finish\`, or read anything but the one resource its question names; and any failed conversation create.
${problems.length ? `Errors seen: ${problems.join('; ')}. Why, and what it means: docs/RELIABILITY.md ("Load").` : 'Every turn of every run completed and read the expected resource.'}
Cache hit ratio: the \`cache\` field of every \`read_resource\` result in the streams (memory = the conversation's own
memory layer, KV = a copy another conversation wrote, miss = an MCP \`resources/read\`); the server's own count of
\`resources/read\` is beside it as a check. The first turn includes the conversation's MCP set-up (two sessions:
initialize, catalogs, subscriptions) — or none of it: a conversation whose servers' catalogs and reads the tenant's
shared copies serve does not connect (docs/MCP-CLIENT.md, "Connecting, set-up, robustness"); here the N first turns start
at once, so most of them find no copy yet and connect. Conversations were deleted after each run (${runs.map((r) => `${r.deleteFailures} failed deletes at N = ${r.n}`).join(', ')}).
${compared.length ? `Against the published run of 2026-11-30: ${compared.join(' · ')}.` : ''}
Log lines whose outcome was not \`ok\` (each retried or reported as the table says): ${census.length ? census.join(' · ') : 'none'}.
Requests the counting proxy in front of server-everything could not forward (it then drops the Worker's connection, which
the Worker sees as "Network connection lost"): ${dropped.length ? dropped.join(' · ') : 'none'}.

### Bytes sent to the model per turn: catalog vs pasting every resource

Same run. Ours: what the model received, summed over the turn's two steps — the offline model reports
⌈JSON length of the AI SDK prompt / 4⌉ as input tokens for each call, so this is 4 × inputTokens (characters of
system prompt with the catalog, history, question, tool call and result); per turn from the N = ${last.n} run. Naive: the same conversation with every text
resource of both servers (${last.bytes.naiveTextResources} documents: ${last.bytes.resources}; ${last.bytes.naiveBinariesSkipped} binaries left out,
in its favour; templates cannot be pasted) in the system prompt (${kb(last.bytes.naiveSystemBytes)}), and one model call per turn, serialised
the same way. History counts in both: our later turns carry earlier turns' reads as one-line notes (EARLIER_READS_BUDGET_CHARS, 0 by
default; reading again is a cache hit), so ours stays near the catalog, the conversation's text and this turn's read,
while naive stays at the size of the corpus (48 KB here: a small corpus).
Neither count includes tool definitions (the same MCP tools in both; ours adds the four synthetic tools).

| turn | question | ours | naive | naive / ours |
|---|---|---|---|---|
${byTurn.join('\n')}

Mean per turn: ${perRun}.

${memorySection(runs)}`;
}

const m = machine();
const runs = [];
if (process.env.LOAD_FROM) {
  for (const match of readFileSync(process.env.LOAD_FROM, 'utf8').matchAll(/^BENCH_LOAD (\{.*\})$/gm))
    runs.push(JSON.parse(match[1]));
  if (!runs.length) throw new Error(`no BENCH_LOAD lines in ${process.env.LOAD_FROM}`);
  if (process.env.LOAD_MEASURED) m.date = process.env.LOAD_MEASURED;
} else {
  for (const n of NS) {
    console.log(`load: N = ${n}, M = ${TURNS} …`);
    const result = await runOnce(n);
    console.log(`BENCH_LOAD ${JSON.stringify(result)}`);
    runs.push(result);
    await sleep(1000);
  }
}
const section = render(runs, m);
console.log(`\n${section}`);
if (WRITE) writeSection('BENCHMARKS.md', 'bench-load', section);
process.exit(runs.some((r) => r.errors) ? 1 : 0);
