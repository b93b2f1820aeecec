import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import type { Client } from '@modelcontextprotocol/client';
import { it } from 'vitest';
import { loadConfig } from '../src/config';
import { buildSessions } from '../test/helpers/sessions';
import { directDemoClient } from './lib/direct-client';

/**
 * readResource latency inside a Conversation Durable Object, for the demo
 * server spoken in 2026-07-28 and in 2025-11-25: memory hit, KV hit, miss
 * after an update and cold miss, each next to the baseline of a plain MCP
 * SDK v2 client in the same era reading the same resource from the same DO
 * (one MCP round trip, its own cache off).
 *
 * workerd's clock has millisecond resolution here, so latencies are timed
 * over batches of reads and divided: each sample is the mean of one batch;
 * p50/p99 are over samples. Memory hits take microseconds, so their batches
 * are larger.
 */
const URI = 'task://guidelines';
const ROUND_TRIP = { reads: 1_000, batch: 10 };
/** URIs a conversation never read: fewer than MAX_SUBSCRIBED_URIS (256), so every one is subscribed to. */
const COLD = { reads: 200, batch: 10 };
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

/** One era: the conversation's reads and the direct client's, side by side. */
async function measureEra(storage: DurableObjectStorage, era: 'modern' | 'legacy') {
  const config = loadConfig(env);
  const server = {
    id: 'demo',
    url: '/demo/mcp',
    protocol: era === 'modern' ? ('auto' as const) : ('2025-11-25' as const),
  };
  const build = (memoryBytes: number, kvMaxEntryBytes = config.settings.KV_MAX_ENTRY_BYTES) =>
    buildSessions(
      storage,
      [server],
      { MEMORY_CACHE_BYTES: memoryBytes, KV_MAX_ENTRY_BYTES: kvMaxEntryBytes },
      `bench-${era}`,
    );
  const read = (sessions: ReturnType<typeof build>['sessions'], uri = URI) =>
    sessions.readResource('demo', uri, { reuseSince: Date.now() });

  const direct = await directDemoClient(era);
  const directRead = () => direct.readResource({ uri: URI });

  const withMemory = build(16 * 1024 * 1024);
  const noMemory = build(0); // every read skips the memory layer: KV hit or miss
  const noKvWrites = build(0, 0); // the same, never writing KV (to see what background KV writes cost)
  // A fresh copy before each phase: the demo marks its guidelines fresh for 30 s (2026 hint).
  const refill = async () => {
    for (const { sessions, cache } of [withMemory, noMemory]) {
      cache.invalidate({ server: 'demo', uri: URI });
      await read(sessions);
      await cache.settled();
    }
  };
  for (const { sessions, cache } of [withMemory, noMemory, noKvWrites]) {
    await read(sessions); // connect, list, subscribe, fill KV
    await cache.settled();
  }
  for (let i = 0; i < 50; i++) await directRead(); // warm-up

  await refill();
  const memoryHit = await timeBatches(MEMORY, () => read(withMemory.sessions));
  const directForMemory = await timeBatches(ROUND_TRIP, directRead);
  await refill();
  const kvHit = await timeBatches(ROUND_TRIP, () => read(noMemory.sessions));
  const directForKv = await timeBatches(ROUND_TRIP, directRead);
  // A miss: drop the entry first (not timed), so the read goes memory → KV (refused) → server.
  const invalidate = async () => {
    noMemory.cache.invalidate({ server: 'demo', uri: URI });
    await noMemory.cache.settled();
  };
  const miss = await timeBatches(ROUND_TRIP, () => read(noMemory.sessions), invalidate);
  const directForMiss = await timeBatches(ROUND_TRIP, directRead, invalidate);

  // A cold miss: a URI this conversation never read, so it is subscribed to first and KV is asked (and has nothing).
  const runId = crypto.randomUUID().slice(0, 8);
  const coldUris = Array.from({ length: 2 * COLD.reads }, (_, i) => `docs://published/bench-${era}-${runId}-${i}`);
  for (const [i, uri] of coldUris.entries()) {
    await direct.callTool({
      name: 'publish_document',
      arguments: {
        slug: uri.slice('docs://published/'.length),
        title: `Bench ${i}`,
        markdown: `# Bench ${i}\n\nBody.`,
      },
    });
  }
  // Let the list_changed notifications those publications caused arrive and their refreshes finish.
  for (let quiet = 0; quiet < 3; ) {
    const before = withMemory.sessions.refreshCount + noMemory.sessions.refreshCount;
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const { sessions } of [withMemory, noMemory, noKvWrites]) await sessions.idle();
    quiet = withMemory.sessions.refreshCount + noMemory.sessions.refreshCount === before ? quiet + 1 : 0;
  }
  let cold = 0;
  const coldMiss = await timeBatches(COLD, () => read(noMemory.sessions, coldUris[cold++]!));
  let coldDirect = 0;
  const directForColdMiss = await timeBatches(COLD, () => direct.readResource({ uri: coldUris[coldDirect++]! }));
  let coldNoKv = COLD.reads; // the second half: URIs nobody read yet
  const coldMissNoKvWrites = await timeBatches(COLD, () => read(noKvWrites.sessions, coldUris[coldNoKv++]!));
  // The same protocol work done by hand: be told of changes to the URI, then read it.
  const directSubscribeRead = await timeBatches(COLD, directWatchThenRead(direct, era, coldUris.slice(0, COLD.reads)));

  await direct.close();
  for (const { sessions } of [withMemory, noMemory, noKvWrites]) await sessions.release();
  return {
    memoryHit,
    kvHit,
    miss,
    coldMiss,
    coldMissNoKvWrites,
    directForMemory,
    directForKv,
    directForMiss,
    directForColdMiss,
    directSubscribeRead,
  };
}

/**
 * What a hand-written client does before a URI's first read: 2025,
 * `resources/subscribe`; 2026, a wider `subscriptions/listen` (a filter cannot
 * change), the old stream closed once the new one is acknowledged.
 */
function directWatchThenRead(direct: Client, era: 'modern' | 'legacy', uris: string[]) {
  let next = 0;
  let current: Awaited<ReturnType<Client['listen']>> | undefined;
  return async () => {
    const uri = uris[next++]!;
    if (era === 'legacy') await direct.subscribeResource({ uri });
    else {
      const previous = current;
      current = await direct.listen({ resourceSubscriptions: uris.slice(0, next) });
      await previous?.close();
    }
    return direct.readResource({ uri });
  };
}

it('readResource latency, 2026-07-28 and 2025-11-25: memory hit, KV hit, miss vs a direct MCP read', async () => {
  const id = crypto.randomUUID();
  const stub = env.CONVERSATION.getByName(id);
  await stub.create();
  const eras = await runInDurableObject(stub, async (_instance, state) => ({
    modern: await measureEra(state.storage, 'modern'),
    legacy: await measureEra(state.storage, 'legacy'),
  }));
  // Read by bench/run.mjs, which writes BENCHMARKS.md.
  console.log(`BENCH_RESULT read-latency ${JSON.stringify({ uri: URI, eras })}`);
  await exports.default.fetch('http://localhost/health'); // keep the worker alive until the log is flushed
});
