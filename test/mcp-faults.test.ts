import { inject } from 'vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { api, catalog, conversationStub, createConversation, postJson, read, textOf } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { callTool, settle } from './helpers/conversation';

// The "faulty" server is server-everything behind a fault proxy
// (test/infra/fault-proxy.ts) whose mode each test sets.
const control = inject('faultControlUrl');

async function setMode(mode: string) {
  const response = await fetch(`${control}/mode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode }),
  });
  if (response.status !== 204) throw new Error(`could not set fault mode ${mode}: ${response.status}`);
}
afterEach(() => setMode('pass'));

/** A URI the conversation has not cached yet, so the read must reach the server. */
let n = 100;
const freshUri = () => `demo://resource/dynamic/text/${n++}`;

async function failedRead(id: string, uri: string) {
  const response = await postJson(`/v1/conversations/${id}/resources/read`, { server: 'faulty', uri });
  return {
    status: response.status,
    error: (await response.json<{ error: { code: string; message: string } }>()).error,
  };
}

async function demoStillWorks(id: string) {
  expect(textOf(await read(id, { server: 'demo', uri: 'task://guidelines' }))).toBeTruthy();
}

describe('faults', () => {
  it('server down at connect: reported per server, the others work, it recovers', async () => {
    await setMode('down');
    const id = await createConversation();
    const servers = await catalog(id);
    expect(servers.faulty!.status).toBe('error');
    expect(servers.faulty!.error).toBeTruthy();
    expect(servers.demo!.status).toBe('connected');

    const failed = await failedRead(id, freshUri());
    expect(failed.status).toBe(502);
    expect(failed.error.code).toBe('upstream_error');
    expect(failed.error.message).toContain('MCP server "faulty" could not be connected to');
    await demoStillWorks(id);

    // Failed connects back off (1 s, then doubling): the next request does not wait for the server again.
    const state = async () => (await (await fetch(`${control}/state`)).json<{ requests: number }>()).requests;
    const before = await state();
    expect(
      (await postJson(`/v1/conversations/${id}/resources/read`, { server: 'faulty', uri: freshUri() })).status,
    ).toBe(502);
    expect(await state()).toBe(before); // not even tried

    await setMode('pass');
    await waitFor(
      async () => ((await catalog(id)).faulty!.status === 'connected' ? true : undefined),
      'the reconnection',
      10_000,
    );
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource \d+/);
  });

  it.each(['drop-once', 'drop-twice'])(
    'a connection the server just dropped (%s: a pooled keep-alive it closed as idle) fails no connect: it is opened again',
    async (mode) => {
      const state = async () =>
        await (await fetch(`${control}/state`)).json<{ requests: number; sessionsSeen: number }>();
      await setMode(mode);
      const id = await createConversation();
      const servers = await catalog(id);
      expect(servers.faulty!.status).toBe('connected');
      expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource \d+/);
      expect((await state()).requests).toBeGreaterThan(mode === 'drop-twice' ? 2 : 1); // the dropped ones, then the connect that went through
    },
  );

  it.each([
    ['drop-initialized', 'sent again on the same session: one session on the server', 1, 0],
    ['drop-initialized-twice', 'the connect fails, its session is ended, and the retried connect opens one', 2, 1],
  ] as const)('notifications/initialized on a dropped connection (%s): %s', async (mode, _, sessions, deletes) => {
    const state = async () => await (await fetch(`${control}/state`)).json<{ sessionsSeen: number; deletes: number }>();
    const before = await state();
    await setMode(mode);
    const id = await createConversation();
    expect((await catalog(id)).faulty!.status).toBe('connected');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource \d+/);
    const after = await state();
    expect(after.sessionsSeen - before.sessionsSeen).toBe(sessions);
    // No session is left behind on the server: the one the failed connect had is ended (DELETE).
    expect(after.deletes - before.deletes).toBe(deletes);
  });

  it('a 2025 GET stream the network drops: the copies go at once; the stream comes back on the same session, which covers again', async () => {
    const state = async () =>
      await (await fetch(`${control}/state`)).json<{ sessionsSeen: number; notificationStreams: number }>();
    const id = await createConversation();
    const uri = freshUri();
    expect((await read(id, { server: 'faulty', uri })).freshness.notifications).toBe(true);
    expect((await read(id, { server: 'faulty', uri })).cache).toBe('memory');
    await waitFor(async () => ((await state()).notificationStreams > 0 ? true : undefined), 'the GET stream');
    const sessionsBefore = (await state()).sessionsSeen;
    expect((await (await fetch(`${control}/cut-get`, { method: 'POST' })).json<{ cut: number }>()).cut).toBeGreaterThan(
      0,
    );
    // Notifications may have been missed: nothing cached from the server is served.
    await waitFor(
      async () => ((await read(id, { server: 'faulty', uri })).cache === 'miss' ? true : undefined),
      'the copy to be dropped',
    );
    // The SDK re-opens the stream on the session it had: no new session, and reads are covered again.
    await waitFor(
      async () => ((await state()).notificationStreams > 0 ? true : undefined),
      'the GET stream again',
      10_000,
    );
    await waitFor(
      async () => ((await read(id, { server: 'faulty', uri: freshUri() })).freshness.notifications ? true : undefined),
      'coverage again',
    );
    expect((await state()).sessionsSeen).toBe(sessionsBefore);
  });

  it('server killed mid-conversation: a clear 502, cached reads still answered, recovery after', async () => {
    const id = await createConversation();
    const cachedUri = freshUri();
    await read(id, { server: 'faulty', uri: cachedUri });
    await setMode('down');

    const failed = await failedRead(id, freshUri());
    expect(failed.status).toBe(502);
    expect(failed.error.message).toContain('MCP server "faulty"');
    expect((await read(id, { server: 'faulty', uri: cachedUri })).cache).toBe('memory');
    await demoStillWorks(id);

    await setMode('pass');
    expect((await read(id, { server: 'faulty', uri: freshUri() })).cache).toBe('miss');
  });

  it.each([
    ['http500', 502, 'HTTP 500'],
    ['malformed', 502, 'MCP server "faulty"'],
  ])('%s: a clear error naming the server, no crash', async (mode, status, text) => {
    const id = await createConversation();
    await catalog(id);
    await setMode(mode);
    const failed = await failedRead(id, freshUri());
    expect(failed.status).toBe(status);
    expect(failed.error.message).toContain(text);
    await demoStillWorks(id);
    await setMode('pass');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });

  it('invalid JSON-RPC in the response: the request fails within the timeout, naming the server', async () => {
    const id = await createConversation();
    await catalog(id);
    await setMode('invalid-jsonrpc');
    const failed = await failedRead(id, freshUri());
    expect([502, 504]).toContain(failed.status);
    expect(failed.error.message).toContain('MCP server "faulty"');
    await setMode('pass');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });

  it('server hangs: 504 after MCP_REQUEST_TIMEOUT_MS, naming the server', async () => {
    const id = await createConversation();
    await catalog(id);
    await setMode('hang');
    const failed = await failedRead(id, freshUri());
    expect(failed.status).toBe(504);
    expect(failed.error.code).toBe('upstream_timeout');
    expect(failed.error.message).toContain('MCP server "faulty" did not answer in time');
    await setMode('pass');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });

  it('session expired: re-initialised transparently, once', async () => {
    const id = await createConversation();
    const connectedAt = (await catalog(id)).faulty!.connectedAt!;
    await setMode('expire-session'); // every existing session is now unknown to the server: 404
    const result = await read(id, { server: 'faulty', uri: freshUri() });
    expect(textOf(result)).toMatch(/^Resource/);
    const after = (await catalog(id)).faulty!;
    expect(after.status).toBe('connected');
    expect(after.connectedAt!).toBeGreaterThan(connectedAt);
    expect(after.instructions).toContain('Everything Server');
  });

  it.each([
    ['unknown-id', 'a response for an id we never sent arrives first'],
    ['duplicate', 'every response arrives twice, the copy with a different result'],
  ])('%s (%s): ignored; the real answer is used, once', async (mode) => {
    const id = await createConversation();
    await catalog(id);
    await setMode(mode);
    const uri = freshUri();
    const result = await read(id, { server: 'faulty', uri });
    expect(result.cache).toBe('miss');
    expect(result.contents).toHaveLength(1);
    expect(textOf(result)).toMatch(/^Resource \d+/);
    expect(JSON.stringify(result)).not.toMatch(/stray:|for nobody|duplicate/);
    // A tool call too: one result, the first; the session is still usable after.
    const stub = await conversationStub(id);
    const echoed = await callTool(stub, { server: 'faulty', name: 'echo', arguments: { message: 'once' } });
    expect(echoed.ok).toBe(true);
    expect(JSON.stringify(echoed)).toContain('Echo: once');
    await setMode('pass');
    expect((await read(id, { server: 'faulty', uri })).cache).toBe('memory');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });

  it('SSE stream cut mid-response: the read either completes or fails clearly, and the next one works', async () => {
    const id = await createConversation();
    await catalog(id);
    await setMode('cut-stream');
    const response = await postJson(`/v1/conversations/${id}/resources/read`, { server: 'faulty', uri: freshUri() });
    if (response.status !== 200) {
      expect([502, 504]).toContain(response.status);
      expect((await response.json<{ error: { message: string } }>()).error.message).toContain('MCP server "faulty"');
    }
    await setMode('pass');
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });
});

