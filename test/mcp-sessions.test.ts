import { abortAllDurableObjects } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it } from 'vitest';
import { kvKey } from '../src/cache/keys';
import { api, catalog, conversationStub, createConversation, postJson, read, textOf } from './helpers/api';
import { connectDemoClient, waitFor } from './helpers/demo-client';
import { callTool, settle } from './helpers/conversation';

type Demo = Awaited<ReturnType<typeof connectDemoClient>>;
const editors: Demo[] = [];
/** A separate MCP session with the demo server: a colleague changing things. */
async function colleague() {
  const demo = await connectDemoClient('colleague');
  editors.push(demo);
  return demo.client;
}
afterEach(async () => {
  await Promise.all(editors.splice(0).map(({ transport }) => transport.terminateSession().catch(() => {})));
});

describe('catalog', () => {
  it('has every server with status, capabilities, instructions and all pages of every catalog', async () => {
    const id = await createConversation();
    const { demo } = await catalog(id);
    expect(demo!.status).toBe('connected');
    expect(demo!.serverInfo).toMatchObject({ name: 'acme-tasks-demo' });
    expect(demo!.instructions).toContain('task://guidelines');
    expect(demo!.capabilities).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      prompts: {},
      tools: {},
    });
    // The demo server pages resources 3 at a time: 4+ resources means the cursor was followed.
    expect(demo!.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining([
        'task://guidelines',
        'docs://test-matrix',
        'docs://quarterly-report.pdf',
        'assets://logo.png',
      ]),
    );
    expect(demo!.resources.find((r) => r.uri === 'docs://quarterly-report.pdf')).toMatchObject({
      mimeType: 'application/pdf',
      size: 2766,
    });
    // (skill://{+path}: the skills extension's template for its files; the model is never shown it, skills are loaded by name.)
    expect(demo!.resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'customer://{customerId}/profile',
      'docs://published/{slug}',
      'skill://{+path}',
    ]);
    expect(demo!.prompts.map((p) => p.name).sort()).toEqual(['plan_day', 'review_guidelines']);
    expect(demo!.tools.map((t) => t.name)).toContain('update_guidelines');
    for (const kind of ['tools', 'resources', 'resourceTemplates', 'prompts'] as const) {
      expect(demo!.fetchedAt[kind], kind).toBeGreaterThan(Date.now() - 60_000);
    }
  });

  it('answers 404 for a conversation that does not exist, without connecting anywhere', async () => {
    const response = await api(`/v1/conversations/${crypto.randomUUID()}/catalog`);
    expect(response.status).toBe(404);
  });
});

