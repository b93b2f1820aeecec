// A V8 CPU profile of the Worker under `wrangler dev`, taken through its
// inspector port (the DevTools protocol's Profiler domain), summarised as
// self time per function and per source: where the CPU of a turn goes.
// Used by bench/cpu.mjs with CPU_PROFILE=1 (profiling slows the Worker, so
// never while measuring).
//
// Caveat: workerd does not tell V8 when its thread waits for I/O, so samples
// taken while it waits land on the last JS frame or native call (an idle
// Worker "spends" seconds in a keep-alive's TextEncoder.encode). The totals
// are therefore closer to wall time than to CPU; read the shares of JS
// modules against each other, not the absolute ms, and check CPU in /proc.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The bundle `wrangler dev` is running whose text contains `marker`
 * (.wrangler/tmp/dev-…/index.js under `root`, newest first): V8 names only
 * "index.js" and a line, and esbuild's `// path` comments in it say which
 * module each line came from.
 */
export function devBundle(root, marker) {
  const dir = path.join(root, '.wrangler/tmp');
  const candidates = readdirSync(dir)
    .filter((d) => d.startsWith('dev-'))
    .map((d) => path.join(dir, d, 'index.js'))
    .filter((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    })
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  for (const file of candidates) {
    const text = readFileSync(file, 'utf8');
    if (text.includes(marker)) return text;
  }
  return undefined;
}

/** line (0-based) → module name, from esbuild's `// src/…` and `// …/node_modules/<package>/…` comments. */
function moduleOfLine(source) {
  const starts = [];
  source.split('\n').forEach((line, i) => {
    const match = /^\/\/ (\S+\.(?:[cm]?[jt]sx?|json))$/.exec(line);
    if (!match) return;
    const file = match[1];
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
    starts.push([i, pkg ? pkg[1] : file.replace(/^(\.\.\/)+/, '')]);
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = '(bundle prelude)';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid][0] <= line) (found = starts[mid][1]), (lo = mid + 1);
      else hi = mid - 1;
    }
    return found;
  };
}

/** Connects to the inspector on `port` and returns `{ start(), stop() → summary }`. */
export async function profiler(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  // wrangler's inspector proxy wants an Origin it allows (localhost).
  const ws = new WebSocket(targets[0].webSocketDebuggerUrl, { headers: { origin: 'http://localhost' } });
  await new Promise((resolve, reject) => ((ws.onopen = resolve), (ws.onerror = reject)));
  let next = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.id !== undefined && pending.has(message.id))
      pending.get(message.id)(message), pending.delete(message.id);
  };
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  return {
    start: () => send('Profiler.start'),
    async stop(source) {
      const { result } = await send('Profiler.stop');
      ws.close();
      return summarise(result.profile, source);
    },
  };
}

/** Self time (ms) per function, per source file and (given the bundle's text) per module or package, biggest first. */
export function summarise(profile, source) {
  const moduleOf = source ? moduleOfLine(source) : undefined;
  const modules = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++)
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  const fns = new Map();
  const files = new Map();
  let total = 0;
  for (const [id, ms] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    if (functionName === '(idle)') continue;
    total += ms;
    const file = url ? url.replace(/^.*\/(node_modules|src|\.wrangler)\//, '$1/') : functionName || '(native)';
    const fn = `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
    fns.set(fn, (fns.get(fn) ?? 0) + ms);
    files.set(file, (files.get(file) ?? 0) + ms);
    // Runtime time (V8 builtins, workerd's C++, GC) has no line: it keeps its own name.
    const module = moduleOf && url.endsWith('index.js') ? moduleOf(lineNumber) : file;
    modules.set(module, (modules.get(module) ?? 0) + ms);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, ms]) => ({ name, ms: Math.round(ms * 10) / 10 }));
  return { totalMs: Math.round(total), modules: top(modules, 25), functions: top(fns, 25), files: top(files, 15) };
}