describe('credentials and session hygiene', () => {
  const TOKEN = 'tok_live_9f8e7d6c5b4a3210';

  it('a server that echoes our bearer token: the error names the server, the token is masked everywhere', async () => {
    const id = await createConversation();
    await catalog(id);
    await setMode('echo-auth');
    const failed = await failedRead(id, freshUri());
    expect(failed.status).toBe(502);
    expect(failed.error.message).toContain('MCP server "faulty"');
    expect(failed.error.message).toContain('[redacted]');
    expect(failed.error.message).not.toContain(TOKEN);

    // Not in the catalog's stored error, and not anywhere in the conversation's storage.
    await setMode('echo-auth');
    const { runInDurableObject } = await import('cloudflare:test');
    const text = JSON.stringify(await catalog(id));
    expect(text).not.toContain(TOKEN);
    const stored = await runInDurableObject(await conversationStub(id), (_instance, state) => {
      const rows: unknown[] = [];
      for (const { name } of state.storage.sql.exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'`,
      )) {
        rows.push(...state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray());
      }
      return JSON.stringify(rows);
    });
    expect(stored.length).toBeGreaterThan(100);
    expect(stored).not.toContain(TOKEN);
  });

  it('deleting a conversation ends its MCP sessions with DELETE', async () => {
    const id = await createConversation();
    expect((await catalog(id)).faulty!.status).toBe('connected');
    const before = (await (await fetch(`${control}/state`)).json<{ deletes: number }>()).deletes;
    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204);
    const after = (await (await fetch(`${control}/state`)).json<{ deletes: number }>()).deletes;
    expect(after).toBe(before + 1);
  });
});

