// CPU of one change, side by side: this working tree against a base commit
// (default HEAD), both under `wrangler dev` at the same moments, against the
// same SDK v2 server in Node (bench/lib/guidelines-server.mjs) and the same
// scripted fake model as bench:cpu. On a shared 2-core machine bench:cpu's
// set-up figure (a difference of two medians) moves by ±15 ms from run to run;
// alternating the two trees operation by operation and taking the median of
// the paired differences shows a change of 2–3 ms.
//
//   npm run bench:cpu:ab                      # base HEAD, 8 rounds of 8 conversations
//   AB_BASE=HEAD~3 AB_ROUNDS=12 npm run bench:cpu:ab
//   AB_ERA=2025-11-25 npm run bench:cpu:ab
//
// The base tree is checked out with `git worktree` into a temporary folder
// (node_modules linked from here) and removed at the end. Nothing is written
// to BENCHMARKS.md: this is a tool for deciding, its figures go in commits.
// Ports 8860–8869.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConversation, runTurn } from './lib/client.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import { startGuidelinesServer } from './lib/guidelines-server.mjs';
import { decide, LONG_MARK } from './lib/scripted-turn.mjs';
import { NO_LIMITS, startWrangler } from './lib/stack.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BASE = process.env.AB_BASE ?? 'HEAD';
const ERA = process.env.AB_ERA ?? '2026-07-28';
const N = Number(process.env.AB_CONVERSATIONS ?? 8);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const QUESTION = 'What do the team guidelines say about estimates?';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const baseDir = path.join(mkdtempSync(path.join(os.tmpdir(), 'mcp-ondemand-ab-')), 'tree');
execFileSync('git', ['worktree', 'add', '--detach', baseDir, BASE], { cwd: root, stdio: 'ignore' });
symlinkSync(path.join(root, 'node_modules'), path.join(baseDir, 'node_modules'));
const baseCommit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: baseDir, encoding: 'utf8' }).trim();

const fake = await startFakeModel({ port: 8864, decide });
const guidelines = await startGuidelinesServer({ port: 8869 });
const vars = {
  AUTH_DISABLED: 'true',
  MODEL: 'openai-compatible:fake',
  OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
  ...NO_LIMITS,
  MCP_SERVERS: JSON.stringify([
    { id: 'demo', url: guidelines.url, transport: 'streamable-http', protocol: ERA, trustAnnotations: true },
  ]),
};
const { startWrangler: startBase } = await import(path.join(baseDir, 'bench/lib/stack.mjs'));
const sides = {
  base: await startBase({ port: 8860, inspectorPort: 8861, vars }),
  change: await startWrangler({ port: 8862, inspectorPort: 8863, vars }),
};

/** CPU ms per conversation of `work` on one side (both workerd processes, /proc schedstat). */
const results = { base: {}, change: {} };
async function measure(side, name, work) {
  const stack = sides[side];
  await sleep(100);
  const before = stack.workerd().cpuNs;
  await work(stack.base);
  await sleep(100);
  (results[side][name] ??= []).push((stack.workerd().cpuNs - before) / 1e6 / N);
}

const OPS = ['create', 'first turn', 'steady turn', 'long answer'];
/** What each turn op asks: the long answer is 500 tokens streamed one per chunk (bench/lib/scripted-turn.mjs). */
const ASK = { 'first turn': QUESTION, 'steady turn': QUESTION, 'long answer': `${QUESTION} ${LONG_MARK}` };
try {
  // Two unrecorded rounds: V8 warms both.
  for (let round = -2; round < ROUNDS; round++) {
    const order = round % 2 ? ['change', 'base'] : ['base', 'change'];
    const ids = { base: [], change: [] };
    for (const side of order)
      await measure(side, 'create', async (base) => {
        for (let i = 0; i < N; i++) ids[side].push(await createConversation(base));
      });
    for (const name of ['first turn', 'steady turn', 'long answer'])
      for (const side of order)
        await measure(side, name, async (base) => {
          for (const id of ids[side]) {
            const turn = await runTurn(base, id, ASK[name]);
            if (turn.problems.length) throw new Error(`${side}: ${turn.problems.join('; ')}`);
          }
        });
    if (round < 0) for (const side of order) results[side] = {};
  }
} finally {
  for (const stack of Object.values(sides)) await stack.stop();
  await fake.close();
  await guidelines.close();
  execFileSync('git', ['worktree', 'remove', '--force', baseDir], { cwd: root, stdio: 'ignore' });
  rmSync(path.dirname(baseDir), { recursive: true, force: true });
}

const setUp = (side) =>
  results[side].create.map((c, i) => c + results[side]['first turn'][i] - results[side]['steady turn'][i]);
const rows = [...OPS.map((op) => [op, (side) => results[side][op]]), ['set-up (create + first − steady)', setUp]];
console.log(
  `CPU ms per conversation, median of ${ROUNDS} rounds × ${N}; ${ERA}; base ${BASE} (${baseCommit}) vs this tree`,
);
console.log('| operation | base | change | paired difference (median) |\n|---|---|---|---|');
for (const [name, of] of rows) {
  const a = of('base');
  const b = of('change');
  const diff = median(b.map((x, i) => x - a[i]));
  console.log(
    `| ${name} | ${median(a).toFixed(1)} | ${median(b).toFixed(1)} | ${diff >= 0 ? '+' : ''}${diff.toFixed(1)} |`,
  );
}
