import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { InvalidationLog } from '../src/cache/invalidation-log';
import { kvKey } from '../src/cache/keys';
import { ResourceCache } from '../src/cache/resource-cache';
import { catalog, conversationStub, createConversation, postJson, read, textOf } from './helpers/api';
import { plainPlan, TEST_CACHE_SETTINGS, textLoad } from './helpers/cache';
import { callTool, settle } from './helpers/conversation';

describe('servers that lack capabilities', () => {
  it('a resources-only server works, and nothing it did not announce is ever called', async () => {
    const id = await createConversation();
    const { minimal } = await catalog(id);
    expect(minimal!.status).toBe('connected');
    expect(minimal!.capabilities).toEqual({ resources: {} });
    expect(minimal!.resources.map((r) => r.uri)).toEqual(['mini://public-note', 'mini://private-note']);
    expect(minimal!.tools).toEqual([]);
    expect(minimal!.prompts).toEqual([]);
    expect(minimal!.resourceTemplates).toEqual([]);
    // resources/templates/list belongs to the resources capability; this server answers "method not found": no templates.
    expect(Object.keys(minimal!.fetchedAt).sort()).toEqual(['resourceTemplates', 'resources']);

    expect(textOf(await read(id, { server: 'minimal', uri: 'mini://public-note' }))).toBe('shared by everyone.');
    const tool = await callTool(await conversationStub(id), { server: 'minimal', name: 'anything', arguments: {} });
    expect(tool).toMatchObject({ ok: false, error: { status: 400, code: 'unsupported' } });

    const methods = await (await fetch(inject('minimalUrl').replace('/mcp', '/__methods'))).json<string[]>();
    // A 2025 server: the probe (server/discover) was refused, then initialize.
    expect(methods).toContain('initialize');
    expect(methods).toContain('resources/list');
    for (const never of ['tools/list', 'tools/call', 'prompts/list', 'resources/subscribe', 'completion/complete']) {
      expect(methods, never).not.toContain(never);
    }
  });

  it('a server that cannot notify gets RESOURCE_TTL_MS; its entries are shared through KV within the tenant', async () => {
    const id = await createConversation();
    const first = await read(id, { server: 'minimal', uri: 'mini://public-note' });
    expect(first.freshness).toEqual({ notifications: false, ttlMs: 60_000 });
    await settle(await conversationStub(id));
    expect(
      await env.RESOURCE_CACHE.get(await kvKey('tenant:acme', { server: 'minimal', uri: 'mini://public-note' })),
    ).not.toBeNull();
  });

  it('honours cache hints a 2025 server sends: ttlMs, and a "private" copy only under its end user\'s key', async () => {
    const id = await createConversation();
    const first = await read(id, { server: 'minimal', uri: 'mini://private-note' });
    expect(first.hint).toEqual({ ttlMs: 60_000, cacheScope: 'private' });
    expect(first.freshness).toEqual({ notifications: false, ttlMs: 60_000 });
    expect((await read(id, { server: 'minimal', uri: 'mini://private-note' })).cache).toBe('memory');
    await settle(await conversationStub(id));
    const ref = { server: 'minimal', uri: 'mini://private-note' };
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:acme', ref))).toBeNull();
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:acme:user:alice', ref))).not.toBeNull();
    // The same user's next conversation gets it from KV; another user of the tenant never does.
    expect((await read(await createConversation(), ref)).cache).toBe('kv');
    const bob = { authorization: 'Bearer test-key-acme', 'x-end-user': 'bob' };
    const response = await postJson(`/v1/conversations/${await createConversation(bob)}/resources/read`, ref, bob);
    expect((await response.json<{ cache: string }>()).cache).toBe('miss');
  });
});

describe('legacy HTTP+SSE transport', () => {
  it('"auto" falls back to SSE for a server that refuses Streamable HTTP, with full catalog and reads', async () => {
    const id = await createConversation();
    const { legacy } = await catalog(id);
    expect(legacy!.status).toBe('connected');
    expect(legacy!.serverInfo?.name).toBe('mcp-servers/everything');
    expect(legacy!.resources).toHaveLength(7);
    expect(textOf(await read(id, { server: 'legacy', uri: 'demo://resource/dynamic/text/7' }))).toMatch(/^Resource 7/);
  });
});

describe('KV outage (injected)', () => {
  it('never fails a read the server can answer', async () => {
    const broken = {
      get: () => Promise.reject(new Error('KV unavailable')),
      put: () => Promise.reject(new Error('KV unavailable')),
      delete: () => Promise.reject(new Error('KV unavailable')),
    } as unknown as KVNamespace;
    const id = await createConversation();
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const cache = new ResourceCache(
        broken,
        new InvalidationLog(state.storage.sql, TEST_CACHE_SETTINGS.CACHE_MAX_AGE_MS),
        { shared: 'shared', user: 'user' },
        TEST_CACHE_SETTINGS,
      );
      const ref = { server: 'demo', uri: 'task://guidelines' };
      const load = textLoad(ref.uri, 'from the server');
      const first = await cache.read(ref, plainPlan(), load);
      expect(first.source).toBe('miss');
      expect(first.entry.contents[0]).toMatchObject({ text: 'from the server' });
      await cache.settled(); // the failed KV write is logged, not thrown
      expect((await cache.read(ref, plainPlan(), load)).source).toBe('memory');
      cache.invalidate(ref);
      await cache.settled();
      expect((await cache.read(ref, plainPlan(), load)).source).toBe('miss');
    });
  });
});

describe('invalidation vs a read in flight (injected timing)', () => {
  it('a read that starts after an invalidation never joins a load that started before it', async () => {
    const id = await createConversation();
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const cache = new ResourceCache(
        env.RESOURCE_CACHE,
        new InvalidationLog(state.storage.sql, TEST_CACHE_SETTINGS.CACHE_MAX_AGE_MS),
        { shared: `test:${id}`, user: `test:${id}:user` },
        TEST_CACHE_SETTINGS,
      );
      const ref = { server: 'demo', uri: 'task://race' };
      let releaseOld!: () => void;
      const oldLoad = new Promise<void>((resolve) => (releaseOld = resolve));

      const before = cache.read(ref, plainPlan(), async () => {
        await oldLoad; // the server answered before the update, but the answer is slow to arrive
        return textLoad(ref.uri, 'old')();
      });
      cache.invalidate(ref); // resources/updated arrives meanwhile
      const after = cache.read(ref, plainPlan(), textLoad(ref.uri, 'new'));
      releaseOld();
      expect((await after).entry.contents[0]).toMatchObject({ text: 'new' });
      expect((await before).entry.contents[0]).toMatchObject({ text: 'old' }); // its own caller started before the update
      expect((await cache.read(ref, plainPlan(), textLoad(ref.uri, 'never'))).entry.contents[0]).toMatchObject({
        text: 'new',
      });
    });
  });
});
