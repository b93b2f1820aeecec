// A Worker's JavaScript heap under `wrangler dev`, through workerd's own
// inspector (V8's DevTools protocol; not wrangler's proxy on --inspector-port,
// which serves one debugging session): heap usage after a full garbage
// collection, and a heap snapshot counted by constructor name — how many
// Conversation sessions, caches, streams… are alive. What tells memory our
// objects hold from memory the runtime keeps outside the heap
// (docs/RELIABILITY.md, "Memory"). Used by bench/load.mjs and
// bench/heap-census.mjs. Linux only (/proc).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The TCP ports `pids` listen on, from /proc (no `ss` needed). */
function listeningPorts(pids) {
  const inodes = new Set();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        try {
          const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (match) inodes.add(match[1]);
        } catch {
          // closed meanwhile
        }
      }
    } catch {
      // process gone
    }
  }
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the 10th field.
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9])) ports.add(Number.parseInt(f[1].split(':')[1], 16));
    }
  }
  return [...ports];
}

/**
 * The inspector WebSocket URL of the Worker `name` (its isolate, `core:user:<name>`) among the workerd processes
 * `pids`; undefined if none answers.
 */
export async function workerInspector(pids, name) {
  for (const port of listeningPorts(pids)) {
    try {
      const targets = await (
        await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(2000) })
      ).json();
      // Titled `workerd: worker core:user:<name>`; miniflare's own Workers (KV, assets…) have other names.
      const target = targets.find((t) => t.title?.endsWith(` core:user:${name}`) && t.webSocketDebuggerUrl);
      if (target) return target.webSocketDebuggerUrl.replace('localhost', '127.0.0.1');
    } catch {
      // not an inspector
    }
  }
  return undefined;
}

/** One DevTools session: `send(method, params)` answers its result; a heap snapshot's chunks are collected. */
async function session(url) {
  const ws = new WebSocket(url);
  const pending = new Map();
  const chunks = [];
  let nextId = 1;
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params.chunk);
    else pending.get(message.id)?.(message.result);
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  return {
    chunks,
    send: (method, params = {}, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => reject(new Error(`no answer to ${method} within ${timeoutMs} ms`)), timeoutMs);
        pending.set(id, (result) => (clearTimeout(timer), resolve(result)));
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * The isolate's heap after a full collection: `{usedMiB, totalMiB}`, and the number of live objects of each
 * constructor in `names`, from a heap snapshot (taking one collects garbage first; workerd does not answer
 * `HeapProfiler.collectGarbage`, and an unanswered request stalls the session). workerd's inspector sometimes leaves
 * a new session unanswered: one that says nothing within 5 s is closed and another opened, up to four times.
 */
export async function heapCensus(url, names = []) {
  let lastError;
  for (let attempt = 0; attempt < 4; attempt++) {
    let inspector;
    try {
      inspector = await session(url);
      await inspector.send('Runtime.getHeapUsage', {}, 5_000);
      await inspector.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false }, 120_000);
      const usage = await inspector.send('Runtime.getHeapUsage');
      const { snapshot, nodes, strings } = JSON.parse(inspector.chunks.join(''));
      const fields = snapshot.meta.node_fields;
      const types = snapshot.meta.node_types[0];
      const [typeAt, nameAt] = ['type', 'name'].map((f) => fields.indexOf(f));
      const counts = Object.fromEntries(names.map((name) => [name, 0]));
      for (let i = 0; i < nodes.length; i += fields.length) {
        const type = types[nodes[i + typeAt]];
        const name = strings[nodes[i + nameAt]];
        if ((type === 'object' || type === 'native') && name in counts) counts[name]++;
      }
      return { usedMiB: usage.usedSize / 2 ** 20, totalMiB: usage.totalSize / 2 ** 20, counts };
    } catch (error) {
      lastError = error;
    } finally {
      inspector?.close();
    }
  }
  throw lastError;
}
