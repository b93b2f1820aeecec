import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { InvalidationLog } from '../src/cache/invalidation-log';
import { kvKey } from '../src/cache/keys';
import { ResourceCache } from '../src/cache/resource-cache';
import type { CachedResource } from '../src/cache/types';
import { conversationStub, createConversation } from './helpers/api';
import { plainPlan, TEST_CACHE_SETTINGS, textLoad } from './helpers/cache';

// What a long-lived conversation's cache keeps per URI stays bounded, and every bound errs on the side of freshness;
// stamps of another Durable Object's clock are never ordered against this one's.

const TRACKED = 100;
const settings = { ...TEST_CACHE_SETTINGS, CACHE_TRACKED_URIS: TRACKED };

/** A conversation's cache with the bound above, over its own storage; KV keys under `name`. */
function boundedCache(sql: SqlStorage, name: string) {
  const log = new InvalidationLog(sql, settings.CACHE_MAX_AGE_MS, TRACKED);
  const scopes = { shared: `${name}:shared`, user: `${name}:user` };
  return { log, scopes, cache: new ResourceCache(env.RESOURCE_CACHE, log, scopes, settings) };
}

async function inConversation<T>(work: (sql: SqlStorage, id: string) => Promise<T>): Promise<T> {
  const id = await createConversation();
  return runInDurableObject(await conversationStub(id), (_instance, state) => work(state.storage.sql, id));
}

describe('per-URI records are bounded (CACHE_TRACKED_URIS)', () => {
  it('1,000 distinct invalidations (ten times the bound) keep at most the bound, in memory and in storage', async () => {
    await inConversation(async (sql, id) => {
      const { log, cache } = boundedCache(sql, `bounds:${id}`);
      for (let i = 0; i < 10 * TRACKED; i++) cache.invalidate({ server: 'demo', uri: `bulk://r/${i}` });
      await cache.settled();
      const internals = cache as unknown as { generations: { size: number }; kvScopes: { size: number } };
      expect(internals.generations.size).toBeLessThanOrEqual(TRACKED);
      expect((log as unknown as { times: Map<string, number> }).times.size).toBeLessThanOrEqual(TRACKED);
      expect(sql.exec<{ n: number }>(`SELECT count(*) AS n FROM cache_invalidations`).one().n).toBeLessThanOrEqual(
        TRACKED,
      );
      // A forgotten key still counts as invalidated (at the latest forgotten time): nothing older passes for fresh.
      expect(log.at('demo\u0000bulk://r/0')).toBeGreaterThan(0);
      // And the floor survives a restart of the object.
      expect(new InvalidationLog(sql, settings.CACHE_MAX_AGE_MS, TRACKED).at('demo\u0000bulk://r/0')).toBe(
        log.at('demo\u0000bulk://r/0'),
      );
    });
  });

  it('a load that raced with an invalidation is not stored, even when the key was forgotten meanwhile', async () => {
    await inConversation(async (sql, id) => {
      const { cache } = boundedCache(sql, `race:${id}`);
      const ref = { server: 'demo', uri: 'task://raced' };
      let release!: () => void;
      const slow = new Promise<void>((resolve) => (release = resolve));
      const before = cache.read(ref, plainPlan(), async () => {
        await slow;
        return textLoad(ref.uri, 'old')();
      });
      cache.invalidate(ref);
      // Enough other invalidations that the raced key's generation is forgotten, twice over.
      for (let i = 0; i < 3 * TRACKED; i++) cache.invalidate({ server: 'demo', uri: `other://${i}` });
      release();
      expect((await before).entry.contents[0]).toMatchObject({ text: 'old' });
      expect((await cache.read(ref, plainPlan(), textLoad(ref.uri, 'new'))).entry.contents[0]).toMatchObject({
        text: 'new',
      });
    });
  });
});

describe("another conversation's clock", () => {
  it('a KV copy another Durable Object stamped is used until this conversation invalidates the URI, then never ordered against it', async () => {
    await inConversation(async (sql, id) => {
      const { cache, scopes } = boundedCache(sql, `clock:${id}`);
      const ref = { server: 'demo', uri: 'task://shared-note' };
      // Written by another conversation whose clock runs 60 s ahead of ours.
      const ahead: CachedResource = {
        ...ref,
        contents: [{ uri: ref.uri, mimeType: 'text/plain', text: 'their copy', size: 10 }],
        fetchedAt: Date.now() + 60_000,
        bytes: 10,
        writer: 'another-conversation',
      };
      const put = async () => env.RESOURCE_CACHE.put(await kvKey(scopes.shared, ref), JSON.stringify(ahead));
      await put();
      const first = await cache.read(ref, plainPlan(), textLoad(ref.uri, 'from the server'));
      expect(first).toMatchObject({ source: 'kv', entry: { writer: 'another-conversation' } });

      // The server says it changed. The other conversation's copy is still in KV (eventually consistent), stamped "later".
      cache.invalidate(ref);
      await cache.settled();
      await put();
      const after = await cache.read(ref, plainPlan(), textLoad(ref.uri, 'from the server'));
      expect(after.source).toBe('miss');
      expect(after.entry.contents[0]).toMatchObject({ text: 'from the server' });
      expect(cache.isOwn(after.entry)).toBe(true);
    });
  });
});