describe('resource cache', () => {
  it('reads miss → memory, then after a restart KV, with instructions and capabilities intact', async () => {
    const id = await createConversation();
    const first = await read(id, { server: 'demo', uri: 'docs://test-matrix' });
    expect(first.cache).toBe('miss');
    expect(textOf(first).length).toBeGreaterThan(11_000);
    const second = await read(id, { server: 'demo', uri: 'docs://test-matrix' });
    expect(second.cache).toBe('memory');
    expect(second.contents).toEqual(first.contents);

    await settle(await conversationStub(id)); // the KV write runs in the background
    await abortAllDurableObjects();

    const afterRestart = await read(id, { server: 'demo', uri: 'docs://test-matrix' });
    expect(afterRestart.cache).toBe('kv');
    expect(afterRestart.contents).toEqual(first.contents);
    const { demo } = await catalog(id);
    expect(demo!.instructions).toContain('task://guidelines');
    expect(demo!.capabilities?.resources).toMatchObject({ subscribe: true });
    expect(demo!.status).toBe('connected');
  });

  it('stores blobs losslessly, as base64 exactly as the server sent them, with their byte size', async () => {
    // (A document's blob is stored as its text instead: documents.test.ts.)
    const id = await createConversation();
    const direct = await (await colleague()).readResource({ uri: 'assets://logo.png' });
    const cached = await read(id, { server: 'demo', uri: 'assets://logo.png' });
    expect(cached.contents).toEqual([
      {
        uri: 'assets://logo.png',
        mimeType: 'image/png',
        blob: (direct.contents[0] as { blob: string }).blob,
        size: 291,
      },
    ]);
    expect('text' in cached.contents[0]!).toBe(false);
  });

  it('never serves the old text after resources/updated, not even from a KV copy that reappears, nor after a restart', async () => {
    const id = await createConversation();
    const before = await read(id, { server: 'demo', uri: 'task://guidelines' });
    await settle(await conversationStub(id));
    // The demo server marks its guidelines private (2026 hint): the copy is under alice's own key.
    const key = await kvKey('tenant:acme:user:alice', { server: 'demo', uri: 'task://guidelines' });
    const oldKvCopy = await env.RESOURCE_CACHE.get(key);
    expect(oldKvCopy).not.toBeNull();

    const newText = `Guidelines ${crypto.randomUUID()}: one owner per task.`;
    await (await colleague()).callTool({ name: 'update_guidelines', arguments: { text: newText } });

    const after = await waitFor(async () => {
      const r = await read(id, { server: 'demo', uri: 'task://guidelines' });
      return textOf(r) === newText ? r : undefined;
    }, 'the new guidelines');
    expect(after.cache).toBe('miss');
    expect(textOf(before)).not.toBe(newText);

    // KV is eventually consistent: an old copy may come back. This conversation must refuse it.
    await settle(await conversationStub(id));
    await env.RESOURCE_CACHE.put(key, oldKvCopy!);
    await abortAllDurableObjects();
    const afterRestart = await read(id, { server: 'demo', uri: 'task://guidelines' });
    expect(textOf(afterRestart)).toBe(newText);
    expect(afterRestart.cache).toBe('miss');
  });

  it('re-subscribes after a restart: an update after the restart still invalidates', async () => {
    const id = await createConversation();
    await read(id, { server: 'demo', uri: 'task://guidelines' });
    await settle(await conversationStub(id));
    await abortAllDurableObjects();
    expect((await read(id, { server: 'demo', uri: 'task://guidelines' })).cache).toBe('kv');

    const newText = `Guidelines after restart ${crypto.randomUUID()}`;
    await (await colleague()).callTool({ name: 'update_guidelines', arguments: { text: newText } });
    const fresh = await waitFor(async () => {
      const r = await read(id, { server: 'demo', uri: 'task://guidelines' });
      return textOf(r) === newText ? r : undefined;
    }, 'the update to reach the restarted conversation');
    expect(fresh.cache).toBe('miss');
  });

  it('KV keys separate scopes: a per-user read is not visible under the shared key', async () => {
    const shared = await kvKey('tenant:acme', { server: 'demo', uri: 'task://guidelines' });
    const user = await kvKey('tenant:acme:user:alice', { server: 'demo', uri: 'task://guidelines' });
    const otherServer = await kvKey('tenant:acme', { server: 'everything', uri: 'task://guidelines' });
    expect(new Set([shared, user, otherServer]).size).toBe(3);
    expect(shared).toMatch(/^res:v2:[0-9a-f]{64}$/);
  });
});

