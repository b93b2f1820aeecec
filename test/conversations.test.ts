import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { api } from './helpers/api';

describe('/v1/conversations', () => {
  it('creates a conversation with an unguessable id, reads it back, deletes it', async () => {
    const created = await api('/v1/conversations', { method: 'POST' });
    expect(created.status).toBe(201);
    const { id } = await created.json<{ id: string }>();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.headers.get('location')).toBe(`/v1/conversations/${id}`);

    const read = await api(`/v1/conversations/${id}`);
    expect(read.status).toBe(200);
    const body = await read.json<{ id: string; messages: unknown[]; pendingApprovals: unknown[]; createdAt: string }>();
    expect(body).toMatchObject({ id, messages: [], pendingApprovals: [] });
    expect(Date.parse(body.createdAt)).not.toBeNaN();

    const deleted = await api(`/v1/conversations/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await api(`/v1/conversations/${id}`)).status).toBe(404);
    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('gives two creations two different ids', async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(async () => (await (await api('/v1/conversations', { method: 'POST' })).json<{ id: string }>()).id),
    );
    expect(new Set(ids).size).toBe(3);
  });

  it('answers 404 for a well-formed id that was never created', async () => {
    const response = await api(`/v1/conversations/${crypto.randomUUID()}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('answers 400 for a malformed id, without touching storage', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await api('/v1/conversations/not-a-uuid', { method });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: {
          code: 'invalid_id',
          message: '"not-a-uuid" is not a conversation id (16-128 letters, digits, "-" or "_")',
        },
      });
    }
  });
});

describe('GET /v1/servers', () => {
  it('lists the configured servers with live status and capabilities, never their headers', async () => {
    const response = await api('/v1/servers');
    expect(response.status).toBe(200);
    const { servers } = await response.json<{ servers: Array<Record<string, unknown>> }>();
    expect(servers.map((s) => s.id)).toEqual(['demo', 'everything', 'faulty', 'legacy', 'minimal']);
    const demo = servers.find((s) => s.id === 'demo')!;
    expect(demo).toMatchObject({
      url: '/demo/mcp',
      transport: 'auto',
      status: 'connected',
      serverInfo: { name: 'acme-tasks-demo' },
      capabilities: { resources: { subscribe: true, listChanged: true } },
    });
    expect(servers.find((s) => s.id === 'everything')).toMatchObject({
      status: 'connected',
      capabilities: { prompts: {} },
    });
    expect(servers.every((s) => !('headers' in s))).toBe(true);
  });
});

describe('storage made by an earlier release', () => {
  it('a conversation row without the title column (before titles) is read, and takes a title', async () => {
    const { id } = await (await api('/v1/conversations', { method: 'POST' })).json<{ id: string }>();
    // The table as the first release made it: no `title`.
    await runInDurableObject(env.CONVERSATION.getByName(id), async (_instance, state) => {
      const row = state.storage.sql
        .exec<{ created_at: number; tenant: string; user_id: string }>(`SELECT * FROM conversation`)
        .one();
      state.storage.sql.exec(`DROP TABLE conversation`);
      state.storage.sql.exec(
        `CREATE TABLE conversation (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, tenant TEXT NOT NULL DEFAULT 'default', user_id TEXT NOT NULL DEFAULT 'anonymous', servers TEXT)`,
      );
      state.storage.sql.exec(
        `INSERT INTO conversation (id, created_at, tenant, user_id) VALUES (?, ?, ?, ?)`,
        id,
        row.created_at,
        row.tenant,
        row.user_id,
      );
    });
    await abortAllDurableObjects(); // the next instance opens the old table

    expect((await api(`/v1/conversations/${id}`)).status).toBe(200);
    const titled = await api(`/v1/conversations/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Kept' }),
    });
    expect(titled.status).toBe(200);
    expect(await (await api(`/v1/conversations/${id}`)).json()).toMatchObject({ id, title: 'Kept' });
  });
});
