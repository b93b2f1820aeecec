// The stack the load benchmark and the soak drive, as real processes on
// 127.0.0.1: `wrangler dev` (workerd) with the demo MCP server inside, and
// @modelcontextprotocol/server-everything behind a small counting proxy.
// Everything started here runs in its own process group and is stopped by
// `stop()` (also on exit), never by name.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const EVERYTHING_ENTRY = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const WRANGLER_ENTRY = path.join(root, 'node_modules/wrangler/bin/wrangler.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(what, check, timeoutMs, child, output) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${output()}`);
    if (Date.now() > deadline) throw new Error(`${what} not ready within ${timeoutMs} ms:\n${output()}`);
    await sleep(200);
  }
}

/** Spawns a child in its own process group, keeping the tail of its output; `stop()` ends the group. */
function startChild(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const listeners = new Set();
  for (const stream of [child.stdout, child.stderr]) {
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      text = (text + chunk).slice(-20_000);
      for (const listener of listeners) listener(chunk);
    });
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const signal = (sig) => {
    try {
      process.kill(-child.pid, sig);
    } catch {
      // already gone
    }
  };
  const onExit = () => signal('SIGKILL');
  process.once('exit', onExit);
  return {
    child,
    output: () => text,
    onOutput: (listener) => listeners.add(listener),
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      signal('SIGKILL'); // stragglers of the group (workerd under wrangler)
    },
  };
}

/** The pids of `pid`'s descendants (from /proc). */
function descendants(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const queue = [pid];
  while (queue.length) for (const c of children.get(queue.shift()) ?? []) out.push(c), queue.push(c);
  return out;
}

/** VmRSS of a process in bytes (0 if it is gone). */
function rssBytes(pid) {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** User + system CPU time of a process in ms, all threads (0 if it is gone). */
function cpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 100 Hz ticks
  } catch {
    return 0;
  }
}

/**
 * On-CPU time of a process in ns, summed over its live threads, from the
 * scheduler's own accounting (/proc/<pid>/task/<tid>/schedstat): far finer
 * than the 10 ms ticks of `cpuMs`, but a thread that has exited takes its
 * time with it (workerd keeps its threads, so in practice it matches).
 */
function cpuNs(pid) {
  let sum = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // thread gone meanwhile
      }
    }
  } catch {
    // process gone
  }
  return sum;
}

/**
 * `@modelcontextprotocol/server-everything` (streamable HTTP) on `port`, and a
 * proxy on `proxyPort` that forwards everything to it and counts the
 * JSON-RPC methods of the POSTs it sees (how many `resources/read` really
 * reached the server), the sessions the server created (distinct
 * `Mcp-Session-Id`s it answered an `initialize` with), and the requests the
 * proxy itself could not forward (then it drops the client's connection, as
 * a server that went away would).
 */