describe('notifications', () => {
  it('list_changed: a published document appears in the catalog', async () => {
    const id = await createConversation();
    await catalog(id); // connected, catalogs fetched
    const slug = `notes-${crypto.randomUUID().slice(0, 8)}`;
    await (await colleague()).callTool({
      name: 'publish_document',
      arguments: { slug, title: 'Planning notes', markdown: '# Notes\n\nShip on Thursday.' },
    });
    const listed = await waitFor(
      async () => (await catalog(id)).demo!.resources.find((r) => r.uri === `docs://published/${slug}`),
      'the new document in the catalog',
    );
    expect(listed).toMatchObject({ title: 'Planning notes', mimeType: 'text/markdown' });
    expect(textOf(await read(id, { uri: `docs://published/${slug}`, server: 'demo' }))).toContain('Ship on Thursday');
  });

  it('a notification inside the POST response stream (our own tool call) is handled too', async () => {
    const id = await createConversation();
    await read(id, { server: 'demo', uri: 'task://guidelines' });
    const stub = await conversationStub(id);
    const newText = `Changed by this conversation ${crypto.randomUUID()}`;
    const result = await callTool(stub, { server: 'demo', name: 'update_guidelines', arguments: { text: newText } });
    expect(result.ok).toBe(true);
    // The updated notification came before the tool result on the same stream: the next read is fresh.
    const next = await read(id, { server: 'demo', uri: 'task://guidelines' });
    expect(textOf(next)).toBe(newText);
    expect(next.cache).toBe('miss');
  });

  it('a burst of list_changed notifications leads to one refresh', async () => {
    const id = await createConversation();
    await catalog(id);
    const stub = await conversationStub(id);
    const { refreshes: before } = await settle(stub);
    const editor = await colleague();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        editor.callTool({
          name: 'publish_document',
          arguments: { slug: `burst-${crypto.randomUUID().slice(0, 6)}-${i}`, title: `Burst ${i}`, markdown: 'x' },
        }),
      ),
    );
    await waitFor(
      async () =>
        (await catalog(id)).demo!.resources.filter((r) => r.title?.startsWith('Burst ')).length >= 10
          ? true
          : undefined,
      'all ten documents',
    );
    const { refreshes } = await settle(stub);
    expect(refreshes - before).toBeGreaterThanOrEqual(1);
    expect(refreshes - before).toBeLessThanOrEqual(3); // 10 notifications, debounced
  });
});

describe('POST /v1/conversations/:id/resources/read', () => {
  it('finds the server from the URI when only one server lists it or matches its template', async () => {
    const id = await createConversation();
    expect((await read(id, { uri: 'docs://test-matrix' })).server).toBe('demo'); // listed by demo only
    expect((await read(id, { uri: 'customer://initech/profile' })).server).toBe('demo'); // matches demo's template

    // "everything", "faulty" and "legacy" are the same server under three ids: its URIs are ambiguous.
    const uri = (await catalog(id)).everything!.resources[0]!.uri;
    const ambiguous = await postJson(`/v1/conversations/${id}/resources/read`, { uri });
    expect(ambiguous.status).toBe(400);
    const error = await ambiguous.json<{ error: { code: string; message: string } }>();
    expect(error.error.code).toBe('ambiguous_uri');
    expect(error.error.message).toContain('belongs to several servers (everything, faulty, legacy)');
    expect((await read(id, { server: 'everything', uri })).server).toBe('everything');

    const unknown = await postJson(`/v1/conversations/${id}/resources/read`, { uri: 'nowhere://at/all' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json<{ error: { message: string } }>()).error.message).toContain('say which server');
  });

  it('reads a templated URI and reports an unknown one as 404 with the server message', async () => {
    const id = await createConversation();
    const profile = await read(id, { server: 'demo', uri: 'customer://acme/profile' });
    expect(JSON.parse(textOf(profile))).toMatchObject({ id: 'acme', plan: 'enterprise' });
    expect(profile.contents[0]!.mimeType).toBe('application/json');

    const missing = await postJson(`/v1/conversations/${id}/resources/read`, {
      server: 'demo',
      uri: 'customer://nobody/profile',
    });
    expect(missing.status).toBe(404);
    const body = await missing.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe('resource_not_found');
    expect(body.error.message).toContain('Unknown customer "nobody"');
  });

  it('validates the body and the server id', async () => {
    const id = await createConversation();
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'invalid_body'],
      [{ uri: 42 }, 400, 'invalid_body'],
      [{ uri: 'task://guidelines', url: 'http://evil.example/mcp' }, 400, 'invalid_body'],
      [{ server: 'nope', uri: 'task://guidelines' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of cases) {
      const response = await postJson(`/v1/conversations/${id}/resources/read`, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await response.json<{ error: { code: string } }>()).error.code).toBe(code);
    }
    const notJson = await api(`/v1/conversations/${id}/resources/read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
    const wrongType = await api(`/v1/conversations/${id}/resources/read`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"uri":"task://guidelines"}',
    });
    expect(wrongType.status).toBe(415);
    const huge = await postJson(`/v1/conversations/${id}/resources/read`, { uri: 'x'.repeat(300 * 1024) });
    expect(huge.status).toBe(413);
    expect((await huge.json<{ error: { code: string } }>()).error.code).toBe('payload_too_large');
  });
});
