// Runs the benchmarks inside workerd (vitest + @cloudflare/vitest-plugin,
// bench/vitest.config.ts), collects their BENCH_RESULT lines and writes
// BENCHMARKS.md with the command and the machine. Usage: npm run bench
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { machine, writeSection } from './lib/report.mjs';
import { skillsSections } from './lib/skills-report.mjs';
import { runBenchmarks } from './lib/vitest-results.mjs';

const results = runBenchmarks('bench/vitest.config.ts');
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
const { modern, legacy } = latency.eras;
const cells = (ours, base) => `${ms(ours.p50)} | ${ms(ours.p99)} | ${ms(base.p50)} | ${ratio(ours.p50, base.p50)}`;
const row = (name, key, baseKey) =>
  `| ${name} | ${modern[key].reads} | ${cells(modern[key], modern[baseKey])} | ${cells(legacy[key], legacy[baseKey])} |`;
const met = (x) => (x ? 'met' : 'missed');

const section = `## Resource reads inside the Conversation Durable Object, per protocol era

Command: \`npm run bench\` · measured ${new Date().toISOString().slice(0, 10)} · mcp-ondemand ${pkg.version} · workerd ${workerd} (local, via @cloudflare/vitest-plugin) · Node ${process.versions.node} · ${cpu}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB

\`McpSessions.readResource('demo', '${latency.uri}')\` with the demo server spoken in **2026-07-28** (stateless,
\`subscriptions/listen\`, cache hints: the guidelines are fresh for 30 s, private) and in **2025-11-25** (a session, its GET
stream, \`resources/subscribe\`), each next to a plain MCP SDK v2 client of the same era in the same DO reading the same
resource (the baseline: one MCP round trip, the SDK's own cache off), run side by side in one process. workerd's clock
ticks in whole milliseconds here, so each sample is the mean of one batch of consecutive reads; p50/p99 are over those
samples. "Miss after an update": the copy is invalidated before each read (not timed), as a \`resources/updated\` does; for
2 s after such a notification the read goes straight to the server (a KV lookup would find nothing newer). "Cold miss": a
URI the conversation never read (published documents): it is first watched — 2025: \`resources/subscribe\`; 2026: a wider
\`subscriptions/listen\` stream, acknowledged before the old one is closed — alongside a KV lookup that finds nothing,
then read. Watching before the first read is deliberate: an update between a read and a later subscription would never
be heard of. The last rows compare it with a plain client doing the same watch + read by hand.

| read | reads | 2026 p50 | 2026 p99 | direct p50 | ratio | 2025 p50 | 2025 p99 | direct p50 | ratio |
|---|---|---|---|---|---|---|---|---|---|
${row('memory hit', 'memoryHit', 'directForMemory')}
${row('KV hit', 'kvHit', 'directForKv')}
${row('miss after an update', 'miss', 'directForMiss')}
${row('cold miss (never read)', 'coldMiss', 'directForColdMiss')}
${row('cold miss vs direct watch + read', 'coldMiss', 'directSubscribeRead')}
${row('cold miss, KV writes off, vs direct watch + read', 'coldMissNoKvWrites', 'directSubscribeRead')}

Targets: memory hit p50 well under 1 ms (2026: ${met(modern.memoryHit.p50 < 1)}, 2025: ${met(legacy.memoryHit.p50 < 1)}); KV hit p50 ≤ 5 ms locally
(${met(modern.kvHit.p50 <= 5)}, ${met(legacy.kvHit.p50 <= 5)}); a miss after an update within 2 ms of the direct read (${met(modern.miss.p50 - modern.directForMiss.p50 <= 2)},
${met(legacy.miss.p50 - legacy.directForMiss.p50 <= 2)}); a URI's first read within 2 ms of a plain client doing the same watch + read
(${met(modern.coldMiss.p50 - modern.directSubscribeRead.p50 <= 2)}, ${met(legacy.coldMiss.p50 - legacy.directSubscribeRead.p50 <= 2)}; with KV writes off: ${met(modern.coldMissNoKvWrites.p50 - modern.directSubscribeRead.p50 <= 2)}, ${met(legacy.coldMissNoKvWrites.p50 - legacy.directSubscribeRead.p50 <= 2)}).
Back-to-back cold reads are the worst case for the background KV write of each read, which competes with the next read's KV
lookup in local miniflare. Local KV is miniflare's (SQLite on disk), not Cloudflare's edge KV; production KV hits are
typically slower for cold keys.
`;

const sections = [section];

