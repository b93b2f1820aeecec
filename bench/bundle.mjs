// Bundle benchmark: builds the Worker exactly as `wrangler deploy` does (a dry
// run, same esbuild settings, `alias` applied) with esbuild's metafile, and
// reports the total size (raw and gzipped, as wrangler prints it) and the top
// contributors by package, each with the import chain that brings it in
// (from the metafile's `imports` graph: which of our modules, then which
// package, pulls it). Writes its own section of BENCHMARKS.md.
//
//   npm run bench:bundle                  # size and contributors
//   npm run bench:bundle -- --startup     # also the Worker's start-up CPU (median of 5 cold starts)
//   BUNDLE_TOP=30 npm run bench:bundle    # more rows
//
// Always: the CPU time Node's V8 takes to compile the bundle and evaluate its
// top level (cloudflare:* stubbed), a steadier start-up figure than workerd's
// process CPU on a busy machine.
// With --startup, median of BUNDLE_STARTUP_RUNS (5) cold starts: workerd CPU
// time (all its processes, from /proc, 10 ms ticks) under `wrangler dev` from
// spawn until it has answered GET /health, then a first POST /v1/conversations
// (the Conversation Durable Object connects to the demo MCP server in the same
// Worker), then a first turn with the offline model (a read_resource through
// MCP); and `wrangler check startup` (V8 profile of the Worker's start-up),
// with where its samples fall by package. Ports 8840 (inspector 8841)
// (BUNDLE_PORT, BUNDLE_INSPECTOR_PORT).
// One tree only: to compare commits, `npm run bench:startup:ab` measures them
// side by side, interleaved (runs of this one tree after another drift with
// the machine's load).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createConversation, runTurn } from './lib/client.mjs';
import { machine, machineLine, writeSection } from './lib/report.mjs';
import { startWrangler, NO_LIMITS } from './lib/stack.mjs';
import { buildWorker, checkStartup, v8Startup } from './lib/worker-startup.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const TOP = Number(process.env.BUNDLE_TOP ?? 20);
const STARTUP = process.argv.includes('--startup');
const RUNS = Number(process.env.BUNDLE_STARTUP_RUNS ?? 5);
const PORT = Number(process.env.BUNDLE_PORT ?? 8840);
const INSPECTOR_PORT = Number(process.env.BUNDLE_INSPECTOR_PORT ?? 8841);
const WRITE = process.env.BUNDLE_WRITE !== '0';

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

/** The package an input path belongs to ("zod", "@ai-sdk/openai"), our source ("(src)"), or esbuild/wrangler glue ("(other)"). */
function packageOf(input) {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return input.startsWith('src/') ? { name: '(src)', dir: 'src' } : { name: '(other)', dir: '' };
  const rest = input.slice(at + 'node_modules/'.length).split('/');
  const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  return { name, dir: input.slice(0, at + 'node_modules/'.length) + name };
}

