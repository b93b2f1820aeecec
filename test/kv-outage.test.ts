import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { InvalidationLog } from '../src/cache/invalidation-log';
import { kvKey } from '../src/cache/keys';
import { ResourceCache } from '../src/cache/resource-cache';
import { conversationStub, createConversation } from './helpers/api';
import { plainPlan, TEST_CACHE_SETTINGS, textLoad } from './helpers/cache';
import { buildSessions } from './helpers/sessions';

// KV failing on purpose: the real local KV, with some operations made to throw.
type Op = 'get' | 'put' | 'delete';
function failing(ops: Op[]): KVNamespace & { failures: number } {
  const kv = env.RESOURCE_CACHE;
  const wrapper = {
    failures: 0,
    get: (...args: unknown[]) => (ops.includes('get') ? fail() : (kv.get as (...a: unknown[]) => unknown)(...args)),
    put: (...args: unknown[]) => (ops.includes('put') ? fail() : (kv.put as (...a: unknown[]) => unknown)(...args)),
    delete: (...args: unknown[]) =>
      ops.includes('delete') ? fail() : (kv.delete as (...a: unknown[]) => unknown)(...args),
  };
  function fail() {
    wrapper.failures++;
    return Promise.reject(new Error('KV unavailable (injected)'));
  }
  return wrapper as unknown as KVNamespace & { failures: number };
}

/** The minimal server (no subscribe, so its reads are shared through KV). */
const minimal = {
  id: 'minimal',
  url: inject('minimalUrl'),
  transport: 'streamable-http',
  cacheScope: 'shared',
} as const;
const URI = 'mini://public-note';

/** Reads URI through fresh sessions (a new conversation) whose cache uses `kv`; returns the read and the scope's KV key. */
async function readWith(kv: KVNamespace, scope: string) {
  const id = await createConversation();
  return runInDurableObject(await conversationStub(id), async (_i, state) => {
    const { sessions, cache } = buildSessions(state.storage, [minimal], {}, scope, kv);
    const first = await sessions.readResource('minimal', URI, { reuseSince: Date.now() });
    const second = await sessions.readResource('minimal', URI, { reuseSince: Date.now() });
    await cache.settled();
    await sessions.release();
    return { first, second, key: await kvKey(`${scope}:shared`, { server: 'minimal', uri: URI }) };
  });
}

describe('KV outage: the cache falls back to the server, a read the server can answer never fails', () => {
  it('KV reads fail: answered by the server, then from memory; the copy still reaches KV', async () => {
    const scope = `kv-get-${crypto.randomUUID()}`;
    const kv = failing(['get']);
    const { first, second, key } = await readWith(kv, scope);
    expect(first).toMatchObject({ cache: 'miss', contents: [{ text: 'shared by everyone.' }] });
    expect(second.cache).toBe('memory');
    // One bulk lookup under the user's key and the tenant's: before the first read, nobody knows whether the copy is private.
    expect(kv.failures).toBe(1);
    expect(await env.RESOURCE_CACHE.get(key)).toContain('shared by everyone.');
  });

  it('KV writes fail: answered by the server; the next conversation misses KV and is answered too', async () => {
    const scope = `kv-put-${crypto.randomUUID()}`;
    const kv = failing(['put']);
    const { first, key } = await readWith(kv, scope);
    expect(first).toMatchObject({ cache: 'miss', contents: [{ text: 'shared by everyone.' }] });
    expect(kv.failures).toBe(1);
    expect(await env.RESOURCE_CACHE.get(key)).toBeNull();
    const again = await readWith(env.RESOURCE_CACHE, scope);
    expect(again.first).toMatchObject({ cache: 'miss', contents: [{ text: 'shared by everyone.' }] });
    expect((await readWith(env.RESOURCE_CACHE, scope)).first.cache).toBe('kv'); // healthy again: shared as usual
  });

  it('KV deletes fail on an invalidation: the old copy stays in KV but is never served again here', async () => {
    const id = await createConversation();
    await runInDurableObject(await conversationStub(id), async (_i, state) => {
      const kv = failing(['delete']);
      const scope = `kv-delete-${id}`;
      const ref = { server: 'demo', uri: 'task://guidelines' };
      const cache = new ResourceCache(
        kv,
        new InvalidationLog(state.storage.sql, TEST_CACHE_SETTINGS.CACHE_MAX_AGE_MS),
        { shared: scope, user: `${scope}:user` },
        TEST_CACHE_SETTINGS,
      );
      await cache.read(ref, plainPlan(), textLoad(ref.uri, 'old'));
      await cache.settled();
      const key = await kvKey(scope, ref);
      expect(await env.RESOURCE_CACHE.get(key)).toContain('old');

      cache.invalidate(ref); // resources/updated
      await cache.settled();
      expect(kv.failures).toBe(1);
      expect(await env.RESOURCE_CACHE.get(key)).toContain('old'); // the delete failed
      const after = await cache.read(ref, plainPlan(), textLoad(ref.uri, 'new'));
      expect(after.source).toBe('miss');
      expect(after.entry.contents[0]).toMatchObject({ text: 'new' });
    });
  });
});
