import { runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { kvKey } from '../src/cache/keys';
import type { ServerState } from '../src/mcp/catalog/catalog';
import type { ResourceRead } from '../src/mcp/sessions';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { callTool, settle } from './helpers/conversation';

const ALICE = { authorization: 'Bearer test-key-eras', 'x-end-user': 'alice' };
const BOB = { authorization: 'Bearer test-key-eras', 'x-end-user': 'bob' };
const v2 = inject('v2Url');

type Mode = 'strict' | 'fallback' | 'stateful' | 'naive';
const control = (mode: Mode, action: string, body?: object) =>
  fetch(`${v2}/__control/${mode}/${action}`, {
    method: body || action !== 'state' ? 'POST' : 'GET',
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
const serverState = async (mode: Mode) =>
  (await control(mode, 'state')).json<{
    listens: number;
    sessions: number;
    deletes: number;
    methods: Record<string, number>;
  }>();

async function catalogOf(id: string, as = ALICE): Promise<Record<string, ServerState>> {
  const response = await api(`/v1/conversations/${id}/catalog`, {}, as);
  expect(response.status).toBe(200);
  return Object.fromEntries((await response.json<{ servers: ServerState[] }>()).servers.map((s) => [s.id, s]));
}

async function readAs(id: string, server: string, uri: string, as = ALICE): Promise<ResourceRead> {
  const response = await postJson(`/v1/conversations/${id}/resources/read`, { server, uri }, as);
  if (response.status !== 200) throw new Error(`read failed: ${response.status} ${await response.text()}`);
  return response.json<ResourceRead>();
}

const textOf = (read: ResourceRead) => (read.contents[0] as { text: string }).text;

describe('protocol eras: what each server speaks and how it can notify', () => {
  it('2026 first, 2025 for older servers; the catalog and /v1/servers name the version', async () => {
    const id = await createConversation(ALICE);
    const servers = await catalogOf(id);
    for (const server of ['strict', 'fallback', 'stateful', 'demo'])
      expect(servers[server]!.protocolVersion, server).toBe('2026-07-28');
    for (const server of ['stateful2025', 'fallback2025', 'naive', 'everything', 'demo2025'])
      expect(servers[server]!.protocolVersion, server).toBe('2025-11-25');
    const probe = await (await api('/v1/servers', {}, ALICE)).json<{
      servers: Array<{ id: string; protocolVersion?: string; status: string }>;
    }>();
    expect(probe.servers.find((s) => s.id === 'strict')).toMatchObject({
      status: 'connected',
      protocolVersion: '2026-07-28',
    });
    expect(probe.servers.find((s) => s.id === 'naive')).toMatchObject({
      status: 'connected',
      protocolVersion: '2025-11-25',
    });
  });

  it('a 2026-only server asked for 2025 says which versions it supports (-32022), and the others are unaffected', async () => {
    const id = await createConversation(ALICE);
    const { strict2025, strict } = await catalogOf(id);
    expect(strict2025).toMatchObject({ status: 'error' });
    expect(strict2025!.error).toBe(
      'the server does not support MCP protocol version 2025-11-25; it supports: 2026-07-28',
    );
    expect(strict!.status).toBe('connected');
    const response = await postJson(
      `/v1/conversations/${id}/resources/read`,
      { server: 'strict2025', uri: 'v2://notes/public' },
      ALICE,
    );
    expect(response.status).toBe(502);
    expect((await response.json<{ error: { message: string } }>()).error.message).toContain('it supports: 2026-07-28');
  });

  it.each([
    ['strict', true],
    ['fallback', true],
    ['stateful', true],
    ['stateful2025', true],
    ['fallback2025', false],
    ['naive', false],
  ] as const)('%s: a read is covered by notifications: %s', async (server, covered) => {
    const id = await createConversation(ALICE);
    const read = await readAs(id, server, 'v2://notes/public');
    expect(read.freshness.notifications).toBe(covered);
  });
});

/** How a test changes a resource behind each notifying server's back: the v2 servers' control, or a demo colleague's tool call. */
async function changeOn(server: string, uri: string, text: string) {
  const modes: Record<string, Mode> = {
    strict: 'strict',
    fallback: 'fallback',
    stateful: 'stateful',
    stateful2025: 'stateful',
  };
  if (modes[server]) return void (await control(modes[server], 'edit', { uri, text }));
  const { connectDemoClient } = await import('./helpers/demo-client');
  const { client } = await connectDemoClient('colleague');
  await client.callTool({ name: 'update_guidelines', arguments: { text } });
  await client.close();
}

/** The servers that notify (2026 listen streams, 2025 sessions with a GET stream), each with a resource its hint keeps fresh for a while. */
const NOTIFYING = [
  ['strict', 'v2://notes/public'],
  ['fallback', 'v2://notes/public'],
  ['stateful', 'v2://notes/public'],
  ['stateful2025', 'v2://notes/public'],
  ['demo', 'task://guidelines'],
  ['demo2025', 'task://guidelines'],
] as const;

describe('freshness: the first read after a change returns the new text, in this conversation and another', () => {
  it.each(NOTIFYING)('%s (notified)', async (server, uri) => {
    // Only a notification can make these fresh sooner than their hints (60 s, 30 s), or ever (2025: covered, no TTL).
    const [a, b] = [await createConversation(ALICE), await createConversation(ALICE)];
    const before = await readAs(a, server, uri);
    await settle(await conversationStub(a)); // its KV copy is written
    await readAs(b, server, uri); // b follows the URI too (from a's KV copy or the server)
    expect((await readAs(a, server, uri)).cache).toBe('memory');

    const text = `edited ${crypto.randomUUID()}`;
    await changeOn(server, uri, text);
    for (const id of [a, b]) {
      const fresh = await waitFor(
        async () => {
          const read = await readAs(id, server, uri);
          return textOf(read) === text ? read : undefined;
        },
        `${server}: the new text in conversation ${id === a ? 'a' : 'b'}`,
      );
      expect(fresh.cache).not.toBe('memory');
      // Once it has been seen, it stays seen: no later read in this conversation goes back to the old text.
      expect(textOf(await readAs(id, server, uri))).toBe(text);
    }
    expect(textOf(before)).not.toBe(text);
  });

  it.each([
    ['naive', 'naive'],
    ['fallback2025', 'fallback'],
  ] as const)('%s (cannot notify): memory and KV copies alike expire after the TTL', async (server, mode) => {
    const uri = 'v2://notes/public';
    const [a, b] = [await createConversation(ALICE), await createConversation(ALICE)];
    await readAs(a, server, uri);
    await settle(await conversationStub(a));
    expect((await readAs(b, server, uri)).cache).toBe('kv');
    const text = `edited ${crypto.randomUUID()}`;
    await control(mode, 'edit', { uri, text });
    const read = await readAs(a, server, uri);
    expect(read.freshness).toEqual({ notifications: false, ttlMs: 3_000 });
    await new Promise((resolve) => setTimeout(resolve, 3_100));
    for (const id of [a, b]) expect(textOf(await readAs(id, server, uri))).toBe(text);
  });

  it('a server that says a resource is stale at once (ttlMs 0): every API read and every turn reads it again', async () => {
    const id = await createConversation(ALICE);
    const first = await readAs(id, 'strict', 'v2://notes/volatile');
    expect(first.hint).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(first.freshness.ttlMs).toBe(0);
    await control('strict', 'edit', { uri: 'v2://notes/volatile', text: 'volatile, version 2' });
    // No notification needed: the next read (another request) does not reuse the copy.
    const second = await readAs(id, 'strict', 'v2://notes/volatile');
    expect(second.cache).toBe('miss');
    expect(textOf(second)).toBe('volatile, version 2');
  });

  it.each(['strict', 'fallback', 'stateful'] as const)(
    '%s: ttlMs expiry — a copy past its hint is read again',
    async (server) => {
      const id = await createConversation(ALICE);
      const first = await readAs(id, server, 'v2://notes/short');
      expect(first.hint).toEqual({ ttlMs: 1_500, cacheScope: 'public' });
      expect((await readAs(id, server, 'v2://notes/short')).cache).toBe('memory');
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      expect((await readAs(id, server, 'v2://notes/short')).cache).toBe('miss');
    },
  );
});

describe('list_changed: a resource added on the server appears in the catalog', () => {
  it.each(['demo', 'demo2025'])('%s (a colleague publishes a document)', async (server) => {
    const id = await createConversation(ALICE);
    await catalogOf(id);
    const slug = `notes-${crypto.randomUUID().slice(0, 8)}`;
    const { connectDemoClient } = await import('./helpers/demo-client');
    const { client } = await connectDemoClient('colleague');
    await client.callTool({ name: 'publish_document', arguments: { slug, title: 'Notes', markdown: '# Notes' } });
    await client.close();
    await waitFor(
      async () => (await catalogOf(id))[server]!.resources.some((r) => r.uri === `docs://published/${slug}`),
      `${server}: the new document in the catalog`,
    );
  });

  it.each([
    ['strict', 'strict'],
    ['fallback', 'fallback'],
    ['stateful', 'stateful'],
    ['stateful2025', 'stateful'],
  ] as const)('%s', async (server, mode) => {
    const id = await createConversation(ALICE);
    await catalogOf(id);
    const name = `added-${crypto.randomUUID().slice(0, 8)}`;
    await control(mode, 'add', { name, text: 'a new note' });
    await waitFor(
      async () => (await catalogOf(id))[server]!.resources.some((r) => r.uri === `v2://notes/${name}`),
      `${server}: the new note in the catalog`,
    );
  });
});

describe('cacheScope: private copies stay with their end user, public ones are shared within the tenant', () => {
  it.each(['strict', 'stateful'] as const)('%s', async (server) => {
    const alice = await createConversation(ALICE);
    await readAs(alice, server, 'v2://notes/private');
    await readAs(alice, server, 'v2://notes/public');
    await settle(await conversationStub(alice));
    const ref = (uri: string) => ({ server, uri });
    expect(await env.RESOURCE_CACHE.get(await kvKey('tenant:eras', ref('v2://notes/private')))).toBeNull();
    expect(
      await env.RESOURCE_CACHE.get(await kvKey('tenant:eras:user:alice', ref('v2://notes/private'))),
    ).not.toBeNull();

    const bob = await createConversation(BOB);
    expect((await readAs(bob, server, 'v2://notes/private', BOB)).cache).toBe('miss');
    expect((await readAs(bob, server, 'v2://notes/public', BOB)).cache).toBe('kv');
    expect((await readAs(await createConversation(ALICE), server, 'v2://notes/private')).cache).toBe('kv');
  });
});

describe('a lost notification channel', () => {
  it.each(['strict', 'stateful'] as const)(
    "%s: listen stream cut by the server → that server's cached copies are dropped; it listens again",
    async (mode) => {
      const id = await createConversation(ALICE);
      await readAs(id, mode, 'v2://notes/public');
      await readAs(id, 'demo', 'docs://test-matrix');
      expect((await readAs(id, mode, 'v2://notes/public')).cache).toBe('memory');
      await control(mode, 'cut-listens');
      await waitFor(
        async () => ((await readAs(id, mode, 'v2://notes/public')).cache === 'miss' ? true : undefined),
        'the copy to be dropped',
      );
      // Other servers' copies are untouched, and the channel is back.
      expect((await readAs(id, 'demo', 'docs://test-matrix')).cache).toBe('memory');
      await waitFor(async () => ((await serverState(mode)).listens > 0 ? true : undefined), 'a new listen stream');
      expect((await readAs(id, mode, 'v2://notes/public')).freshness.notifications).toBe(true);
    },
  );

  it('a server restart ends listen streams gracefully: copies dropped, catalogs listed again', async () => {
    const id = await createConversation(ALICE);
    await readAs(id, 'fallback', 'v2://notes/public');
    const listsBefore = (await serverState('fallback')).methods['resources/list'] ?? 0;
    await control('fallback', 'restart');
    await waitFor(
      async () => ((await readAs(id, 'fallback', 'v2://notes/public')).cache === 'miss' ? true : undefined),
      'the copy to be dropped',
    );
    await waitFor(
      async () => (((await serverState('fallback')).methods['resources/list'] ?? 0) > listsBefore ? true : undefined),
      'the catalog listed again',
    );
  });
});

describe('input the server asks for (2026 multi-round-trip requests; see elicitation.test.ts for answering)', () => {
  it('a server that keeps asking whatever it is told: a clear 502 after a bounded number of rounds, no hang', async () => {
    const id = await createConversation(ALICE);
    const result = await callTool(await conversationStub(id), { server: 'strict', name: 'confirm_raw', arguments: {} });
    expect(result).toMatchObject({ ok: false, error: { status: 502, code: 'input_required' } });
    expect((result as { error: { message: string } }).error.message).toContain(
      'MCP server "strict" kept asking for input after it was answered',
    );
  });
});

describe('sessions are released when a conversation goes idle', () => {
  it('after MCP_IDLE_MS the servers see the listen stream closed and the 2025 session ended; the next use opens fresh ones', async () => {
    const id = await createConversation(ALICE);
    await readAs(id, 'stateful', 'v2://notes/public');
    await readAs(id, 'stateful2025', 'v2://notes/public');
    const before = await serverState('stateful');
    expect(before.listens).toBeGreaterThan(0);
    const stub = await conversationStub(id);
    // The idle check is the Durable Object's alarm: due MCP_IDLE_MS after the first use, for the current lease.
    const { lease, stored, due } = await runInDurableObject(stub, async (instance, state) => {
      const live = instance.parts.live!;
      return {
        lease: live.usage.lease,
        stored: state.storage.kv.get('idle-check-lease'),
        due: ((await state.storage.getAlarm()) ?? 0) - live.usage.lastUsedAt,
      };
    });
    expect(stored).toBe(lease);
    expect(due).toBeGreaterThan(590_000); // MCP_IDLE_MS (10 min) after it was last used, give or take the clock
    await runInDurableObject(stub, async (instance) => {
      // As if ten minutes had passed: the alarm fires and finds the conversation idle.
      (instance.parts.live as unknown as { lastUsedAt: number }).lastUsedAt -= 11 * 60_000;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = await serverState('stateful');
    expect(after.listens).toBe(before.listens - 1);
    expect(after.deletes).toBe(before.deletes + 1);
    expect(after.sessions).toBe(before.sessions - 1);

    const again = await readAs(id, 'stateful2025', 'v2://notes/public');
    expect(again.cache).toBe('miss'); // a new session: what was cached before is not trusted
    expect((await serverState('stateful')).sessions).toBe(after.sessions + 1);
  });
});

describe('era verdicts kept across restarts', () => {
  it('a restarted conversation connects with what it learnt: no server/discover probe again, in either era', async () => {
    const { abortAllDurableObjects } = await import('cloudflare:test');
    const id = await createConversation(ALICE);
    await readAs(id, 'strict', 'v2://notes/public');
    await readAs(id, 'naive', 'v2://notes/public');
    const probes = async () => [
      (await serverState('strict')).methods['server/discover'] ?? 0,
      (await serverState('naive')).methods['server/discover'] ?? 0,
    ];
    const before = await probes();
    await abortAllDurableObjects();
    expect((await readAs(id, 'strict', 'v2://notes/public')).contents).toHaveLength(1);
    expect((await readAs(id, 'naive', 'v2://notes/public')).contents).toHaveLength(1);
    expect(await probes()).toEqual(before);
  });

  it('a stored verdict that turned wrong (the server was replaced) is dropped and the server asked again', async () => {
    const { buildSessions } = await import('./helpers/sessions');
    const { ServerStateStore } = await import('../src/mcp/catalog/state-store');
    const id = await createConversation(ALICE);
    const outcome = await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const store = new ServerStateStore(state.storage.sql);
      // "moved" was a 2026 server, now a 2025 one answers at its URL; "upgraded" the other way round.
      const { sessions: probe } = buildSessions(state.storage, [
        { id: 'probe', url: `${v2}/strict`, transport: 'streamable-http' },
      ]);
      await probe.ensureServer('probe');
      store.saveVerdict('moved', store.verdict('probe'));
      store.saveVerdict('upgraded', { kind: 'legacy', at: Date.now() });
      await probe.release();
      const { sessions } = buildSessions(state.storage, [
        { id: 'moved', url: `${v2}/naive`, transport: 'streamable-http' },
        { id: 'upgraded', url: `${v2}/strict`, transport: 'streamable-http' },
      ]);
      const moved = await sessions.readResource('moved', 'v2://notes/public', { reuseSince: Date.now() });
      const upgraded = await sessions.readResource('upgraded', 'v2://notes/public', { reuseSince: Date.now() });
      const states = await sessions.catalog();
      await sessions.release();
      return {
        moved: moved.contents.length,
        upgraded: upgraded.contents.length,
        versions: states.map((s) => s.protocolVersion),
        // Read from storage as it is now (a store keeps what it last read or wrote; the sessions wrote through their own).
        verdicts: ((stored) => [stored.verdict('moved')?.kind, stored.verdict('upgraded')?.kind])(
          new ServerStateStore(state.storage.sql),
        ),
      };
    });
    expect(outcome).toEqual({
      moved: 1,
      upgraded: 1,
      versions: ['2025-11-25', '2026-07-28'],
      verdicts: ['legacy', 'modern'],
    });
  });
});

describe('a server whose notifications go elsewhere', () => {
  it('a covered copy is still never older than CACHE_MAX_AGE_MS, in memory as in KV', async () => {
    const { buildSessions } = await import('./helpers/sessions');
    const id = await createConversation(ALICE);
    const texts = await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const { sessions } = buildSessions(
        state.storage,
        [{ id: 'gateway', url: `${v2}/stateful`, transport: 'streamable-http', protocol: '2025-11-25' }],
        {
          CACHE_MAX_AGE_MS: 1_500,
        },
      );
      const read = () => sessions.readResource('gateway', 'v2://notes/public', { reuseSince: Date.now() });
      const first = await read();
      // The change is made where this session does not hear of it.
      const text = `changed behind our back ${crypto.randomUUID()}`;
      await control('stateful', 'edit', { uri: 'v2://notes/public', text, silent: true });
      const soon = await read();
      await new Promise((resolve) => setTimeout(resolve, 1_600));
      const later = await read();
      await sessions.release();
      return {
        covered: first.freshness.notifications,
        soon: [soon.cache, (soon.contents[0] as { text: string }).text === text],
        later: [later.cache, (later.contents[0] as { text: string }).text === text],
      };
    });
    expect(texts).toEqual({ covered: true, soon: ['memory', false], later: ['miss', true] });
  });
});

describe('catalogs shared by the conversations of a tenant (KV)', () => {
  it('a new conversation takes the lists another one made; after a list_changed the next one gets the new list', async () => {
    const first = await createConversation(ALICE);
    const listed = (await catalogOf(first)).stateful!.resources.map((r) => r.uri);
    const lists = async () => (await serverState('stateful')).methods['resources/list'] ?? 0;
    const before = await lists();

    const second = await createConversation(ALICE);
    expect((await catalogOf(second)).stateful!.resources.map((r) => r.uri)).toEqual(listed);
    expect(await lists()).toBe(before); // taken from the shared copy: the server was not asked

    const name = `shared-${crypto.randomUUID().slice(0, 8)}`;
    await control('stateful', 'add', { name, text: 'a new note' });
    // The conversations that listen hear list_changed: the shared copy goes, and one of them writes the new list.
    await waitFor(
      async () =>
        (await catalogOf(first)).stateful!.resources.some((r) => r.uri === `v2://notes/${name}`) ? true : undefined,
      'the new note listed',
    );
    const third = await createConversation(ALICE);
    expect((await catalogOf(third)).stateful!.resources.map((r) => r.uri)).toContain(`v2://notes/${name}`);
  });
});
