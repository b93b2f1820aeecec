// What the Worker's JavaScript heap holds, from a running `wrangler dev`:
// heap usage after a full garbage collection, then a heap snapshot counted by
// constructor name — how many Conversation sessions, demo-server sessions,
// streams… are alive. Used to tell a leak in our objects from memory the
// runtime keeps outside the heap (docs/RELIABILITY.md, "Memory").
//
//   node bench/heap-census.mjs ws://127.0.0.1:<port>/core:user:mcp-ondemand [Name,Name…]
//
// The URL is workerd's own inspector (not wrangler's proxy on --inspector-port):
// `ss -ltnp | grep workerd` lists its ports, `curl 127.0.0.1:<port>/json` the
// targets (bench/lib/inspector.mjs finds it by itself: `workerInspector`).
import { heapCensus } from './lib/inspector.mjs';

/** Our objects a conversation holds while it lives (and none once it is deleted). */
export const CENSUS_NAMES = [
  'McpSessions',
  'McpSession',
  'ServerLink',
  'ResourceCache',
  'LiveStream',
  'McpServer',
  'WebStandardStreamableHTTPServerTransport',
  'workerd / DurableObjectBase',
];

if (import.meta.url === `file://${process.argv[1]}`) {
  const url = process.argv[2];
  if (!url) throw new Error('usage: node bench/heap-census.mjs <inspector WebSocket URL> [names]');
  const names = process.argv[3]?.split(',') ?? CENSUS_NAMES;
  const { usedMiB, totalMiB, counts } = await heapCensus(url, names);
  console.log(`heap used ${usedMiB.toFixed(1)} MiB after a full collection (allocated ${totalMiB.toFixed(1)} MiB)`);
  console.log(names.map((name) => `${name}: ${counts[name]}`).join(' · '));
  process.exit(0);
}