const fresh = results['update-to-fresh'];
if (fresh) {
  const { modern: m, legacy: l } = fresh.eras;
  const line = (name, era) =>
    `| ${name} | ${era.updates} | ${era.acknowledged.p50} / ${era.acknowledged.p99} ms | ${era.notified ? `${era.notified.p50} / ${era.notified.p99} ms` : 'n/a'} | **${era.ours.p50} / ${era.ours.p99} ms** | ${era.peer.p50} / ${era.peer.p99} ms | ${ratio(era.ours.p50, era.peer.p50)} | ${era.staleAfterAck.ours} / ${era.staleAfterAck.peer} |`;
  sections.push(`## Update-to-fresh latency, per protocol era

Command: \`npm run bench\` (bench/update-to-fresh.bench.test.ts) · same machine and run as above

Another client changes the demo's guidelines (\`update_guidelines\`); the server applies the change, notifies, and answers.
From the moment the change was sent: when the server's answer arrived (acknowledged), when the notification reached the
conversation (it drops its copy), and when a read in a conversation that had read the old text first returned the new one —
next to a plain MCP SDK v2 client with its own response cache (which honours the 30 s hint) and its own notification
channel (2026: \`listen\`; 2025: \`resources/subscribe\`), the peer a developer would write by hand. Updates alternate
between the two readers; each reads once the change is acknowledged, and again until the text is new. In 2025 the SDK's
cache never serves (no hints on 2025 results), so the peer reads the server every time: always fresh, never cached.

| era | updates | acknowledged p50 / p99 | notified p50 / p99 | **first fresh read p50 / p99** | plain SDK client p50 / p99 | ratio (p50) | stale reads after the answer (ours / peer) |
|---|---|---|---|---|---|---|---|
${line('2026-07-28', m)}
${line('2025-11-25', l)}

No read after the server's answer returned the old text, in either era (last column). workerd's clock ticks in whole
milliseconds and moves only between I/O events.
`);
}

const context = results['context-cost'];
if (context) {
  const fmt = (x) => Math.round(x).toLocaleString('en-US');
  sections.push(`## Context cost: catalog vs pasting resources

Command: \`npm run bench\` (bench/context-cost.bench.test.ts) · tokens counted with gpt-tokenizer (o200k_base, GPT-4o's) · same machine and run as above

System-prompt tokens for one server with N resources (cycling through three real documents: the demo's 12.7 KB test matrix,
its 590-byte guidelines, a 4 KB runbook), for the question "${context.question}". Catalog: our system prompt with the
default budget (CATALOG_TOKEN_BUDGET 1,500) — past it, a stable part in the system prompt plus the entries most relevant to
the question, sent with the question (both counted; "shown" is the stable part). Each entry is one compact line
(\`kb://docs/7 incident runbook for service 7 [md 4.0K] Maintained by the platform team…\`). Naive: every resource's content pasted. Naive[:2000]: the first 2,000 characters
of each pasted, the rest silently dropped. The base prompt without any resource is ${context.baseTokens} tokens.

| N | catalog tokens | entries shown / hidden | tokens per entry | naive tokens | naive[:2000] tokens | characters naive[:2000] drops |
|---|---|---|---|---|---|---|
${context.rows.map((row) => `| ${fmt(row.n)} | ${fmt(row.catalogTokens)} | ${row.shown} / ${fmt(row.hidden)} | ${row.tokensPerEntry.toFixed(1)} | ${fmt(row.naiveTokens)} | ${fmt(row.naive2000Tokens)} | ${fmt(row.naive2000DroppedChars)} |`).join('\n')}

Targets: ≤ 25 tokens per catalog entry on average (${context.rows.every((row) => row.tokensPerEntry <= 25) ? 'met' : `${context.rows.slice(0, -1).every((row) => row.tokensPerEntry <= 25) ? 'met up to N = 1,000; ' : ''}missed at N = 10,000: ${context.rows.at(-1).tokensPerEntry.toFixed(1)} — four-digit ids cost a token more in both the URI and the title`}); a bounded prompt for any N
(${context.rows.every((row) => row.catalogTokens < 2_000) ? 'met' : 'missed'}: at most ${fmt(Math.max(...context.rows.map((row) => row.catalogTokens)))} tokens). At N = 10,000 the resource the question names is among
the entries the model gets: ${context.rows.at(-1).relevantShown ? 'yes' : 'no'}.
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

// Skills (bench/skills.bench.test.ts) have their own markers, so that file can be run and rendered alone (bench/lib/skills-report.mjs).
if (results.skills) {
  const skills = skillsSections(results.skills, machine());
  writeSection('BENCHMARKS.md', 'bench-skills', skills);
  console.log(`\n${skills}`);
}
