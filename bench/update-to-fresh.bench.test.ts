import { runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import type { Client } from '@modelcontextprotocol/client';
import { it } from 'vitest';
import { buildSessions } from '../test/helpers/sessions';
import { directDemoClient } from './lib/direct-client';

/**
 * Update-to-fresh latency: another client changes the guidelines
 * (`update_guidelines`); the server applies the change, notifies, and
 * answers. From the moment the change was sent, how long until a read in a
 * conversation that had read the old text returns the new one — per protocol
 * era, next to a plain SDK v2 client with its own response cache and its own
 * notification channel (2026 `listen`, 2025 `resources/subscribe`): the peer
 * a developer would write by hand.
 *
 * Updates alternate between the two readers (one reader per update, so
 * neither waits for the other): once the change is acknowledged the reader
 * reads (the demo server notifies before it answers), and again until the
 * text is new. The
 * time of the notification in the conversation is taken where it drops the
 * copy (the cache's `invalidate`, wrapped here), so delivery and the read
 * after it are seen apart. Polling on timers is not used: workerd fires a
 * timer only between I/O events, so a poll loop would measure the scheduler.
 */
const URI = 'task://guidelines';
const UPDATES = 200;

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const summary = (xs: number[]) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs) });
const textOf = (contents: unknown[]) => (contents[0] as { text?: string } | undefined)?.text;

/** Reads until the text is `text`; when (since `sent`) the fresh read returned, and how many reads were stale first. */
async function firstFresh(read: () => Promise<string | undefined>, text: string, sent: number) {
  for (let stale = 0; ; stale++) {
    if ((await read()) === text) return { at: performance.now() - sent, stale };
    if (stale > 1_000) throw new Error('still stale after 1,000 reads');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

async function measureEra(storage: DurableObjectStorage, era: 'modern' | 'legacy') {
  const server = {
    id: 'demo',
    url: '/demo/mcp',
    protocol: era === 'modern' ? ('auto' as const) : ('2025-11-25' as const),
  };
  const { sessions, cache } = buildSessions(storage, [server], {}, `fresh-${era}`);
  let notifiedAt = 0;
  const invalidate = cache.invalidate.bind(cache);
  cache.invalidate = (ref) => {
    notifiedAt = performance.now();
    invalidate(ref);
  };
  const ours = async () => textOf((await sessions.readResource('demo', URI, { reuseSince: Date.now() })).contents);
  const peer: Client = await directDemoClient(era, { cache: true });
  if (era === 'modern') await peer.listen({ resourceSubscriptions: [URI] });
  else await peer.subscribeResource({ uri: URI });
  const theirs = async () => textOf((await peer.readResource({ uri: URI })).contents);
  const editor = await directDemoClient('modern');

  await ours();
  await theirs();
  const results = {
    ours: [] as number[],
    peer: [] as number[],
    acknowledged: [] as number[],
    notified: [] as number[],
    staleAfterAck: { ours: 0, peer: 0 },
  };
  for (let i = 0; i < UPDATES; i++) {
    const text = `Guidelines revision ${era}-${i}-${crypto.randomUUID().slice(0, 8)}: one owner per task.`;
    notifiedAt = 0;
    const sent = performance.now();
    await editor.callTool({ name: 'update_guidelines', arguments: { text } });
    results.acknowledged.push(performance.now() - sent);
    const who = i % 2 === 0 ? 'ours' : 'peer';
    const fresh = await firstFresh(who === 'ours' ? ours : theirs, text, sent);
    results[who].push(fresh.at);
    if (fresh.stale) results.staleAfterAck[who]++;
    if (who === 'ours') results.notified.push(notifiedAt ? notifiedAt - sent : NaN);
    else await ours(); // keep ours current for its next round
    // Between updates both read a few times from their caches (memory hits, cache hits).
    for (let j = 0; j < 5; j++) {
      await ours();
      await theirs();
    }
  }
  await editor.close();
  await peer.close();
  await sessions.release();
  const notified = results.notified.filter((x) => !Number.isNaN(x));
  return {
    updates: UPDATES,
    ours: summary(results.ours),
    peer: summary(results.peer),
    acknowledged: summary(results.acknowledged),
    notified: notified.length ? summary(notified) : null,
    staleAfterAck: results.staleAfterAck,
  };
}

it('update-to-fresh latency per era, next to a plain SDK v2 client with its cache and notifications', async () => {
  const stub = env.CONVERSATION.getByName(crypto.randomUUID());
  await stub.create();
  const eras = await runInDurableObject(stub, async (_instance, state) => ({
    modern: await measureEra(state.storage, 'modern'),
    legacy: await measureEra(state.storage, 'legacy'),
  }));
  console.log(`BENCH_RESULT update-to-fresh ${JSON.stringify({ uri: URI, eras })}`);
  await exports.default.fetch('http://localhost/health'); // keep the worker alive until the log is flushed
});