function versionOf(dir, cwd) {
  try {
    return JSON.parse(readFileSync(path.resolve(cwd, dir, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

/**
 * The shortest import chain from one of our modules to `target`, as
 * "src/x.ts → pkg → (dynamic) pkg2": the first module of ours that reaches
 * it, then every package boundary crossed on the way.
 */
function chainTo(target, importers) {
  const previous = new Map([[target, null]]);
  const queue = [target];
  let found;
  while (queue.length && !found) {
    const current = queue.shift();
    for (const edge of importers.get(current) ?? []) {
      if (previous.has(edge.from)) continue;
      previous.set(edge.from, { next: current, kind: edge.kind });
      if (edge.from.startsWith('src/')) {
        found = edge.from;
        break;
      }
      queue.push(edge.from);
    }
  }
  if (!found) return '(not reached from src/)';
  const steps = [found];
  let last = '(src)';
  for (let at = found; at !== target; ) {
    const { next, kind } = previous.get(at);
    const name = packageOf(next).name;
    if (name !== last)
      steps.push(`${kind === 'dynamic-import' ? '(dynamic) ' : kind === 'require-call' ? '(require) ' : ''}${name}`);
    last = name;
    at = next;
  }
  return steps.join(' → ');
}

function analyse({ meta, code }) {
  const [, output] = Object.entries(meta.outputs).find(([file]) => file.endsWith('.js'));
  const importers = new Map();
  for (const [file, input] of Object.entries(meta.inputs)) {
    for (const edge of input.imports) {
      if (edge.external) continue;
      if (!importers.has(edge.path)) importers.set(edge.path, []);
      importers.get(edge.path).push({ from: file, kind: edge.kind });
    }
  }
  // Raw bytes per package copy (a package installed twice is two rows).
  const packages = new Map();
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const { name, dir } = packageOf(file);
    if (!packages.has(dir)) packages.set(dir, { name, dir, raw: 0, gzipParts: [], files: [] });
    const entry = packages.get(dir);
    entry.raw += bytesInOutput;
    entry.files.push({ file, bytes: bytesInOutput });
  }
  // Gzip per package: esbuild (not minifying) opens each module's code with a
  // `// <input path>` line; each package's modules are gzipped on their own.
  const text = code.toString('utf8');
  const marker = /^\/\/ (\S+)\n/gm;
  const starts = [];
  for (let m; (m = marker.exec(text)); ) if (output.inputs[m[1]]) starts.push({ at: m.index, file: m[1] });
  for (let i = 0; i < starts.length; i++) {
    const { dir } = packageOf(starts[i].file);
    packages.get(dir)?.gzipParts.push(text.slice(starts[i].at, starts[i + 1]?.at ?? text.length));
  }
  const rows = [...packages.values()].map((entry) => {
    const biggest = entry.files.sort((a, b) => b.bytes - a.bytes)[0].file;
    return {
      name: entry.name,
      version: entry.name.startsWith('(') ? undefined : versionOf(entry.dir, root),
      dir: entry.dir,
      raw: entry.raw,
      gzip: entry.gzipParts.length ? gzipSync(entry.gzipParts.join('')).length : undefined,
      via: entry.name === '(src)' ? '' : chainTo(biggest, importers),
    };
  });
  rows.sort((a, b) => b.raw - a.raw);
  const copies = new Map();
  for (const row of rows)
    if (!row.name.startsWith('(')) copies.set(row.name, [...(copies.get(row.name) ?? []), row.version]);
  const duplicates = [...copies]
    .filter(([, versions]) => versions.length > 1)
    .map(([name, versions]) => `${name} (${versions.join(', ')})`);
  // The same bytes by folder (e.g. all of zod's locales, one file each, in one row).
  const folders = new Map();
  for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
    const folder = path.dirname(file).replace(/^.*node_modules\//, '');
    folders.set(folder, (folders.get(folder) ?? 0) + bytesInOutput);
  }
  const byFolder = [...folders].map(([folder, raw]) => ({ folder, raw })).sort((a, b) => b.raw - a.raw);
  // Modules replaced by a shim of ours (`alias` in wrangler.toml), and who imports them.
  const shimmed = new Map();
  for (const [file, input] of Object.entries(meta.inputs)) {
    for (const edge of input.imports) {
      if (!edge.path.startsWith('src/shims/') || file.startsWith('src/')) continue;
      const key = `${edge.original} → ${edge.path}`;
      shimmed.set(key, [...new Set([...(shimmed.get(key) ?? []), file.replace(/^.*node_modules\//, '')])]);
    }
  }
  const aliases = [...shimmed].map(([alias, importers]) => ({ alias, importers }));
  // wrangler matches an alias on the exact import specifier; a relative one
  // ("../locales/index.js") is only safe while a single package imports it.
  for (const { alias, importers } of aliases) {
    const owners = new Set(importers.map((file) => packageOf(`node_modules/${file}`).name));
    if (alias.startsWith('.') && owners.size > 1)
      throw new Error(`alias ${alias} is imported by more than one package: ${importers.join(', ')}`);
  }
  return {
    raw: code.length,
    gzip: gzipSync(code).length,
    modules: Object.keys(output.inputs).length,
    rows,
    byFolder,
    duplicates,
    aliases,
  };
}

/** One cold start under `wrangler dev`: workerd CPU (ms) at /health, after the first conversation, after its first turn. */
async function devStartup() {
  const stack = await startWrangler({
    port: PORT,
    inspectorPort: INSPECTOR_PORT,
    vars: { AUTH_DISABLED: 'true', ...NO_LIMITS },
    // The service alone: the document converter is another Worker (its own isolate and start-up in production),
    // and the first turn reads no document.
    config: 'wrangler.toml',
  });
  try {
    const health = stack.workerd().cpuMs;
    const id = await createConversation(stack.base);
    const conversation = stack.workerd().cpuMs;
    const turn = await runTurn(stack.base, id, 'What do the team guidelines say about estimates?');
    if (turn.problems.length || turn.reads.length !== 1)
      throw new Error(
        `first turn: ${JSON.stringify({ problems: turn.problems, reads: turn.reads.map((r) => r.uri) })}`,
      );
    const firstTurn = stack.workerd().cpuMs;
    return { health, conversation, firstTurn };
  } finally {
    await stack.stop();
  }
}

/**
 * Which packages the start-up profiles' samples fall in (self time): each
 * sampled frame's line in the bundle → the module whose `// <path>` line
 * precedes it. V8 builtins and GC keep their own names.
 */
function profileByPackage(profiles, code) {
  const marks = [];
  code
    .toString('utf8')
    .split('\n')
    .forEach((line, index) => {
      const m = /^\/\/ (\S+)$/.exec(line);
      if (m && (m[1].includes('node_modules/') || m[1].startsWith('src/'))) marks.push([index, m[1]]);
    });
  const moduleAt = (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = '(bundle runtime helpers)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) (found = marks[mid][1]), (lo = mid + 1);
      else hi = mid - 1;
    }
    return found;
  };
  const counts = new Map();
  let total = 0;
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    for (const id of profile.samples) {
      const frame = nodes.get(id);
      if (frame.functionName === '(idle)') continue;
      let key;
      if (frame.url.endsWith('/index.js'))
        key = frame.lineNumber < 0 ? '(module top-level code)' : packageOf(moduleAt(frame.lineNumber)).name;
      else
        key = frame.url
          ? `(workerd: ${frame.url})`
          : frame.functionName.startsWith('(')
            ? frame.functionName
            : '(V8/workerd builtins)';
      if (key === '(src)') key = '(our src)';
      counts.set(key, (counts.get(key) ?? 0) + 1);
      total++;
    }
  }
  return [...counts].map(([name, samples]) => ({ name, share: samples / total })).sort((a, b) => b.share - a.share);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'mcp-ondemand-bundle-'));
try {
  // What is deployed (minified, as wrangler.toml says) for sizes and start-up; the same build unminified for the
  // breakdown, since only unminified output marks where each module's code begins.
  const deployed = buildWorker(root, path.join(work, 'deploy'));
  const built = buildWorker(root, path.join(work, 'analysis'), ['--no-minify']);
  // The document converter, a Worker of its own (converter/, docs/ARCHITECTURE.md): its size, never in the one above.
  const converter = buildWorker(root, path.join(work, 'converter'), ['--config', 'converter/wrangler.toml']);
  const result = analyse(built);
  const top = result.rows.slice(0, TOP);
  const m = machine();

  const codeFile = path.join(work, 'index.js');
  writeFileSync(codeFile, deployed.code);
  const v8 = v8Startup(codeFile);
  const unminifiedFile = path.join(work, 'unminified.js');
  writeFileSync(unminifiedFile, built.code);
  const v8Unminified = v8Startup(unminifiedFile);

  let startup;
  if (STARTUP) {
    const dev = [];
    const check = [];
    const checkDeployed = [];
    for (let i = 0; i < RUNS; i++) {
      dev.push(await devStartup());
      check.push(checkStartup(root, built.bundle, path.join(work, `startup-${i}.cpuprofile`)));
      checkDeployed.push(
        checkStartup(root, deployed.bundle, path.join(work, `startup-deployed-${i}.cpuprofile`)).activeMs,
      );
      console.error(
        `startup run ${i + 1}/${RUNS}: wrangler dev ${JSON.stringify(dev.at(-1))}, check startup active ${check.at(-1).activeMs} ms`,
      );
    }
    const actives = check.map((c) => c.activeMs);
    startup = {
      runs: RUNS,
      dev: {
        runs: dev,
        median: {
          health: median(dev.map((r) => r.health)),
          conversation: median(dev.map((r) => r.conversation)),
          firstTurn: median(dev.map((r) => r.firstTurn)),
        },
      },
      checkStartup: { activeMs: actives, median: median(actives), min: Math.min(...actives) },
      checkStartupDeployed: { activeMs: checkDeployed, median: median(checkDeployed), min: Math.min(...checkDeployed) },
      profile: profileByPackage(
        check.map((c) => c.profile),
        built.code,
      ).slice(0, 10),
    };
  }

  const shipped = { raw: deployed.code.length, gzip: gzipSync(deployed.code).length };
  const summary = {
    raw: shipped.raw,
    gzip: shipped.gzip,
    wranglerReported: deployed.reported,
    unminified: { raw: result.raw, gzip: result.gzip, wranglerReported: built.reported, v8StartupCpuMs: v8Unminified },
    modules: result.modules,
    duplicates: result.duplicates,
    aliases: result.aliases,
    top: top.map(({ name, version, raw, gzip, via }) => ({ name, version, raw, gzip, via })),
    topFolders: result.byFolder.slice(0, 12),
    v8StartupCpuMs: v8,
    converter: converter.reported,
    ...(startup ? { startup } : {}),
    machine: m,
  };
  console.log(`BENCH_RESULT bundle ${JSON.stringify(summary)}`);

  const lines = [
    '## Worker bundle: size and contributors',
    '',
    `Command: \`npm run bench:bundle${STARTUP ? ' -- --startup' : ''}\` · ${machineLine(m)}`,
    '',
    `\`wrangler deploy --dry-run --outfile … --metafile …\` (the deploy bundle: same esbuild settings, \`alias\` applied, minified as wrangler.toml says): ` +
      `**${kib(shipped.raw)}, ${kib(shipped.gzip)} gzipped**, ${result.modules} modules` +
      (deployed.reported
        ? ` (wrangler prints ${deployed.reported.raw.toFixed(2)} KiB / gzip ${deployed.reported.gzip.toFixed(2)} KiB)`
        : '') +
      `; unminified, ${kib(result.raw)}, ${kib(result.gzip)} gzipped. Per package, from esbuild's metafile of the unminified build (only it marks where each module's code begins): raw = bytes in the bundle; gzip = that package's code gzipped on its own ` +
      `(so the column adds up to more than the total); "pulled in by" = the shortest import chain from our source, package by package. ` +
      `Packages in the bundle twice: ${result.duplicates.length ? result.duplicates.join(', ') : 'none'}. ` +
      `Its start-up in V8 alone (Node ${process.versions.node}; cloudflare:* stubbed; no code cache; median of 15): ` +
      `**${v8.total.toFixed(0)} ms CPU** = compile ${v8.compile.toFixed(0)} ms (grows with every byte shipped, run or not) + ` +
      `top-level evaluation ${v8.evaluate.toFixed(0)} ms (the code that runs before the first request); unminified, ${v8Unminified.total.toFixed(0)} ms ` +
      `(compile ${v8Unminified.compile.toFixed(0)} ms + evaluation ${v8Unminified.evaluate.toFixed(0)} ms).`,
    '',
    `The document converter is a Worker of its own (converter/, reached by the CONVERTER service binding; its libraries are ` +
      `in none of the figures above): wrangler prints ${converter.reported ? `${converter.reported.raw.toFixed(2)} KiB / gzip ${converter.reported.gzip.toFixed(2)} KiB` : '(no size)'}.`,
    '',
    '| package | version | raw | gzip | pulled in by |',
    '|---|---|---|---|---|',
    ...top.map(
      (r) =>
        `| ${r.name} | ${r.version ?? ''} | ${kib(r.raw)} | ${r.gzip === undefined ? '' : kib(r.gzip)} | ${r.via.replaceAll('|', '\\|')} |`,
    ),
    '',
    'The largest folders (raw):',
    '',
    '| folder | raw |',
    '|---|---|',
    ...result.byFolder.slice(0, 12).map((f) => `| ${f.folder} | ${kib(f.raw)} |`),
  ];
  if (result.aliases.length) {
    lines.push(
      '',
      "Modules replaced by a shim (`alias` in wrangler.toml; why each is safe: the shim's own comment), and who imports them:",
      '',
      '| import → shim | imported by |',
      '|---|---|',
      ...result.aliases.map((a) => `| \`${a.alias}\` | ${a.importers.join(', ')} |`),
    );
  }
  if (startup) {
    const d = startup.dev;
    lines.push(
      '',
      `Start-up CPU, median of ${RUNS} cold starts. Under \`wrangler dev\` (fresh state each): workerd CPU time (user + system, all workerd processes, ` +
        `from /proc in 10 ms ticks, so including workerd's own start) from spawn until it answered GET /health, then after a first ` +
        `POST /v1/conversations, then after that conversation's first turn (offline model, one read_resource through MCP). ` +
        `\`wrangler check startup\`: the V8 profile of the Worker's start-up phase on this bundle, its "Active" time ` +
        `(wall-clock between samples, so it grows when the machine is busy: the minimum is the steadier figure).`,
      '',
      '| measure | median | runs |',
      '|---|---|---|',
      `| wrangler dev: GET /health answered | ${d.median.health} ms | ${d.runs.map((r) => r.health).join(', ')} |`,
      `| wrangler dev: + first POST /v1/conversations | ${d.median.conversation} ms | ${d.runs.map((r) => r.conversation).join(', ')} |`,
      `| wrangler dev: + its first turn | ${d.median.firstTurn} ms | ${d.runs.map((r) => r.firstTurn).join(', ')} |`,
      `| wrangler check startup, deployed (minified) bundle: Active (min ${startup.checkStartupDeployed.min} ms) | ${startup.checkStartupDeployed.median} ms | ${startup.checkStartupDeployed.activeMs.join(', ')} |`,
      `| wrangler check startup, unminified (profiled below): Active (min ${startup.checkStartup.min} ms) | ${startup.checkStartup.median} ms | ${startup.checkStartup.activeMs.join(', ')} |`,
      '',
      `Where the start-up profiles' samples fall (self time, all ${RUNS} profiles): ` +
        startup.profile.map((p) => `${p.name} ${(100 * p.share).toFixed(0)}%`).join(', ') +
        '.',
    );
  }
  if (WRITE) writeSection(path.join(root, 'BENCHMARKS.md'), 'bench-bundle', lines.join('\n'));
  console.log(lines.join('\n'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
