// `npm run conformance:auth` / `npm run conformance:mcp`: runs every client
// scenario of one set of the pinned MCP conformance suite — `auth` (the
// authorization scenarios, against scripts/conformance/client.ts: our OAuth
// code, src/auth) or `mcp` (every other client scenario, against
// scripts/conformance/mcp-client.ts: our MCP path, src/mcp and the tools a turn
// gives the model) — writes test-results/conformance-<set>.json and prints a
// table. Exits 0 when every run ended as expected (expected-failures.mjs), 1
// otherwise. See scripts/conformance/README.md.
//
//   node scripts/conformance/run.mjs [--set auth|mcp] [filter]   (filter: a substring of run ids)
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expectedFailureOf } from './expected-failures.mjs';
import { ROOT, PACKAGE, SETS, conformanceCli, scenarioRuns } from './scenarios.mjs';

const setAt = process.argv.indexOf('--set');
const SET = setAt < 0 ? 'auth' : process.argv[setAt + 1];
if (!SETS.includes(SET)) throw new Error(`--set must be one of ${SETS.join(', ')}`);
/** Each set's client under test, and the workerd modules its bundle may stand in for (none for the OAuth flow). */
const CLIENTS = {
  auth: { source: 'client.ts', standIns: {} },
  mcp: {
    source: 'mcp-client.ts',
    standIns: { 'cloudflare:workers': join(ROOT, 'scripts', 'conformance', 'stand-ins', 'cloudflare-workers.ts') },
  },
};
const CLIENT = CLIENTS[SET];
const HARNESS = join(ROOT, 'dist', SET === 'auth' ? 'conformance-client.mjs' : `conformance-${SET}-client.mjs`);
const RESULTS = join(ROOT, 'test-results', `conformance-${SET}`);
const SUMMARY = join(ROOT, 'test-results', `conformance-${SET}.json`);
/** Runs at once: each is the suite's CLI (its servers on 127.0.0.1) plus our client, on a 2-core machine. */
const CONCURRENCY = Number(process.env.CONFORMANCE_CONCURRENCY) || 4;
/** Per scenario, for our client: the suite's default (a healthy run takes 1–3 s; a busy 2-core machine, several times that). */
const CLIENT_TIMEOUT_MS = 30_000;

/** Bundles the harness: src/ imports without extensions (bundler resolution), so Node cannot run it as it is. */
async function buildHarness() {
  await build({
    entryPoints: [join(ROOT, 'scripts', 'conformance', CLIENT.source)],
    outfile: HARNESS,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // npm packages load from node_modules as in any Node program; our src/ is bundled.
    packages: 'external',
    logLevel: 'warning',
    plugins: [
      {
        // The OAuth flow must stay runnable outside workerd: a workerd-only module in its import graph is a bug. The
        // MCP path takes two things of the runtime (the loopback fetch, tracing spans): stood in for, and nothing else.
        name: 'no-workerd-modules',
        setup(b) {
          b.onResolve({ filter: /^cloudflare:/ }, (args) =>
            CLIENT.standIns[args.path]
              ? { path: CLIENT.standIns[args.path] }
              : {
                  errors: [
                    {
                      text: `${args.path} (workerd only) imported by ${relative(ROOT, args.importer)}: the ${SET} client must not depend on it`,
                    },
                  ],
                },
          );
        },
      },
    ],
  });
}

/** One run of the suite's CLI for one scenario at one wire; its checks come back in checks.json. */
function runScenario(cli, run) {
  const outputDir = join(RESULTS, run.id.replace(/[^A-Za-z0-9.@-]+/g, '_'));
  rmSync(outputDir, { recursive: true, force: true });
  mkdirSync(outputDir, { recursive: true });
  const command = `${process.execPath} ${HARNESS}`;
  if (/\s/.test(ROOT) || /\s/.test(process.execPath))
    throw new Error('the suite splits --command on spaces: run from a path without spaces');
  const args = [
    cli,
    'client',
    '--command',
    command,
    '--scenario',
    run.scenario,
    '--timeout',
    String(CLIENT_TIMEOUT_MS),
    '-o',
    outputDir,
  ];
  if (run.specVersion) args.push('--spec-version', run.specVersion);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    // The CLI's own guard: our client has CLIENT_TIMEOUT_MS, the scenario's servers a little more to stop.
    const guard = setTimeout(() => child.kill('SIGKILL'), CLIENT_TIMEOUT_MS + 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      writeFileSync(join(outputDir, 'runner.txt'), output);
      resolve(judge(run, outputDir, code ?? (signal ? 128 : 1), output, Date.now() - started));
    });
  });
}