describe('notification storm (10,000 in one burst on the notification stream)', () => {
  type ProxyState = { methods: Record<string, number>; notificationStreams: number };
  const proxyState = async () => (await fetch(`${control}/state`)).json<ProxyState>();
  const notify = (method: string, count: number, params?: object) =>
    fetch(`${control}/notify`, { method: 'POST', body: JSON.stringify({ method, count, params }) });

  /** A conversation connected to "faulty" whose notification stream is the only one the proxy has open. */
  async function listeningConversation() {
    const { abortAllDurableObjects } = await import('cloudflare:test');
    await abortAllDurableObjects(); // other conversations' streams would get the storm too
    await waitFor(
      async () => ((await proxyState()).notificationStreams === 0 ? true : undefined),
      'older streams to close',
    );
    const id = await createConversation();
    await catalog(id);
    await waitFor(
      async () => ((await proxyState()).notificationStreams === 1 ? true : undefined),
      'the notification stream',
    );
    return id;
  }

  /**
   * Notifications are handled in stream order, so once the single
   * tools/list_changed sent after the storm has caused its tools/list, the
   * whole storm has been handled.
   */
  async function drained(id: string) {
    const before = (await proxyState()).methods['tools/list'] ?? 0;
    await notify('notifications/tools/list_changed', 1);
    await waitFor(
      async () => (((await proxyState()).methods['tools/list'] ?? 0) > before ? true : undefined),
      'the storm to be handled',
      20_000,
    );
    return settle(await conversationStub(id));
  }

  it('resources/list_changed ×10,000: a handful of refreshes, the conversation stays usable', async () => {
    const id = await listeningConversation();
    const stub = await conversationStub(id);
    const { refreshes: before } = await settle(stub);
    const listsBefore = (await proxyState()).methods['resources/list'] ?? 0;

    await notify('notifications/resources/list_changed', 10_000);
    const { refreshes } = await drained(id);

    const lists = ((await proxyState()).methods['resources/list'] ?? 0) - listsBefore;
    // `refreshes` also counts drained()'s tools/list_changed (alone, or merged into the last one).
    expect(refreshes - before).toBeGreaterThanOrEqual(1);
    expect(refreshes - before).toBeLessThanOrEqual(4);
    expect(lists).toBeGreaterThanOrEqual(1);
    expect(lists).toBeLessThanOrEqual(3);
    expect((await catalog(id)).faulty!.resources.length).toBeGreaterThan(0);
    expect(textOf(await read(id, { server: 'faulty', uri: freshUri() }))).toMatch(/^Resource/);
  });

  it('resources/updated ×10,000 for one URI: the cached copy is dropped, one re-read, no error', async () => {
    const id = await listeningConversation();
    const uri = freshUri();
    expect((await read(id, { server: 'faulty', uri })).cache).toBe('miss');
    expect((await read(id, { server: 'faulty', uri })).cache).toBe('memory');
    const readsBefore = (await proxyState()).methods['resources/read'] ?? 0;

    await notify('notifications/resources/updated', 10_000, { uri });
    await drained(id);

    const again = await read(id, { server: 'faulty', uri });
    expect(again.cache).not.toBe('memory');
    expect(textOf(again)).toMatch(/^Resource/);
    expect((await read(id, { server: 'faulty', uri })).cache).toBe('memory');
    // The storm itself read nothing: only our own re-read reached the server.
    expect(((await proxyState()).methods['resources/read'] ?? 0) - readsBefore).toBeLessThanOrEqual(1);
  });
});

