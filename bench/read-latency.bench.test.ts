import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import { getAgentByName } from 'agents';
import { it } from 'vitest';
import { loadConfig } from '../src/config';
import type { Conversation } from '../src/conversation/conversation';
import { buildSessions } from '../test/helpers/sessions';

/**
 * readResource latency inside a Conversation Durable Object: memory hit, KV
 * hit, miss after an update and cold miss, each next to the baseline of a plain MCP SDK client reading
 * the same resource from the same DO (one MCP round trip, no cache).
 *
 * workerd's clock has millisecond resolution here, so latencies are timed
 * over batches of reads and divided: each sample is the mean of one batch;
 * p50/p99 are over samples. Memory hits take microseconds, so their batches
 * are larger.
 */
const URI = 'task://guidelines';
const ROUND_TRIP = { reads: 1_000, batch: 10 };
const MEMORY = { reads: 50_000, batch: 1_000 };

type Sample = number[];
type Plan = { reads: number; batch: number };
const quantile = (xs: Sample, q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

async function timeBatches(plan: Plan, run: () => Promise<unknown>, before?: () => Promise<unknown>) {
  const samples: Sample = [];
  for (let b = 0; b < plan.reads / plan.batch; b++) {
    let total = 0;
    for (let i = 0; i < plan.batch; i++) {
      if (before) await before();
      const t0 = performance.now();
      await run();
      total += performance.now() - t0;
    }
    samples.push(total / plan.batch);
  }
  return { p50: quantile(samples, 0.5), p99: quantile(samples, 0.99), reads: plan.reads, batch: plan.batch };
}

it('readResource latency: memory hit, KV hit, miss vs a direct MCP read', async () => {
  const id = crypto.randomUUID();
  const stub = await getAgentByName<Env, Conversation>(env.CONVERSATION, id);
  await stub.create();

  const results = await runInDurableObject(stub, async (_instance, state) => {
    const config = loadConfig(env);
    const servers = config.mcpServers.filter((s) => s.id === 'demo');
    const build = (memoryBytes: number, kvMaxEntryBytes = config.settings.KV_MAX_ENTRY_BYTES) =>
      buildSessions(state.storage, servers, { MEMORY_CACHE_BYTES: memoryBytes, KV_MAX_ENTRY_BYTES: kvMaxEntryBytes }, 'bench');

    // Baseline: a plain SDK client in this DO, same route to the demo server.
    const direct = new Client({ name: 'bench-direct', version: '1' }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await direct.connect(new StreamableHTTPClientTransport(new URL('http://self.internal/demo/mcp'), { fetch: (i, init) => env.SELF.fetch(i, init) }));
    const directRead = () => direct.readResource({ uri: URI });

    const withMemory = build(16 * 1024 * 1024);
    const noMemory = build(0); // every read skips the memory layer: KV hit or miss
    const noKvWrites = build(0, 0); // the same, never writing KV (to see what background KV writes cost)
    for (const { sessions, cache } of [withMemory, noMemory, noKvWrites]) {
      await sessions.readResource('demo', URI); // connect, list, subscribe, fill KV
      await cache.settled();
    }
    for (let i = 0; i < 50; i++) await directRead(); // warm-up

    const memoryHit = await timeBatches(MEMORY, () => withMemory.sessions.readResource('demo', URI));
    const directForMemory = await timeBatches(ROUND_TRIP, directRead);
    const kvHit = await timeBatches(ROUND_TRIP, () => noMemory.sessions.readResource('demo', URI));
    const directForKv = await timeBatches(ROUND_TRIP, directRead);
    // A miss: drop the entry first (not timed), so the read goes memory → KV (refused) → server.
    const invalidate = async () => {
      noMemory.cache.invalidate({ scope: 'bench:shared', server: 'demo', uri: URI });
      await noMemory.cache.settled();
    };
    const miss = await timeBatches(ROUND_TRIP, () => noMemory.sessions.readResource('demo', URI), invalidate);
    const directForMiss = await timeBatches(ROUND_TRIP, directRead, invalidate);

    // A cold miss: a URI this conversation never read, so KV is asked first (and has nothing).
    const runId = crypto.randomUUID().slice(0, 8);
    const coldUris = Array.from({ length: 2 * ROUND_TRIP.reads }, (_, i) => `docs://published/bench-${runId}-${i}`);
    for (const [i, uri] of coldUris.entries()) {
      await direct.callTool({ name: 'publish_document', arguments: { slug: uri.slice('docs://published/'.length), title: `Bench ${i}`, markdown: `# Bench ${i}\n\nBody.` } });
    }
    // Let the list_changed notifications those publications caused arrive and their refreshes finish.
    for (let quiet = 0; quiet < 3; ) {
      const before = withMemory.sessions.refreshCount + noMemory.sessions.refreshCount;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await withMemory.sessions.idle();
      await noMemory.sessions.idle();
      await noKvWrites.sessions.idle();
      quiet = withMemory.sessions.refreshCount + noMemory.sessions.refreshCount === before ? quiet + 1 : 0;
    }
    const refreshesBefore = noMemory.sessions.refreshCount;
    let cold = 0;
    const coldMiss = await timeBatches(ROUND_TRIP, () => noMemory.sessions.readResource('demo', coldUris[cold++]!));
    let coldDirect = 0;
    const directForColdMiss = await timeBatches(ROUND_TRIP, () => direct.readResource({ uri: coldUris[coldDirect++]! }));
    let coldNoKv = ROUND_TRIP.reads; // the second half: URIs nobody read yet
    const coldMissNoKvWrites = await timeBatches(ROUND_TRIP, () => noKvWrites.sessions.readResource('demo', coldUris[coldNoKv++]!));
    // The same protocol work done by hand: subscribe, then read.
    let coldSubscribed = 0;
    const directSubscribeRead = await timeBatches(ROUND_TRIP, async () => {
      const uri = coldUris[coldSubscribed++]!;
      await direct.subscribeResource({ uri });
      return direct.readResource({ uri });
    });
    console.log(`refreshes during the cold-miss run: ${noMemory.sessions.refreshCount - refreshesBefore}`);

    await direct.close();
    await withMemory.sessions.closeAll();
    await noMemory.sessions.closeAll();
    await noKvWrites.sessions.closeAll();
    return { memoryHit, kvHit, miss, coldMiss, coldMissNoKvWrites, directForMemory, directForKv, directForMiss, directForColdMiss, directSubscribeRead };
  });

  // Read by bench/run.mjs, which writes BENCHMARKS.md.
  console.log(`BENCH_RESULT read-latency ${JSON.stringify({ uri: URI, results })}`);
  await exports.default.fetch('http://localhost/health'); // keep the worker alive until the log is flushed
});