/** pass: the CLI exited 0 (checks, our client's exit, no time-out) and wrote checks with no FAILURE or WARNING. */
function judge(run, outputDir, exitCode, output, durationMs) {
  const dir = findResultDir(outputDir);
  const checks = dir ? JSON.parse(readFileSync(join(dir, 'checks.json'), 'utf8')) : [];
  const clientStderr = dir && existsSync(join(dir, 'stderr.txt')) ? readFileSync(join(dir, 'stderr.txt'), 'utf8') : '';
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const count = (status) => checks.filter((c) => c.status === status).length;
  const pass = exitCode === 0 && checks.length > 0 && bad.length === 0;
  let reason;
  if (pass) reason = `${count('SUCCESS')} checks passed`;
  else if (bad.length)
    reason = bad
      .map((c) => `${c.status === 'WARNING' ? 'warning' : 'failed'} ${c.id}: ${c.errorMessage ?? c.description}`)
      .join('; ');
  else if (/timed out/i.test(output)) reason = `our client timed out (${CLIENT_TIMEOUT_MS} ms)`;
  else if (!dir) reason = `the suite wrote no results (exit ${exitCode}): ${tail(output)}`;
  else reason = `our client failed (exit ${exitCode}): ${tail(harnessError(clientStderr) ?? clientStderr)}`;
  const expectedReason = expectedFailureOf(run);
  return {
    id: run.id,
    scenario: run.scenario,
    specVersion: run.specVersion ?? null,
    kind: run.kind,
    requiredBy: run.requiredBy,
    status: pass ? 'pass' : 'fail',
    expected: expectedReason ? 'fail' : 'pass',
    ...(expectedReason ? { expectedReason } : {}),
    reason,
    checks: { success: count('SUCCESS'), failure: count('FAILURE'), warning: count('WARNING'), info: count('INFO') },
    failedChecks: bad.map((c) => ({
      id: c.id,
      status: c.status,
      description: c.description,
      ...(c.errorMessage ? { errorMessage: c.errorMessage } : {}),
    })),
    clientError: harnessError(clientStderr) ?? null,
    exitCode,
    durationMs,
    resultDir: relative(ROOT, dir ?? outputDir),
  };
}

function findResultDir(outputDir) {
  const stack = [outputDir];
  while (stack.length) {
    const dir = stack.pop();
    if (existsSync(join(dir, 'checks.json'))) return dir;
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) stack.push(join(dir, entry.name));
  }
  return undefined;
}

/** The harness's own last word (`[harness] failed: …`), first line. */
function harnessError(stderr) {
  const at = stderr.lastIndexOf('[harness] failed:');
  return at < 0
    ? undefined
    : stderr
        .slice(at + '[harness] failed:'.length)
        .trim()
        .split('\n')[0];
}

function tail(text) {
  const lines = text
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removes the ANSI colour codes (ESC [ … m) the CLI prints
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n')
    .filter(Boolean);
  return lines.slice(-3).join(' | ').slice(0, 400);
}

async function pool(items, size, work) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
      }
    }),
  );
  return results;
}

function printTable(results) {
  const mark = (r) =>
    r.status === r.expected
      ? r.status === 'pass'
        ? 'pass'
        : 'fail (expected)'
      : r.status === 'pass'
        ? 'PASS (UNEXPECTED: stale expected failure)'
        : 'FAIL';
  const width = Math.max(...results.map((r) => r.id.length));
  console.log(`\n${'scenario@wire'.padEnd(width)}  ${'kind'.padEnd(11)}  result`);
  for (const r of results) {
    console.log(
      `${r.id.padEnd(width)}  ${r.kind.padEnd(11)}  ${mark(r)}${r.status === 'pass' ? '' : ` — ${r.reason.slice(0, 300)}`}`,
    );
    if (r.expectedReason && r.status !== 'pass')
      console.log(`${''.padEnd(width)}  ${''.padEnd(11)}  expected because: ${r.expectedReason}`);
  }
}

const filter = process.argv.slice(2).find((arg, i, args) => !arg.startsWith('--') && args[i - 1] !== '--set');
const { cli, version } = conformanceCli();
const runs = scenarioRuns(SET).filter((r) => !filter || r.id.includes(filter));
if (runs.length === 0) throw new Error(`no run matches ${filter}`);
const startedAt = new Date().toISOString();
rmSync(SUMMARY, { force: true });
await buildHarness();
console.log(
  `${PACKAGE}@${version}: ${runs.length} client ${SET} runs against ${relative(ROOT, HARNESS)}, ${CONCURRENCY} at a time`,
);
const results = await pool(runs, CONCURRENCY, (run) => runScenario(cli, run));
const unexpected = results.filter((r) => r.status !== r.expected);
const summary = {
  suite: `${PACKAGE}@${version}`,
  harness: `scripts/conformance/${CLIENT.source}`,
  startedAt,
  finishedAt: new Date().toISOString(),
  ...(filter ? { filter } : {}),
  totals: {
    runs: results.length,
    passed: results.filter((r) => r.status === 'pass').length,
    failed: results.filter((r) => r.status === 'fail').length,
    expectedFailures: results.filter((r) => r.status === 'fail' && r.expected === 'fail').length,
    unexpected: unexpected.length,
  },
  runs: results,
};
mkdirSync(join(ROOT, 'test-results'), { recursive: true });
writeFileSync(SUMMARY, `${JSON.stringify(summary, null, 2)}\n`);
printTable(results);
const t = summary.totals;
console.log(
  `\n${t.runs} runs: ${t.passed} passed, ${t.failed} failed (${t.expectedFailures} expected), ${t.unexpected} unexpected — ${relative(ROOT, SUMMARY)}`,
);
process.exit(unexpected.length ? 1 : 0);
