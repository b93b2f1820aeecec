// The main Worker's start-up, side by side: base commits against this working tree (or commits alone), each round
// measuring every tree once, in a rotating order, so that a machine whose load changes (other test runs on a shared
// 2-core machine) moves them all alike. bench:bundle measures one tree; its runs made one tree after another drift
// with the load: the same three trees read +10 % one hour and −3 % the next (issue 44, BENCHMARKS.md).
//
//   npm run bench:startup:ab                                              # HEAD against the working tree
//   AB_BASE=1bf7d61 AB_ROUNDS=20 npm run bench:startup:ab
//   AB_BASE=1bf7d61,b1cbf39,ce1c7d8 AB_WORKTREE=0 npm run bench:startup:ab   # commits only, the first the reference
//   AB_CHECK=0 AB_DEV=0 AB_INSTRUCTIONS=9 npm run bench:startup:ab         # V8 alone, and 9 instruction counts a tree
//
// Per round and tree: V8 alone (compile + top-level evaluation of the deploy bundle in Node, median of 15:
// bench:bundle's figure), `wrangler check startup` Active on the deploy bundle (AB_CHECK=0: not), and a cold
// `wrangler dev`'s workerd CPU (/proc schedstat) when GET /health has answered (AB_DEV=0: not). AB_INSTRUCTIONS=n:
// also n instruction counts a tree (valgrind, bench/lib/worker-startup.mjs; the machine's load does not move them).
// Printed: each tree's median and range, and its median paired ratio to the first tree, run by run, with the
// interquartile range. Each commit is checked out with `git worktree` into a temporary folder (node_modules linked
// from here) and removed at the end. Nothing is written to BENCHMARKS.md: its figures go in commits and notes.
// Ports 8870–8871.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildWorker, checkStartup, hasValgrind, v8Instructions, v8Startup } from './lib/worker-startup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const BASES = (process.env.AB_BASE ?? 'HEAD').split(',').filter(Boolean);
const WORKTREE = process.env.AB_WORKTREE !== '0';
const ROUNDS = Number(process.env.AB_ROUNDS ?? 12);
const CHECK = process.env.AB_CHECK !== '0';
const DEV = process.env.AB_DEV !== '0';
const INSTRUCTIONS = Number(process.env.AB_INSTRUCTIONS ?? 0);
if (INSTRUCTIONS && !hasValgrind()) throw new Error('AB_INSTRUCTIONS needs valgrind');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.round(q * (xs.length - 1))];
const pct = (ratio) => `${ratio >= 1 ? '+' : '−'}${Math.abs(100 * (ratio - 1)).toFixed(1)} %`;

const work = mkdtempSync(path.join(os.tmpdir(), 'mcp-ondemand-startup-ab-'));
const worktrees = [];
try {
  const trees = BASES.map((commit, i) => {
    const dir = path.join(work, `tree-${i}`);
    execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root, stdio: 'ignore' });
    worktrees.push(dir);
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    const label = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
    return { label, dir };
  });
  if (WORKTREE) trees.push({ label: 'working tree', dir: root });

  for (const [i, tree] of trees.entries()) {
    const built = buildWorker(tree.dir, path.join(work, `build-${i}`));
    tree.bundle = built.bundle;
    tree.code = path.join(work, `build-${i}`, 'index.js');
    writeFileSync(tree.code, built.code);
    tree.size = { ...built.reported, gzipOwn: gzipSync(built.code).length / 1024 };
    // Each tree's own harness starts its wrangler dev (its config, its vars).
    if (DEV) tree.stack = await import(path.join(tree.dir, 'bench/lib/stack.mjs'));
    tree.runs = { v8: [], compile: [], evaluate: [], check: [], health: [], instructions: [] };
    console.error(`${tree.label}: ${tree.size.raw} KiB, ${tree.size.gzip} KiB gzipped (as wrangler prints it)`);
  }

  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < trees.length; k++) {
      const tree = trees[(k + round) % trees.length];
      const v8 = v8Startup(tree.code);
      tree.runs.v8.push(v8.total);
      tree.runs.compile.push(v8.compile);
      tree.runs.evaluate.push(v8.evaluate);
      if (CHECK)
        tree.runs.check.push(checkStartup(tree.dir, tree.bundle, path.join(work, 'check.cpuprofile')).activeMs);
      if (DEV) {
        const { startWrangler, NO_LIMITS } = tree.stack;
        // The service alone, as bench:bundle starts it (the converter is another Worker, and /health reads no document).
        const stack = await startWrangler({
          port: 8870,
          inspectorPort: 8871,
          vars: { AUTH_DISABLED: 'true', ...NO_LIMITS },
          config: 'wrangler.toml',
        });
        try {
          tree.runs.health.push(stack.workerd().cpuNs / 1e6);
        } finally {
          await stack.stop();
        }
      }
    }
    console.error(
      `round ${round + 1}/${ROUNDS}: ${trees.map((t) => `${t.label} ${t.runs.v8.at(-1).toFixed(1)} ms`).join(', ')}`,
    );
  }
  for (let n = 0; n < INSTRUCTIONS; n++)
    for (let k = 0; k < trees.length; k++) {
      const tree = trees[(k + n) % trees.length];
      tree.runs.instructions.push(v8Instructions(tree.code) / 1e6);
    }

  const MEASURES = [
    ['v8', 'V8 alone: compile + top-level evaluation (median of 15 a run)', 'ms'],
    ['evaluate', '… of which top-level evaluation', 'ms'],
    ['compile', '… of which compile', 'ms'],
    ['instructions', 'instructions of one compile + evaluation (valgrind; Node’s own start subtracted)', 'M'],
    ['check', '`wrangler check startup`, deploy bundle: Active', 'ms'],
    ['health', '`wrangler dev`: workerd CPU when GET /health has answered', 'ms'],
  ].filter(([key]) => trees[0].runs[key].length);
  const [first, ...others] = trees;
  const lines = [
    `| measure (runs a tree) | ${trees.map((t) => t.label).join(' | ')} |`,
    `|---|${trees.map(() => '---').join('|')}|`,
    `| deploy bundle (as wrangler prints it) | ${trees.map((t) => `${t.size.raw} KiB, ${t.size.gzip} KiB gzipped`).join(' | ')} |`,
  ];
  for (const [key, name, unit] of MEASURES) {
    const cells = trees.map((tree) => {
      const v = tree.runs[key];
      const own = `${median(v).toFixed(1)} ${unit} (${Math.min(...v).toFixed(1)}–${Math.max(...v).toFixed(1)})`;
      if (tree === first) return own;
      // Run k of this tree was measured next to run k of the first, so their ratio leaves the load out.
      const ratios = v.map((x, k) => x / first.runs[key][k]);
      return `${own}; paired ${pct(median(ratios))} (${pct(quantile(ratios, 0.25))} … ${pct(quantile(ratios, 0.75))})`;
    });
    lines.push(`| ${name} (${trees[0].runs[key].length}) | ${cells.join(' | ')} |`);
  }
  console.log(
    `BENCH_RESULT startup-ab ${JSON.stringify(Object.fromEntries(trees.map((t) => [t.label, { size: t.size, runs: t.runs }])))}`,
  );
  console.log(lines.join('\n'));
  if (others.length)
    console.log(
      `\nPaired: each tree's run k against ${first.label}'s run k (measured next to each other), the median ratio and its interquartile range.`,
    );
} finally {
  for (const dir of worktrees)
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: root, stdio: 'ignore' });
  rmSync(work, { recursive: true, force: true });
}
