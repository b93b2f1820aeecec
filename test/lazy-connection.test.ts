import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { UIMessageChunk } from 'ai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { settle, turnIn } from './helpers/conversation';
import { callTools, say, scriptedModel, userMessage } from './helpers/turns';

/*
 * A turn connects to a server only when it needs it (ServerLink.available):
 * a tool call, a read the cache cannot serve, a completion. Its catalog —
 * and the server's header — come from the copies another conversation of the
 * tenant shared, while the freshness contract serves them without a channel
 * (by their ttlMs, or CACHE_MAX_AGE_MS). The "lazy" tenant (test/infra/tenants.ts):
 * `notes` (SDK v2, 2026-07-28) and `notes2025` (the same kind of server, its
 * 2025-11-25 sessions), both test/infra/v2-servers.ts.
 */

const ALICE = { authorization: 'Bearer test-key-lazy', 'x-end-user': 'alice' };
const v2 = inject('v2Url');
type Mode = 'strict' | 'stateful';
const control = (mode: Mode, action: string, body?: object) =>
  fetch(`${v2}/__control/${mode}/${action}`, {
    method: body || action !== 'state' ? 'POST' : 'GET',
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
const serverState = async (mode: Mode) =>
  (await control(mode, 'state')).json<{ listens: number; sessions: number; methods: Record<string, number> }>();
const live = () => env.LIVE_CONVERSATIONS.getByName('lazy:alice').count();

/** A conversation that has connected to both servers, listed them, and read `uris` (so their copies are in KV). */
async function warmedBy(uris: Array<[server: string, uri: string]>): Promise<string> {
  const id = await createConversation(ALICE);
  expect((await api(`/v1/conversations/${id}/catalog`, {}, ALICE)).status).toBe(200);
  for (const [server, uri] of uris)
    expect((await postJson(`/v1/conversations/${id}/resources/read`, { server, uri }, ALICE)).status).toBe(200);
  await settle(await conversationStub(id));
  await runInDurableObject(await conversationStub(id), async (instance) => {
    await instance.parts.live?.current.sessions?.idle();
  });
  return id;
}

/** One turn whose model reads `uri` on `server`, then answers: what the read said of its source, and what the model was offered. */
async function readingTurn(id: string, server: string, uri: string) {
  const model = scriptedModel((_call, index) =>
    index === 0 ? callTools(['read_resource', { uri, server }]) : say('done'),
  );
  const chunks = await runInDurableObject(await conversationStub(id), async (instance) => {
    const stream = await turnIn(instance, [userMessage(`read ${uri}`)], { model, acceptsImages: false, spec: 'mock' });
    const all: UIMessageChunk[] = [];
    const reader = stream.reader().getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value);
    return all;
  });
  const output = chunks.find((c) => c.type === 'tool-output-available') as
    | { output?: { cache?: string; text?: string } }
    | undefined;
  const error = chunks.find((c) => c.type === 'tool-output-error' || c.type === 'error');
  expect(error, JSON.stringify(error)).toBeUndefined();
  return {
    cache: output?.output?.cache,
    text: output?.output?.text ?? '',
    tools: (model.doStreamCalls[0]!.tools ?? []).map((t) => t.name),
  };
}

const connections = async (mode: Mode) => {
  const { methods, sessions } = await serverState(mode);
  return {
    discover: methods['server/discover'] ?? 0,
    listen: methods['subscriptions/listen'] ?? 0,
    read: methods['resources/read'] ?? 0,
    sessions,
  };
};

beforeEach(async () => {
  await control('strict', 'reset');
  await control('stateful', 'reset');
});

describe('a turn connects to a server only when it needs it', () => {
  it('2026: header and catalog from the shared copies, the read from KV: nothing reaches the server, the conversation is not counted live', async () => {
    await warmedBy([['notes', 'v2://notes/public']]);
    await control('strict', 'reset');
    const liveBefore = await live();

    const id = await createConversation(ALICE);
    const turn = await readingTurn(id, 'notes', 'v2://notes/public');
    expect(turn.cache).toBe('kv');
    expect(turn.text).toContain('<resource server="notes" uri="v2://notes/public"');
    // The server's tools are offered all the same: its catalog is current, it is just not connected.
    expect(turn.tools).toContain('notes__edit');
    expect(await connections('strict')).toMatchObject({ discover: 0, listen: 0, read: 0 });
    expect(await live()).toBe(liveBefore);
  });

  it('a new conversation asks KV once per server for its header and every list, and once for a read (bulk reads)', async () => {
    await warmedBy([['notes', 'v2://notes/public']]);
    const id = await createConversation(ALICE);
    const reads: unknown[] = [];
    // The binding every Durable Object of this isolate uses: its get() counted for the length of one turn.
    const kv = Object.getPrototypeOf(env.RESOURCE_CACHE) as { get: (...args: unknown[]) => unknown };
    const get = kv.get;
    kv.get = function (this: unknown, key: unknown, ...rest: unknown[]) {
      reads.push(key);
      return get.call(this, key, ...rest);
    };
    try {
      expect((await readingTurn(id, 'notes', 'v2://notes/public')).cache).toBe('kv');
    } finally {
      kv.get = get;
    }
    // Two servers of the tenant: one bulk read each (header, tools, resources, templates, prompts, skills; the user's key
    // and the tenant's), then one for the read (both key spaces). Single reads would have been 2 × 12 + 2.
    expect(reads.map((key) => (Array.isArray(key) ? key.length : 1))).toEqual([12, 12, 2]);
  });

  it('2025: the same, with no session opened', async () => {
    await warmedBy([['notes2025', 'v2://notes/public']]);
    const sessionsBefore = (await serverState('stateful')).sessions;
    await control('stateful', 'reset');

    const id = await createConversation(ALICE);
    const turn = await readingTurn(id, 'notes2025', 'v2://notes/public');
    expect(turn.cache).toBe('kv');
    expect((await serverState('stateful')).sessions).toBe(sessionsBefore);
    expect((await serverState('stateful')).methods).toEqual({});
  });

  it('a read no copy serves connects first, watches the URI, and is current after resources/updated from then on', async () => {
    await warmedBy([]);
    await control('strict', 'reset');
    const id = await createConversation(ALICE);
    // Nobody read the private note as alice in this tenant yet: a miss.
    const first = await readingTurn(id, 'notes', 'v2://notes/private');
    expect(first.cache).toBe('miss');
    const after = await connections('strict');
    expect(after.listen).toBeGreaterThan(0); // the URI was watched before the read
    expect(after.read).toBe(1);

    const text = `private note, edited ${crypto.randomUUID()}`;
    await control('strict', 'edit', { uri: 'v2://notes/private', text });
    const { waitFor } = await import('./helpers/demo-client');
    // Its hint keeps it for 60 s; the notification makes the next turn read it again.
    await waitFor(
      async () => ((await readingTurn(id, 'notes', 'v2://notes/private')).text.includes(text) ? true : undefined),
      'the edited note',
    );
  });

  it('the worst case, stated in docs/ARCHITECTURE.md: an unconnected conversation serves a copy until its ttlMs, then reads the server', async () => {
    // v2://notes/short is fresh for 1.5 s (public).
    await warmedBy([['notes', 'v2://notes/short']]);
    const id = await createConversation(ALICE);
    const served = await readingTurn(id, 'notes', 'v2://notes/short');
    expect(served.cache).toBe('kv');
    const text = `short note, edited ${crypto.randomUUID()}`;
    // A change the server tells nobody of: only the ttl can make a copy go.
    await control('strict', 'edit', { uri: 'v2://notes/short', text, silent: true });
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const after = await readingTurn(id, 'notes', 'v2://notes/short');
    expect(after.cache).toBe('miss');
    expect(after.text).toContain(text);
  });

  it('the API connects as before: GET …/catalog shows the server connected and counts the conversation live', async () => {
    await warmedBy([]);
    const liveBefore = await live();
    const id = await createConversation(ALICE);
    const { servers } = await (await api(`/v1/conversations/${id}/catalog`, {}, ALICE)).json<{
      servers: Array<{ id: string; status: string }>;
    }>();
    expect(servers.map((s) => s.status)).toEqual(['connected', 'connected']);
    expect(await live()).toBe(liveBefore + 1);
  });
});
