import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { say, userMessage } from './helpers/turns';
import { turnIn } from './helpers/conversation';

// The "limited" tenant (test/infra/tenants.ts): 4 new conversations per user per minute, 2 holding live MCP sessions at once.
const userOf = () => ({
  authorization: 'Bearer test-key-limited',
  'x-end-user': `user-${crypto.randomUUID().slice(0, 8)}`,
});
const demo = () => env.DEMO_MCP.getByName('demo');
const read = (id: string, as: Record<string, string>) =>
  postJson(`/v1/conversations/${id}/resources/read`, { server: 'demo2025', uri: 'task://guidelines' }, as);
const live = (as: Record<string, string>) => env.LIVE_CONVERSATIONS.getByName(`limited:${as['x-end-user']}`).count();

describe('per-end-user limits on conversations', () => {
  it('creating: past the limit per minute, 429 with Retry-After; another user is not affected', async () => {
    const as = userOf();
    for (let i = 0; i < 4; i++) await createConversation(as);
    const refused = await api('/v1/conversations', { method: 'POST' }, as);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json<{ error: { code: string; message: string } }>()).error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringContaining('at most 4 per minute'),
    });
    expect((await api('/v1/conversations', { method: 'POST' }, userOf())).status).toBe(201);
  });

  it('live sessions: the least recently used conversation releases its sessions to make room, and gets them back on use', async () => {
    const as = userOf();
    const [a, b, c] = [await createConversation(as), await createConversation(as), await createConversation(as)];
    const sessionsBefore = await demo().sessionCount();
    expect((await read(a, as)).status).toBe(200);
    expect((await read(b, as)).status).toBe(200);
    expect(await demo().sessionCount()).toBe(sessionsBefore + 2);
    expect(await live(as)).toBe(2);

    // A third one connects: a (used least recently) ends its 2025 session with the server first.
    expect((await read(c, as)).status).toBe(200);
    expect(await live(as)).toBe(2);
    expect(await demo().sessionCount()).toBe(sessionsBefore + 2);

    // a is usable again (b makes room now), with a fresh session.
    const again = await read(a, as);
    expect(again.status).toBe(200);
    expect((await again.json<{ cache: string }>()).cache).toBe('miss'); // a new session: nothing cached before is trusted
    expect(await live(as)).toBe(2);
    expect(await demo().sessionCount()).toBe(sessionsBefore + 2);
  });

  it('a conversation counted as live that restarted, or was deleted since, makes room when asked', async () => {
    const { abortAllDurableObjects } = await import('cloudflare:test');
    const as = userOf();
    const [a, b, c] = [await createConversation(as), await createConversation(as), await createConversation(as)];
    expect((await read(a, as)).status).toBe(200);
    expect((await read(b, as)).status).toBe(200);
    await abortAllDurableObjects(); // a and b restart: their sessions are gone, their places in the count are not
    expect(await live(as)).toBe(2);
    expect((await api(`/v1/conversations/${a}`, { method: 'DELETE' }, as)).status).toBe(204);
    expect(await live(as)).toBe(1); // deleting leaves the count even without live sessions
    expect((await read(c, as)).status).toBe(200);
    const d = await createConversation(as);
    expect((await read(d, as)).status).toBe(200); // b, restarted and idle, made room
    expect(await live(as)).toBe(2);
  });

  it('live sessions: when every other conversation is in the middle of a turn, 429 with Retry-After', async () => {
    const as = userOf();
    const [a, b, c] = [await createConversation(as), await createConversation(as), await createConversation(as)];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A model that answers only when the test says so: the turns of a and b stay running meanwhile.
    const slow = () =>
      new MockLanguageModelV4({
        doStream: async () => {
          await gate;
          return {
            stream: new ReadableStream({
              start: (controller) => {
                for (const part of say('done')) controller.enqueue(part);
                controller.close();
              },
            }),
          };
        },
      });
    const streams = await Promise.all(
      [a, b].map(async (id) =>
        runInDurableObject(await conversationStub(id), async (instance) =>
          turnIn(instance, [userMessage('hold on')], { model: slow(), acceptsImages: false, spec: 'mock' }),
        ),
      ),
    );
    const refused = await read(c, as);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json<{ error: { code: string } }>()).error.code).toBe('too_many_live_conversations');

    release();
    for (const stream of streams) {
      const reader = stream.reader().getReader();
      while (!(await reader.read()).done);
    }
    expect((await read(c, as)).status).toBe(200);
  });
});