describe('server refuses connections (nothing listens on its port)', () => {
  it('502 naming the server and the cause; other servers unaffected', async () => {
    const { runInDurableObject } = await import('cloudflare:test');
    const { buildSessions } = await import('./helpers/sessions');
    const id = await createConversation();
    const refused = {
      id: 'refused',
      url: 'http://127.0.0.1:1/mcp',
      transport: 'streamable-http',
      headers: {},
      autoApprove: [],
      modelPrompts: true,
      pin: [],
      cacheScope: 'shared',
    } as never;
    const demo = {
      id: 'demo',
      url: '/demo/mcp',
      transport: 'auto',
      headers: {},
      autoApprove: [],
      modelPrompts: true,
      pin: [],
      cacheScope: 'shared',
    } as never;
    const outcome = await runInDurableObject(await conversationStub(id), async (_i, state) => {
      const { sessions } = buildSessions(state.storage, [refused, demo]);
      const states = (await sessions.catalog()).map((s) => [s.id, s.status, s.error]);
      const error = await sessions
        .readResource('refused', 'x://y', { reuseSince: Date.now() })
        .catch((e: { status: number; code: string; message: string }) => ({
          status: e.status,
          code: e.code,
          message: e.message,
        }));
      const guidelines = await sessions.readResource('demo', 'task://guidelines', { reuseSince: Date.now() });
      await sessions.release();
      return { states, error, demoRead: guidelines.contents.length };
    });
    expect(outcome.states).toContainEqual(['demo', 'connected', undefined]);
    expect(outcome.states.find((s) => s[0] === 'refused')?.[1]).toBe('error');
    expect(outcome.error).toMatchObject({ status: 502, code: 'upstream_error' });
    expect((outcome.error as { message: string }).message).toBe(
      'MCP server "refused" could not be connected to: Network connection lost.',
    );
    expect(outcome.demoRead).toBe(1);
  });
});
