// Runs the benchmarks inside workerd (vitest + @cloudflare/vitest-plugin,
// bench/vitest.config.ts), collects their BENCH_RESULT lines and writes
// BENCHMARKS.md with the command and the machine. Usage: npm run bench
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

const run = spawnSync('vitest', ['run', '--config', 'bench/vitest.config.ts'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, shell: false });
process.stdout.write(run.stdout.split('\n').filter((l) => !l.includes('Sourcemap')).join('\n'));
process.stderr.write(run.stderr);
if (run.status !== 0) process.exit(run.status ?? 1);

const results = {};
for (const match of run.stdout.matchAll(/BENCH_RESULT (\S+) (\{.*\})/g)) results[match[1]] = JSON.parse(match[2]);
const latency = results['read-latency'];
if (!latency) {
  console.error('no BENCH_RESULT read-latency line in the output');
  process.exit(1);
}

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const workerd = JSON.parse(readFileSync('node_modules/workerd/package.json', 'utf8')).version;
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
const ms = (x) => (Math.abs(x) < 0.1 ? `${(x * 1000).toFixed(1)} µs` : `${x.toFixed(2)} ms`);
const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(3)}×` : 'n/a');
const r = latency.results;
const row = (name, ours, base) =>
  `| ${name} | ${ours.reads} (batches of ${ours.batch}) | ${ms(ours.p50)} | ${ms(ours.p99)} | ${ms(base.p50)} | ${ms(base.p99)} | ${ratio(ours.p50, base.p50)} | ${ms(ours.p50 - base.p50)} |`;

const section = `## Resource reads inside the Conversation Durable Object

Command: \`npm run bench\` · measured ${new Date().toISOString().slice(0, 10)} · mcp-ondemand ${pkg.version} · workerd ${workerd} (local, via @cloudflare/vitest-plugin) · Node ${process.versions.node} · ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB

\`McpSessions.readResource('demo', '${latency.uri}')\` next to a plain MCP SDK client in the same DO
reading the same resource from the demo server (the baseline: one MCP round trip, no cache), run side by side in one
process (baseline: ${r.directForKv.reads} reads per row). workerd's clock ticks in whole milliseconds here, so each sample is
the mean of one batch of consecutive reads; p50/p99 are over those samples. "Miss after an update": the entry is invalidated before each read (not timed), as a
\`resources/updated\` does; the conversation knows any KV copy is stale, so it pays the MCP round trip only. "Cold miss": a
URI the conversation never read (1,000 distinct published documents): the conversation first subscribes to it (one MCP
round trip, alongside a KV lookup that finds nothing), then reads it (a second round trip). Subscribing before the first
read is deliberate: an update between a read and a later subscription would never be heard of.

| read | reads | p50 | p99 | direct read p50 | direct read p99 | ratio (p50) | p50 − direct |
|---|---|---|---|---|---|---|---|
${row('memory hit', r.memoryHit, r.directForMemory)}
${row('KV hit', r.kvHit, r.directForKv)}
${row('miss after an update', r.miss, r.directForMiss)}
${row('cold miss (never read)', r.coldMiss, r.directForColdMiss)}
${row('cold miss vs direct subscribe + read', r.coldMiss, r.directSubscribeRead)}
${row('cold miss, KV writes off, vs direct subscribe + read', r.coldMissNoKvWrites, r.directSubscribeRead)}

Targets (issue "MCP sessions … edge cache"): memory hit p50 well under 1 ms (${r.memoryHit.p50 < 1 ? 'met' : 'missed'});
KV hit p50 ≤ 5 ms locally (${r.kvHit.p50 <= 5 ? 'met' : 'missed'}); a miss within 2 ms of the direct read (after an update:
${r.miss.p50 - r.directForMiss.p50 <= 2 ? 'met' : 'missed'}; a URI's first read: ${r.coldMiss.p50 - r.directForColdMiss.p50 <= 2 ? 'met' : 'missed'} against a plain read, as it pays the
subscription's round trip too; against a plain client doing the same subscribe + read: ${r.coldMiss.p50 - r.directSubscribeRead.p50 <= 2 ? 'met' : 'missed'},
and ${r.coldMissNoKvWrites.p50 - r.directSubscribeRead.p50 <= 2 ? 'met' : 'missed'} with KV writes off). Back-to-back cold reads are the worst case for the
background KV write of each read, which competes with the next read's KV lookup in local miniflare; the last row shows
the rest of the cost (the KV lookup and the subscription row written to SQLite).
Local KV is miniflare's (SQLite on disk), not Cloudflare's edge KV; production KV hits are typically slower for cold keys.
`;

let doc = '';
try {
  doc = readFileSync('BENCHMARKS.md', 'utf8');
} catch {}
const header = '# Benchmarks\n\nEvery figure here comes from a script in `bench/`; rerun it to check. Ratios are against a baseline run in the same process.\n\n';
const marker = /## Resource reads inside the Conversation Durable Object[\s\S]*?(?=\n## |$)/;
doc = doc ? (marker.test(doc) ? doc.replace(marker, section) : `${doc.trimEnd()}\n\n${section}`) : header + section;
writeFileSync('BENCHMARKS.md', doc);
console.log(`\n${section}`);
