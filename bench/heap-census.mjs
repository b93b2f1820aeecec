// What the Worker's JavaScript heap holds, from a running `wrangler dev`:
// heap usage, then a heap snapshot (which collects garbage first) counted by
// constructor name — how many Conversation sessions, demo-server sessions,
// streams… are alive. Used to tell a leak in our objects from memory the
// runtime keeps outside the heap (docs/RELIABILITY.md, "Soak").
//
//   node bench/heap-census.mjs ws://127.0.0.1:<port>/core:user:mcp-ondemand [Name,Name…]
//
// The URL is workerd's own inspector (not wrangler's proxy on --inspector-port):
// `ss -ltnp | grep workerd` lists its ports, `curl 127.0.0.1:<port>/json` the targets.
// Reads the figures the soak section of docs/RELIABILITY.md quotes.
const url = process.argv[2];
const names = (
  process.argv[3] ??
  'McpSessions,McpSession,ResourceCache,LiveStream,McpServer,WebStandardStreamableHTTPServerTransport,workerd / DurableObjectBase'
).split(',');
if (!url) throw new Error('usage: node bench/heap-census.mjs <inspector WebSocket URL> [names]');

const ws = new WebSocket(url);
const pending = new Map();
const chunks = [];
let nextId = 1;
ws.onmessage = (event) => {
  const message = JSON.parse(event.data);
  if (message.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(message.params.chunk);
  else pending.get(message.id)?.(message.result);
};
await new Promise(
  (resolve, reject) => ((ws.onopen = resolve), (ws.onerror = () => reject(new Error(`cannot connect to ${url}`)))),
);
const send = (method, params = {}) =>
  new Promise((resolve) => (pending.set(nextId, resolve), ws.send(JSON.stringify({ id: nextId++, method, params }))));

// workerd's inspector sometimes leaves the first request of a session unanswered: say so rather than hang.
setTimeout(() => (console.error('no answer from the inspector within 30 s; run it again'), process.exit(1)), 30_000);
const before = await send('Runtime.getHeapUsage');
await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
const after = await send('Runtime.getHeapUsage');
const { snapshot, nodes, strings } = JSON.parse(chunks.join(''));
const fields = snapshot.meta.node_fields;
const types = snapshot.meta.node_types[0];
const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
const counts = new Map();
for (let i = 0; i < nodes.length; i += fields.length) {
  const type = types[nodes[i + typeAt]];
  if (type !== 'object' && type !== 'native') continue;
  const name = strings[nodes[i + nameAt]];
  const entry = counts.get(name) ?? { count: 0, bytes: 0 };
  entry.count++;
  entry.bytes += nodes[i + sizeAt];
  counts.set(name, entry);
}
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
console.log(
  `heap used ${mib(before.usedSize)} MiB before the snapshot, ${mib(after.usedSize)} MiB after its collection (allocated ${mib(after.totalSize)} MiB)`,
);
console.log(names.map((name) => `${name}: ${counts.get(name)?.count ?? 0}`).join(' · '));
ws.close();
process.exit(0);
