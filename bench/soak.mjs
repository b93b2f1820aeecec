// Soak: conversations read task://guidelines over and over through a real
// `wrangler dev` while an updater rewrites it (update_guidelines over MCP)
// every few seconds. Every read is checked against the updates committed
// before it started, and workerd's memory is sampled throughout. Not part of
// `npm test`.
//
//   npm run soak                      # 10 minutes
//   SOAK_MINUTES=1 npm run soak       # a quick check
//
// Env: SOAK_MINUTES (10), SOAK_CONVERSATIONS (20 at a time), SOAK_TURNS (20
// turns each, then it is deleted and a new one starts), SOAK_UPDATE_MS (2000),
// SOAK_GRACE_MS (1000), SOAK_PORT (8797; inspector +1), SOAK_HELPER_PORT (6921, +1),
// SOAK_WRITE (1: write docs/RELIABILITY.md's result section; default only for a full run).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import os from 'node:os';
import { createConversation, deleteConversation, readResource, runTurn } from './lib/client.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { startEverything, startWrangler, NO_LIMITS } from './lib/stack.mjs';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const CONVERSATIONS = Number(process.env.SOAK_CONVERSATIONS ?? 20);
const TURNS = Number(process.env.SOAK_TURNS ?? 20);
const UPDATE_MS = Number(process.env.SOAK_UPDATE_MS ?? 2000);
const GRACE_MS = Number(process.env.SOAK_GRACE_MS ?? 1000);
const PORT = Number(process.env.SOAK_PORT ?? 8797);
const HELPER_PORT = Number(process.env.SOAK_HELPER_PORT ?? 6921);
const WRITE = process.env.SOAK_WRITE ? process.env.SOAK_WRITE === '1' : MINUTES >= 10;
const SAMPLE_MS = 5000;
const CACHE_MAX_AGE_MS = 300_000; // the default of the setting: the staleness bound for reads the guarantee does not cover
const URI = 'task://guidelines';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const guidelines = (version) => `Team guidelines (Acme Tasks), revision ${version}

1. Every task has one owner. Unassigned tasks are picked up at the daily stand-up.
2. Estimate in hours, never more than 8 for a single task: split anything bigger.
3. Close a task only when its change is merged and deployed to staging.
4. Keep work in progress low: no more than 2 open tasks per person at a time.

Revision ${version} of these guidelines.
`;
const versionOf = (text) => {
  const match = /revision (\d+)/.exec(text ?? '');
  return match ? Number(match[1]) : 0; // 0: the demo's default text, before the first update
};