export async function startEverything({ port, proxyPort }) {
  if (await portOpen(port)) throw new Error(`port ${port} is in use`);
  // Not process.env: its get-env tool returns its environment to any client.
  const server = startChild(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port), GZIP_ALLOWED_DOMAINS: '127.0.0.1' },
  });
  server.child.stdout.resume();
  await waitFor('server-everything', () => portOpen(port), 15_000, server.child, server.output);

  const methods = new Map();
  const sessions = new Set();
  const forwardErrors = new Map();
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const proxy = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let initialize = false;
      if (req.method === 'POST') {
        try {
          const parsed = JSON.parse(body.toString('utf8'));
          for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
            if (m?.method) methods.set(m.method, (methods.get(m.method) ?? 0) + 1);
            if (m?.method === 'initialize') initialize = true;
          }
        } catch {
          methods.set('(unparsable)', (methods.get('(unparsable)') ?? 0) + 1);
        }
      }
      const upstream = http.request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent },
        (up) => {
          const sid = up.headers['mcp-session-id'];
          if (initialize && typeof sid === 'string') sessions.add(sid);
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', (error) => {
        if (!res.destroyed)
          forwardErrors.set(error.code ?? error.message, (forwardErrors.get(error.code ?? error.message) ?? 0) + 1);
        res.destroy();
      });
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise((resolve, reject) => {
    proxy.once('error', reject);
    proxy.listen(proxyPort, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${proxyPort}/mcp`,
    counts: () => Object.fromEntries(methods),
    sessionsCreated: () => sessions.size,
    forwardErrors: () => Object.fromEntries(forwardErrors),
    resetCounts: () => {
      methods.clear();
      sessions.clear();
      forwardErrors.clear();
    },
    async stop() {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      agent.destroy();
      await server.stop();
    },
  };
}

/**
 * `wrangler dev` on `port` with `vars`, state in a fresh temporary directory
 * (so every run starts cold: no KV or Durable Object state from before).
 * Also used by the browser tests (test/browser/service.ts).
 * `workerd()` samples the memory and CPU time of its workerd processes.
 * `args`: more `wrangler dev` arguments. `config`: another wrangler config (e.g. bench/floor/wrangler.jsonc, the CPU
 * benchmark's floor Worker; it must answer GET /health); default: the service.
 */
export async function startWrangler({
  port,
  inspectorPort,
  vars,
  config,
  args: extraArgs = [],
  startupTimeoutMs = 60_000,
}) {
  if (await portOpen(port)) throw new Error(`port ${port} is in use`);
  const persist = mkdtempSync(path.join(os.tmpdir(), 'mcp-ondemand-load-'));
  const args = [
    WRANGLER_ENTRY,
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--inspector-port',
    String(inspectorPort),
    '--persist-to',
    persist,
    '--show-interactive-dev-session=false',
  ];
  // The service and its document converter (converter/, the CONVERTER service binding) in one session, as `npm start`
  // runs them; another config (bench/floor) runs alone.
  if (config) args.push('--config', config);
  else args.push('--config', 'wrangler.toml', '--config', 'converter/wrangler.toml');
  args.push(...extraArgs);
  for (const [name, value] of Object.entries(vars)) args.push('--var', `${name}:${value}`);
  const wrangler = startChild(process.execPath, args, {
    cwd: root,
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
  });
  const base = `http://127.0.0.1:${port}`;
  const healthy = async () => {
    try {
      return (await fetch(`${base}/health`)).ok;
    } catch {
      return false;
    }
  };
  try {
    await waitFor('wrangler dev', healthy, startupTimeoutMs, wrangler.child, wrangler.output);
  } catch (error) {
    await wrangler.stop();
    rmSync(persist, { recursive: true, force: true });
    throw error;
  }
  return {
    base,
    /** The wrangler process (its workerd processes are its descendants). */
    pid: wrangler.child.pid,
    output: wrangler.output,
    onOutput: wrangler.onOutput,
    /**
     * RSS (bytes) and CPU time (ms) of the workerd processes under wrangler,
     * summed: wrangler 4 runs two, a small proxy in front and the Worker's.
     * `cpuNs`: the same CPU time from schedstat, in ns (see cpuNs above).
     */
    workerd() {
      const pids = descendants(wrangler.child.pid).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'workerd';
        } catch {
          return false;
        }
      });
      return {
        pids,
        rss: pids.reduce((sum, pid) => sum + rssBytes(pid), 0),
        cpuMs: pids.reduce((sum, pid) => sum + cpuMs(pid), 0),
        cpuNs: pids.reduce((sum, pid) => sum + cpuNs(pid), 0),
      };
    },
    async stop() {
      await wrangler.stop();
      rmSync(persist, { recursive: true, force: true });
    },
  };
}

/**
 * workerd CPU (ms, schedstat) of `fn` under `w` (a startWrangler stack), after its I/O has settled: `settleMs` before
 * (what came earlier has ended) and after (the work `fn` left behind, such as cache and storage writes, is counted).
 */
export async function cpuOf(w, fn, { settleMs = 150 } = {}) {
  await sleep(settleMs);
  const before = w.workerd().cpuNs;
  const result = await fn();
  await sleep(settleMs);
  return { ms: (w.workerd().cpuNs - before) / 1e6, result };
}

/**
 * Limits high enough never to answer 429 in a benchmark, where every
 * conversation is the same end user (auth off): turns, conversations created
 * per minute, and conversations holding live MCP sessions.
 */
export const NO_LIMITS = {
  TURNS_PER_MINUTE_PER_USER: '100000000',
  TURNS_PER_MINUTE_PER_TENANT: '100000000',
  CONVERSATIONS_PER_MINUTE_PER_USER: '100000000',
  LIVE_CONVERSATIONS_PER_USER: '100000',
};

/**
 * Counts the service's structured log lines (src/observability/log.ts, as
 * `wrangler dev` prints them: one object per line group) whose outcome is
 * not `ok`, by event, outcome and the start of the error: what a failed or
 * slow run was up against. `stop()` detaches it and returns the census.
 */
export function failureCensus(stack) {
  let buffer = '';
  const counts = new Map();
  let attached = true;
  stack.onOutput((chunk) => {
    if (!attached) return;
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n}')) >= 0) {
      const block = buffer.slice(0, end + 2);
      buffer = buffer.slice(end + 2);
      const field = (name) => new RegExp(`\\b${name}: '([^']*)'`).exec(block)?.[1];
      const event = field('event');
      const outcome = field('outcome');
      if (!event || !outcome || outcome === 'ok') continue;
      const key = `${event} · ${outcome}${field('server') ? ` · ${field('server')}` : ''}${field('method') ? ` · ${field('method')}` : ''} · ${(field('error') ?? '').slice(0, 90)}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if (buffer.length > 1_000_000) buffer = buffer.slice(-100_000);
  });
  return {
    stop() {
      attached = false;
      return [...counts].sort((a, b) => b[1] - a[1]).map(([what, count]) => ({ what, count }));
    },
  };
}
