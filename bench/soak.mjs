// Soak: conversations read task://guidelines over and over through a real
// `wrangler dev` while updaters rewrite it every few seconds, on three
// servers: the demo server (2026-07-28, update_guidelines over MCP), and an
// SDK v2 server in Node (bench/lib/guidelines-server.mjs, edited in process)
// spoken in 2026-07-28 ("notes") and in 2025-11-25 ("notes2025": a session,
// its GET stream, resources/subscribe). server-everything is configured
// beside them and one of its static documents read each round (it has no
// resource that changes on request: its reads are checked for errors only).
// Every read is checked against the updates committed before it started, and
// workerd's memory is sampled throughout. Not part of `npm test`.
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
import { catalog, createConversation, deleteConversation, readResource, runTurn } from './lib/client.mjs';
import { startGuidelinesServer } from './lib/guidelines-server.mjs';
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

/** The demo server's updater: its own MCP session; version k is committed when update_guidelines returns. */
async function startUpdater(base) {
  const client = new Client({ name: 'soak-updater', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/demo/mcp`)));
  return updateLoop(
    async (version) => {
      const result = await client.callTool({ name: 'update_guidelines', arguments: { text: guidelines(version) } });
      if (result.isError) throw new Error(JSON.stringify(result.content).slice(0, 200));
    },
    () => client.close(),
  );
}

/** The SDK v2 server's updater: an edit in its process (committed once its notifications are sent). */
const startEditor = (server) =>
  updateLoop(
    async (version) => server.edit(guidelines(version)),
    async () => {},
  );

/** Updates every UPDATE_MS through `apply`; what was sent and acknowledged when. */
function updateLoop(apply, close) {
  const commits = []; // commits[k - 1] = time (ms since epoch) update k was acknowledged
  const sent = []; // sent[k - 1] = time update k was sent (the server applied it after this)
  const failures = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const version = commits.length + 1;
      sent[version - 1] = Date.now();
      try {
        await apply(version);
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
      await close();
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
  const heardFrom =
    conversation.subscribedAt === undefined ? Infinity : updater.sentBefore(conversation.subscribedAt) + 1;
  const acknowledged = updater.committedBy(startedAt - GRACE_MS);
  const required = acknowledged >= heardFrom ? acknowledged : 0;
  stats.reads++;
  stats[how]++;
  stats.versionsSeen.add(got);
  if (got > updater.commits.length + 1) stats.violations.push({ how, got, impossible: true });
  if (required) {
    stats.covered++;
    if (got < required)
      stats.violations.push({ how, got, required, latest, startedAt, subscribedAt: conversation.subscribedAt });
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

/**
 * One conversation after another: each turn (the model reads the guidelines
 * of whichever server it picks), then a direct read of each target's
 * guidelines, and one of server-everything's static documents.
 */
async function reader(base, targets, everything, until) {
  while (Date.now() < until) {
    let id;
    try {
      id = await createConversation(base);
      for (const target of targets) target.stats.conversations++;
      const subscribed = new Map(targets.map((t) => [t.server, { subscribedAt: undefined }]));
      for (let i = 0; i < TURNS && Date.now() < until; i++) {
        const turn = await runTurn(
          base,
          id,
          i % 2
            ? 'What do the team guidelines say about estimates?'
            : 'How many open tasks may a person have under the team guidelines?',
        );
        const read = turn.reads.find((r) => r.uri === URI);
        const target = targets.find((t) => t.server === read?.server);
        if (turn.problems.length || !read || !target)
          targets[0].stats.errors.push(
            turn.problems[0] ?? `no read of ${URI}: ${JSON.stringify(turn.reads.map((r) => [r.server, r.uri]))}`,
          );
        else {
          const conversation = subscribed.get(target.server);
          check(target.stats, target.updater, conversation, turn.startedAt, read.text, 'turn');
          conversation.subscribedAt ??= Date.now(); // the read returned, so the subscription is in place
        }
        for (const target of targets) {
          const conversation = subscribed.get(target.server);
          const startedAt = Date.now();
          try {
            const direct = await readResource(base, id, target.server, URI);
            check(target.stats, target.updater, conversation, startedAt, direct.contents[0]?.text, 'direct');
            conversation.subscribedAt ??= Date.now();
          } catch (error) {
            target.stats.errors.push(`${target.server}: ${error.message}`);
          }
        }
        try {
          await readResource(base, id, 'everything', everything.uri);
          everything.reads++;
        } catch (error) {
          everything.errors.push(error.message);
        }
      }
    } catch (error) {
      targets[0].stats.errors.push(error.message);
    } finally {
      if (id)
        await deleteConversation(base, id).catch((error) => targets[0].stats.errors.push(`delete: ${error.message}`));
    }
  }
}

const newStats = () => ({
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
});

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
const notes = await startGuidelinesServer({ port: HELPER_PORT + 2 });
let wrangler;
const updaters = [];
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
        { id: 'notes', url: notes.url, transport: 'streamable-http', protocol: '2026-07-28' },
        { id: 'notes2025', url: notes.url, transport: 'streamable-http', protocol: '2025-11-25' },
        { id: 'everything', url: everything.url },
      ]),
    },
  });
  const started = Date.now();
  const until = started + MINUTES * 60_000;
  const samples = [];
  const sample = () =>
    samples.push({ minutes: (Date.now() - started) / 60_000, rssMiB: wrangler.workerd().rss / 2 ** 20 });
  sample();
  const demoUpdater = await startUpdater(wrangler.base);
  const notesUpdater = startEditor(notes);
  updaters.push(demoUpdater, notesUpdater);
  const targets = [
    { server: 'demo', era: '2026-07-28 (demo server, in our workerd)', updater: demoUpdater, stats: newStats() },
    { server: 'notes', era: '2026-07-28 (SDK v2 server in Node)', updater: notesUpdater, stats: newStats() },
    {
      server: 'notes2025',
      era: '2025-11-25 (the same SDK v2 server: session, GET stream, subscribe)',
      updater: notesUpdater,
      stats: newStats(),
    },
  ];
  // One of server-everything's static documents (its resources do not change on request).
  const probe = await createConversation(wrangler.base);
  const { servers } = await catalog(wrangler.base, probe);
  await deleteConversation(wrangler.base, probe);
  const everythingReads = { uri: servers.find((x) => x.id === 'everything').resources[0].uri, reads: 0, errors: [] };
  const total = (key) =>
    targets.reduce((sum, t) => sum + (Array.isArray(t.stats[key]) ? t.stats[key].length : t.stats[key]), 0);
  const sampler = (async () => {
    while (Date.now() < until) {
      await sleep(SAMPLE_MS);
      sample();
      if (samples.length % 12 === 0) {
        const last = samples[samples.length - 1];
        console.log(
          `soak: ${last.minutes.toFixed(1)} min, ${total('reads')} reads, ${demoUpdater.commits.length}+${notesUpdater.commits.length} updates, ${total('violations')} violations, ${total('errors') + everythingReads.errors.length} errors, workerd ${last.rssMiB.toFixed(0)} MiB`,
        );
      }
    }
  })();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, () => reader(wrangler.base, targets, everythingReads, until)),
  );
  await sampler;
  const updates = Object.fromEntries(
    targets.map((t) => [t.server, { updates: t.updater.commits.length, failures: t.updater.failures.length }]),
  );
  for (const updater of updaters.splice(0)) await updater.stop();
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
    conversations: targets[0].stats.conversations,
    updateMs: UPDATE_MS,
    graceMs: GRACE_MS,
    targets: targets.map(({ server, era, stats }) => ({
      server,
      era,
      ...updates[server],
      reads: stats.reads,
      turnReads: stats.turn,
      directReads: stats.direct,
      versionsSeen: stats.versionsSeen.size,
      covered: stats.covered,
      uncoveredStale: stats.uncoveredStale,
      maxUncoveredStaleMs: stats.maxUncoveredStaleMs,
      violations: stats.violations.length,
      violationSamples: stats.violations.slice(0, 5),
      inFlight: stats.inFlight,
      maxInFlightMs: stats.maxInFlightMs,
      errors: stats.errors.length,
      errorSamples: stats.errors.slice(0, 3),
    })),
    everything: {
      uri: everythingReads.uri,
      reads: everythingReads.reads,
      errors: everythingReads.errors.length,
      errorSamples: everythingReads.errors.slice(0, 3),
    },
    rss: {
      startMiB: rss[0],
      endMiB: during[during.length - 1].rssMiB,
      afterMiB: rss[rss.length - 1],
      maxMiB: Math.max(...rss),
      firstQuarterMeanMiB: mean(during.filter((s) => s.minutes <= MINUTES / 4).map((s) => s.rssMiB)),
      lastQuarterMeanMiB: mean(during.filter((s) => s.minutes >= (3 * MINUTES) / 4).map((s) => s.rssMiB)),
      secondHalfSlopeMiBPerMin:
        secondHalf.length > 2 ? slope(secondHalf.map((s) => ({ x: s.minutes, y: s.rssMiB }))) : NaN,
      samples: samples.map((s) => [Number(s.minutes.toFixed(2)), Math.round(s.rssMiB)]),
    },
    loadAverage: os.loadavg()[0],
  };
} finally {
  for (const updater of updaters) await updater.stop().catch(() => {});
  await wrangler?.stop();
  await notes.close();
  await everything.stop();
}

console.log(`BENCH_SOAK ${JSON.stringify(result)}`);
const fmt = (x, d = 0) =>
  Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a';
const r = result;
const perMinute = r.rss.samples
  .filter((_, i) => i % 12 === 0 || i === r.rss.samples.length - 1)
  .map(([min, mib]) => `${fmt(min, 1)} min: ${mib}`)
  .join(' · ');
const held = (ok) => (ok ? 'held' : '**did not hold**');
const sum = (key) => r.targets.reduce((s, t) => s + t[key], 0);
const violations = sum('violations');
const errors = sum('errors') + r.everything.errors;
const rows = r.targets
  .map(
    (t) =>
      `| ${t.server} | ${t.era} | ${fmt(t.updates)} (${t.failures} failed) | ${fmt(t.reads)} (${fmt(t.turnReads)} in turns) | ${fmt(t.covered)} | **${t.violations}** | ${fmt(t.inFlight)} (≤ ${fmt(t.maxInFlightMs)} ms) | ${fmt(t.uncoveredStale)} (≤ ${fmt(t.maxUncoveredStaleMs / 1000, 1)} s) | ${t.errors}${t.errors ? `: ${t.errorSamples.join(' | ')}` : ''} |`,
  )
  .join('\n');
const section = `### Soak result

Command: \`npm run soak\` (bench/soak.mjs) · ${machineLine(m)} · 1-minute load average at the end: ${fmt(r.loadAverage, 2)}

${r.minutes} min, ${r.conversationsAtOnce} conversations at a time, each ${r.turnsPerConversation} turns then deleted (${fmt(r.conversations)} conversations in all). Each round: a turn (the model reads task://guidelines of the server it picks), a direct read (POST …/resources/read) of each server's task://guidelines, and one of server-everything's static documents. Each server's guidelines are rewritten every ${fmt(r.updateMs / 1000, 1)} s. A read is *covered* when the conversation was subscribed when an update was sent that was acknowledged ≥ ${fmt(r.graceMs)} ms before the read started; a *violation* is a covered read older than that update, or any read older than CACHE_MAX_AGE_MS (300 s).

| server | protocol | updates | reads | covered | violations | covered, older revision within ${fmt(r.graceMs)} ms of an update (notification on its way) | not covered (first reads), superseded revision | errors |
|---|---|---|---|---|---|---|---|---|
${rows}

Freshness: **${violations}** violations over ${fmt(sum('covered'))} covered reads — ${held(violations === 0)}. server-everything (${r.everything.uri}, checked for errors only): ${fmt(r.everything.reads)} reads, ${r.everything.errors} errors${r.everything.errors ? `: ${r.everything.errorSamples.join(' | ')}` : ''}. Errors in all: **${errors}**.

workerd RSS (both processes): start ${fmt(r.rss.startMiB)} MiB · end ${fmt(r.rss.endMiB)} MiB · max ${fmt(r.rss.maxMiB)} MiB · 2 s after the last delete ${fmt(r.rss.afterMiB)} MiB; first-quarter mean ${fmt(r.rss.firstQuarterMeanMiB)} MiB, last-quarter mean ${fmt(r.rss.lastQuarterMeanMiB)} MiB, slope over the second half ${fmt(r.rss.secondHalfSlopeMiBPerMin, 1)} MiB/min. By minute (MiB): ${perMinute}.
`;
console.log(`\n${section}`);
if (WRITE) writeSection('docs/RELIABILITY.md', 'soak-result', section);
process.exit(violations || errors ? 1 : 0);
