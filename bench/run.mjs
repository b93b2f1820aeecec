// Runs the benchmarks inside workerd (vitest + @cloudflare/vitest-plugin,
// bench/vitest.config.ts), collects their BENCH_RESULT lines and writes
// BENCHMARKS.md with the command and the machine. Usage: npm run bench
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { writeSection } from './lib/report.mjs';

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
\`resources/updated\` does; the read pays a KV lookup (which finds the copy deleted, or refuses it as older than the
invalidation — it could instead find a fresh copy another conversation wrote after the update) and the MCP round trip. "Cold miss": a
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

const sections = [section];

const context = results['context-cost'];
if (context) {
  const fmt = (x) => Math.round(x).toLocaleString('en-US');
  sections.push(`## Context cost: catalog vs pasting resources

Command: \`npm run bench\` (bench/context-cost.bench.test.ts) · tokens counted with gpt-tokenizer (o200k_base, GPT-4o's) · same machine and run as above

System-prompt tokens for one server with N resources (cycling through three real documents: the demo's 12.7 KB test matrix,
its 590-byte guidelines, a 4 KB runbook), for the question "${context.question}". Catalog: our system prompt with the
default budget (CATALOG_TOKEN_BUDGET 1,500). Naive: every resource's content pasted. Naive[:2000]: the first 2,000 characters
of each pasted, the rest silently dropped. The base prompt without any resource is ${context.baseTokens} tokens.

| N | catalog tokens | entries shown / hidden | tokens per entry | naive tokens | naive[:2000] tokens | characters naive[:2000] drops |
|---|---|---|---|---|---|---|
${context.rows.map((row) => `| ${fmt(row.n)} | ${fmt(row.catalogTokens)} | ${row.shown} / ${fmt(row.hidden)} | ${row.tokensPerEntry.toFixed(1)} | ${fmt(row.naiveTokens)} | ${fmt(row.naive2000Tokens)} | ${fmt(row.naive2000DroppedChars)} |`).join('\n')}

Targets: ≤ 30 tokens per catalog entry (${context.rows.every((row) => row.tokensPerEntry <= 30) ? 'met' : `missed: ${context.rows[1].tokensPerEntry.toFixed(1)} — each line carries title, URI, MIME type, size and description`}); a bounded prompt for any N
(${context.rows.every((row) => row.catalogTokens < 2_000) ? 'met' : 'missed'}: at most ${fmt(Math.max(...context.rows.map((row) => row.catalogTokens)))} tokens). At N = 10,000 the resource the question names is among
the entries shown: ${context.rows.at(-1).relevantShown ? 'yes' : 'no'}.
`);
}

const overhead = results['loop-overhead'];
if (overhead) {
  sections.push(`## Gateway overhead per loop step

Command: \`npm run bench\` (bench/loop-overhead.bench.test.ts) · same machine and run as above

${overhead.turns} turns (${overhead.steps} steps) with a zero-latency scripted model (the AI SDK's MockLanguageModelV4): each turn
calls read_resource (answered from the DO's memory) and then answers, so all of the time is ours: system prompt, tool set,
the AI SDK's stream pipeline, the edge-resolved read, saving the history. Per step = turn time / 2. The first turn of each
10-turn conversation (MCP connection and first server read) is not counted.

| p50 per step | p99 per step | mean |
|---|---|---|
| ${overhead.p50.toFixed(1)} ms | ${overhead.p99.toFixed(1)} ms | ${overhead.mean.toFixed(1)} ms |

Targets: p50 ≤ 5 ms (${overhead.p50 <= 5 ? 'met' : 'missed'}), p99 ≤ 20 ms (${overhead.p99 <= 20 ? 'met' : 'missed'}). workerd's clock ticks in whole milliseconds here.
`);
}

// Only this script's own section: `npm run bench:load` owns another one.
writeSection('BENCHMARKS.md', 'bench', sections.join('\n'));
console.log(`\n${sections.join('\n')}`);