/** The updater: its own MCP session with the demo server; version k is committed when update_guidelines returns. */
async function startUpdater(base) {
  const client = new Client({ name: 'soak-updater', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/demo/mcp`)));
  const commits = []; // commits[k - 1] = time (ms since epoch) update k was acknowledged
  const sent = []; // sent[k - 1] = time update k was sent (the server applied it after this)
  const failures = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const version = commits.length + 1;
      sent[version - 1] = Date.now();
      try {
        const result = await client.callTool({ name: 'update_guidelines', arguments: { text: guidelines(version) } });
        if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 200));
        commits.push(Date.now());
      } catch (error) {
        failures.push(error.message);
      }
      await sleep(UPDATE_MS);
    }
  })();
  return {
    commits,
    sent,
    failures,
    /** Latest version acknowledged at or before `time`. */
    committedBy: (time) => {
      let v = 0;
      while (v < commits.length && commits[v] <= time) v++;
      return v;
    },
    /** Oldest version sent at or after `time` (later versions were applied after it), minus one. */
    sentBefore: (time) => {
      let v = 0;
      while (v < sent.length && sent[v] < time) v++;
      return v;
    },
    async stop() {
      stopped = true;
      await loop;
      await client.close();
    },
  };
}

/**
 * One check per read. The guarantee covers notifications that reached the
 * conversation, and a conversation is subscribed once its first read of the
 * URI has returned (`subscribedAt`): an update *sent* after that notifies it.
 * - `required`: the newest such update acknowledged at least GRACE_MS before
 *   the read started (its notification had that long to arrive). A read older
 *   than it is a **violation** (or a lost notification — a failure too).
 * - in flight: a read of an older revision than the newest acknowledged
 *   before it started, but not older than `required`: the notification is
 *   still on its way. Counted, with how long after the acknowledgement.
 * - not covered: the conversation's first read, and reads before any update
 *   reached it, may get another conversation's KV copy (docs/ARCHITECTURE.md,
 *   "Limits of those guarantees"): checked against the CACHE_MAX_AGE_MS bound
 *   instead — the revision must have been current within that long.
 */
function check(stats, updater, conversation, startedAt, text, how) {
  const got = versionOf(text);
  const latest = updater.committedBy(startedAt);
  const heardFrom = conversation.subscribedAt === undefined ? Infinity : updater.sentBefore(conversation.subscribedAt) + 1;
  const acknowledged = updater.committedBy(startedAt - GRACE_MS);
  const required = acknowledged >= heardFrom ? acknowledged : 0;
  stats.reads++;
  stats[how]++;
  stats.versionsSeen.add(got);
  if (got > updater.commits.length + 1) stats.violations.push({ how, got, impossible: true });
  if (required) {
    stats.covered++;
    if (got < required) stats.violations.push({ how, got, required, latest, startedAt, subscribedAt: conversation.subscribedAt });
    else if (got < latest) {
      stats.inFlight++;
      stats.maxInFlightMs = Math.max(stats.maxInFlightMs, startedAt - updater.commits[got]);
    }
  } else if (got < latest) {
    // Superseded when update got + 1 was acknowledged: how stale is it?
    const staleMs = startedAt - updater.commits[got];
    stats.uncoveredStale++;
    stats.maxUncoveredStaleMs = Math.max(stats.maxUncoveredStaleMs, staleMs);
    if (staleMs > CACHE_MAX_AGE_MS) stats.violations.push({ how, got, latest, staleMs, uncovered: true });
  }
}

async function reader(base, updater, stats, until) {
  while (Date.now() < until) {
    let id;
    try {
      id = await createConversation(base);
      stats.conversations++;
      const conversation = { subscribedAt: undefined };
      for (let i = 0; i < TURNS && Date.now() < until; i++) {
        const turn = await runTurn(
          base,
          id,
          i % 2 ? 'What do the team guidelines say about estimates?' : 'How many open tasks may a person have under the team guidelines?',
        );
        const read = turn.reads.find((r) => r.uri === URI);
        if (turn.problems.length || !read) stats.errors.push(turn.problems[0] ?? `no read of ${URI}: ${JSON.stringify(turn.reads.map((r) => r.uri))}`);
        else {
          check(stats, updater, conversation, turn.startedAt, read.text, 'turn');
          conversation.subscribedAt ??= Date.now(); // the read returned, so the subscription is in place
        }
        const startedAt = Date.now();
        const direct = await readResource(base, id, 'demo', URI);
        check(stats, updater, conversation, startedAt, direct.contents[0]?.text, 'direct');
        conversation.subscribedAt ??= Date.now();
      }
    } catch (error) {
      stats.errors.push(error.message);
    } finally {
      if (id) await deleteConversation(base, id).catch((error) => stats.errors.push(`delete: ${error.message}`));
    }
  }
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const num = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return den ? num / den : 0;
}

const m = machine();
const everything = await startEverything({ port: HELPER_PORT, proxyPort: HELPER_PORT + 1 });
let wrangler;
let updater;
let result;
try {
  wrangler = await startWrangler({
    port: PORT,
    inspectorPort: PORT + 1,
    vars: {
      AUTH_DISABLED: 'true',
      ...NO_LIMITS,
      MCP_SERVERS: JSON.stringify([
        { id: 'demo', url: '/demo/mcp' },
        { id: 'everything', url: everything.url },
      ]),
    },
  });
  const started = Date.now();
  const until = started + MINUTES * 60_000;
  const samples = [];
  const sample = () => samples.push({ minutes: (Date.now() - started) / 60_000, rssMiB: wrangler.workerd().rss / 2 ** 20 });
  sample();
  updater = await startUpdater(wrangler.base);
  const stats = {
    versionsSeen: new Set(),
    covered: 0,
    uncoveredStale: 0,
    maxUncoveredStaleMs: 0,
    reads: 0,
    turn: 0,
    direct: 0,
    inFlight: 0,
    maxInFlightMs: 0,
    conversations: 0,
    violations: [],
    errors: [],
  };
  const sampler = (async () => {
    while (Date.now() < until) {
      await sleep(SAMPLE_MS);
      sample();
      if (samples.length % 12 === 0) {
        const last = samples[samples.length - 1];
        console.log(
          `soak: ${last.minutes.toFixed(1)} min, ${stats.reads} reads, ${updater.commits.length} updates, ${stats.violations.length} violations, ${stats.errors.length} errors, workerd ${last.rssMiB.toFixed(0)} MiB`,
        );
      }
    }
  })();
  await Promise.all(Array.from({ length: CONVERSATIONS }, () => reader(wrangler.base, updater, stats, until)));
  await sampler;
  const updates = updater.commits.length;
  const updateFailures = updater.failures;
  await updater.stop();
  updater = undefined;
  await sleep(2000);
  sample(); // after the last conversation was deleted

  const rss = samples.map((s) => s.rssMiB);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const during = samples.filter((s) => s.minutes <= MINUTES);
  const secondHalf = during.filter((s) => s.minutes >= MINUTES / 2);
  result = {
    minutes: MINUTES,
    conversationsAtOnce: CONVERSATIONS,
    turnsPerConversation: TURNS,
    conversations: stats.conversations,
    reads: stats.reads,
    turnReads: stats.turn,
    directReads: stats.direct,
    updates,
    updateFailures: updateFailures.length,
    updateMs: UPDATE_MS,
    graceMs: GRACE_MS,
    versionsSeen: stats.versionsSeen.size,
    covered: stats.covered,
    uncoveredStale: stats.uncoveredStale,
    maxUncoveredStaleMs: stats.maxUncoveredStaleMs,
    violations: stats.violations.length,
    violationSamples: stats.violations.slice(0, 5),
    inFlight: stats.inFlight,
    maxInFlightMs: stats.maxInFlightMs,
    errors: stats.errors.length,
    errorSamples: stats.errors.slice(0, 5),
    rss: {
      startMiB: rss[0],
      endMiB: during[during.length - 1].rssMiB,
      afterMiB: rss[rss.length - 1],
      maxMiB: Math.max(...rss),
      firstQuarterMeanMiB: mean(during.filter((s) => s.minutes <= MINUTES / 4).map((s) => s.rssMiB)),
      lastQuarterMeanMiB: mean(during.filter((s) => s.minutes >= (3 * MINUTES) / 4).map((s) => s.rssMiB)),
      secondHalfSlopeMiBPerMin: secondHalf.length > 2 ? slope(secondHalf.map((s) => ({ x: s.minutes, y: s.rssMiB }))) : NaN,
      samples: samples.map((s) => [Number(s.minutes.toFixed(2)), Math.round(s.rssMiB)]),
    },
    loadAverage: os.loadavg()[0],
  };
} finally {
  await updater?.stop().catch(() => {});
  await wrangler?.stop();
  await everything.stop();
}

console.log(`BENCH_SOAK ${JSON.stringify(result)}`);
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');
const r = result;
const perMinute = r.rss.samples
  .filter((_, i) => i % 12 === 0 || i === r.rss.samples.length - 1)
  .map(([min, mib]) => `${fmt(min, 1)} min: ${mib}`)
  .join(' · ');
const held = (ok) => (ok ? 'held' : '**did not hold**');
const section = `### Soak result

Command: \`npm run soak\` (bench/soak.mjs) · ${machineLine(m)} · 1-minute load average at the end: ${fmt(r.loadAverage, 2)}

| | |
|---|---|
| duration | ${r.minutes} min, ${r.conversationsAtOnce} conversations at a time, each ${r.turnsPerConversation} turns then deleted (${fmt(r.conversations)} conversations in all) |
| updates of task://guidelines | ${fmt(r.updates)} (every ${fmt(r.updateMs / 1000, 1)} s), ${r.updateFailures} failed |
| reads checked | ${fmt(r.reads)} (${fmt(r.turnReads)} by the model in a turn, ${fmt(r.directReads)} through POST …/resources/read); ${fmt(r.versionsSeen)} distinct revisions seen |
| reads covered by the guarantee (the conversation was subscribed when an update was sent, acknowledged ≥ ${fmt(r.graceMs)} ms before the read) | ${fmt(r.covered)} |
| violations: a covered read older than that update, or any read older than CACHE_MAX_AGE_MS (300 s) | **${r.violations}** — ${held(r.violations === 0)} |
| covered reads of an older revision within ${fmt(r.graceMs)} ms of an update's acknowledgement (notification on its way) | ${fmt(r.inFlight)} (latest ${fmt(r.maxInFlightMs)} ms after the acknowledgement) |
| reads not covered (a conversation's first reads, before it heard of any update) that returned a superseded revision | ${fmt(r.uncoveredStale)} (at most ${fmt(r.maxUncoveredStaleMs / 1000, 1)} s after it was superseded; bound 300 s) |
| errors (failed turns, reads, creates, deletes) | **${r.errors}**${r.errors ? ` — first: ${r.errorSamples.join(' | ')}` : ''} |
| workerd RSS (both processes) | start ${fmt(r.rss.startMiB)} MiB · end ${fmt(r.rss.endMiB)} MiB · max ${fmt(r.rss.maxMiB)} MiB · 2 s after the last delete ${fmt(r.rss.afterMiB)} MiB |
| trend | first-quarter mean ${fmt(r.rss.firstQuarterMeanMiB)} MiB, last-quarter mean ${fmt(r.rss.lastQuarterMeanMiB)} MiB; slope over the second half ${fmt(r.rss.secondHalfSlopeMiBPerMin, 1)} MiB/min |

RSS by minute (MiB): ${perMinute}.
`;
console.log(`\n${section}`);
if (WRITE) writeSection('docs/RELIABILITY.md', 'soak-result', section);
process.exit(r.violations || r.errors ? 1 : 0);
