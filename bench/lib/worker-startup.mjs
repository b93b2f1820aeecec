// The main Worker's deploy bundle and its start-up, measured three ways: in V8 alone (Node), in instructions
// (valgrind), and by `wrangler check startup` (workerd's V8 profile). Shared by bench:bundle (one tree) and
// bench:startup:ab (trees side by side). `tree` is the root of a checkout with node_modules.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const WRANGLER_ENV = { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' };
const wranglerOf = (tree) => path.join(tree, 'node_modules/wrangler/bin/wrangler.js');

/**
 * `wrangler deploy --dry-run --outfile … --metafile …` in `tree`: the deploy bundle (the multipart upload wrangler
 * would send, kept for `wrangler check startup`), its main module and esbuild's metafile, written under `dir`.
 */
export function buildWorker(tree, dir, flags = []) {
  mkdirSync(dir, { recursive: true });
  const bundle = path.join(dir, 'worker.bundle');
  const run = spawnSync(
    process.execPath,
    [wranglerOf(tree), 'deploy', '--dry-run', ...flags, '--outfile', bundle, '--metafile', path.join(dir, 'meta.json')],
    {
      cwd: tree,
      encoding: 'utf8',
      env: WRANGLER_ENV,
    },
  );
  if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${run.stdout}\n${run.stderr}`);
  const reported = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(run.stdout);
  const meta = JSON.parse(readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  // The upload is multipart/form-data: metadata, then one part per module.
  const form = readFileSync(bundle);
  const boundary = form.subarray(0, form.indexOf('\r\n')).toString('latin1');
  const start = form.indexOf('name="index.js"');
  const body = form.indexOf('\r\n\r\n', start) + 4;
  const code = form.subarray(body, form.indexOf(`\r\n${boundary}`, body));
  return {
    bundle,
    meta,
    code,
    reported: reported ? { raw: Number(reported[1]), gzip: Number(reported[2]) } : undefined,
  };
}

/**
 * A child Node script that compiles `file` as one ES module and evaluates its top level, with cloudflare:* and the
 * few Node built-ins it imports stubbed. `rounds` > 0: that many rounds, a fresh source each (no code cache), the
 * CPU medians printed as JSON; 0: once, printing nothing (for counting instructions); no file: an empty module.
 */
function startupScript(file, rounds) {
  return `
    const { readFileSync } = require('node:fs');
    const vm = require('node:vm');
    class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
    const stubs = {
      'cloudflare:workers': { DurableObject, RpcTarget: class {}, WorkerEntrypoint: class {}, WorkflowEntrypoint: class {}, exports: {}, env: {}, tracing: { enterSpan: (_name, fn, ...args) => fn({ setAttribute() {}, end() {} }, ...args) }, waitUntil() {} },
      'cloudflare:email': { EmailMessage: class {} },
      'node:async_hooks': require('node:async_hooks'),
      'node:diagnostics_channel': require('node:diagnostics_channel'),
      'node:os': require('node:os'),
      'node:path': require('node:path'),
      path: require('node:path'),
    };
    const link = (specifier) => {
      const source = stubs[specifier];
      if (!source) throw new Error('bench/lib/worker-startup.mjs: no stub for ' + specifier + ' (add it to startupScript)');
      const names = [...new Set([...Object.keys(source), 'default'])];
      return new vm.SyntheticModule(names, function () { for (const n of names) this.setExport(n, n === 'default' ? source.default ?? source : source[n]); });
    };
    const cpu = (since) => { const d = process.cpuUsage(since); return (d.user + d.system) / 1000; };
    const code = ${file ? `readFileSync(${JSON.stringify(file)}, 'utf8')` : "'export default 1;'"};
    (async () => {
      const compile = [];
      const evaluate = [];
      for (let i = 0; i < Math.max(1, ${rounds}); i++) {
        let t = process.cpuUsage();
        const module = new vm.SourceTextModule(code + '\\n// ' + i, { identifier: 'bundle' + i });
        compile.push(cpu(t));
        await module.link(link);
        t = process.cpuUsage();
        await module.evaluate();
        evaluate.push(cpu(t));
      }
      if (!${rounds}) return;
      const median = (v) => [...v].sort((a, b) => a - b)[Math.floor((v.length - 1) / 2)];
      console.log(JSON.stringify({ compile: median(compile), evaluate: median(evaluate), total: median(compile.map((c, i) => c + evaluate[i])) }));
    })();`;
}

/**
 * The Worker's start-up in V8, without workerd around it: Node (its V8)
 * compiles the bundle as one ES module, then evaluates its top level (what
 * an isolate does before the first request). Median of 15 rounds, in a child
 * Node (vm modules need a flag). Compile time grows with every byte shipped,
 * run or not; evaluation is the code that does run at start-up (mostly zod
 * schemas built at module load).
 */
export function v8Startup(file) {
  const run = spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings', '-e', startupScript(file, 15)],
    {
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`V8 start-up measurement failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1));
}

/** Whether valgrind is installed (v8Instructions needs it). */
export const hasValgrind = () => spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).status === 0;

function instructionsOf(file) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      process.execPath,
      '--single-threaded',
      '--experimental-vm-modules',
      '--no-warnings',
      '-e',
      startupScript(file, 0),
    ],
    { encoding: 'utf8' },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(run.stderr);
  if (run.status !== 0 || !refs) throw new Error(`valgrind failed:\n${run.stderr.slice(-2000)}`);
  return Number(refs[1].replaceAll(',', ''));
}

/**
 * The same start-up in instructions: valgrind (cachegrind, no cache model) counts what Node executes to compile the
 * bundle and evaluate its top level once, less what it executes for an empty module (Node's own start). V8 runs
 * `--single-threaded` (no compiler or GC threads), so the count hardly moves from run to run (±1–2 %, GC timing)
 * and not at all with the machine's load, unlike CPU time on a shared machine. About 15 s a count.
 */
let nodeOwn;
export function v8Instructions(file) {
  nodeOwn ??= instructionsOf(undefined);
  return instructionsOf(file) - nodeOwn;
}

/** `wrangler check startup` on a deploy bundle: the V8 profile of the Worker's start-up ("Active" ms, and the profile itself). */
export function checkStartup(tree, bundle, outfile) {
  const run = spawnSync(
    process.execPath,
    [wranglerOf(tree), 'check', 'startup', '--worker', bundle, '--outfile', outfile],
    {
      cwd: tree,
      encoding: 'utf8',
      env: WRANGLER_ENV,
    },
  );
  const active = /Active: ([\d.]+) ms/.exec(run.stdout);
  if (run.status !== 0 || !active) throw new Error(`wrangler check startup failed:\n${run.stdout}\n${run.stderr}`);
  return { activeMs: Number(active[1]), profile: JSON.parse(readFileSync(outfile, 'utf8')) };
}
