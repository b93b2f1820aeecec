import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { SessionTable } from '../src/demo/session-table';
import { api, createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';

const demo = () => env.DEMO_MCP.getByName('demo');
const ERAS = { authorization: 'Bearer test-key-eras', 'x-end-user': 'alice' };
const stateful = async () =>
  (await fetch(`${inject('v2Url')}/__control/stateful/state`)).json<{
    listens: number;
    sessions: number;
    deletes: number;
  }>();

describe('releasing a deleted conversation', () => {
  it('after DELETE the servers hold nothing of it: 2026 listen streams closed, 2025 sessions ended', async () => {
    const id = await createConversation(ERAS);
    const [demoListens, demoSessions, v2] = [
      await demo().listenerCount(),
      await demo().sessionCount(),
      await stateful(),
    ];
    for (const server of ['demo', 'demo2025'])
      expect(
        (await postJson(`/v1/conversations/${id}/resources/read`, { server, uri: 'task://guidelines' }, ERAS)).status,
      ).toBe(200);
    for (const server of ['stateful', 'stateful2025'])
      expect(
        (await postJson(`/v1/conversations/${id}/resources/read`, { server, uri: 'v2://notes/public' }, ERAS)).status,
      ).toBe(200);
    expect(await demo().listenerCount()).toBe(demoListens + 1);
    expect(await demo().sessionCount()).toBe(demoSessions + 1);
    expect(await stateful()).toMatchObject({ listens: v2.listens + 1, sessions: v2.sessions + 1 });

    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' }, ERAS)).status).toBe(204);
    expect(await demo().sessionCount()).toBe(demoSessions);
    await waitFor(
      async () => ((await demo().listenerCount()) === demoListens ? true : undefined),
      'the demo listen stream to close',
    );
    const after = await stateful();
    expect(after.sessions).toBe(v2.sessions);
    expect(after.deletes).toBe(v2.deletes + 1);
    await waitFor(
      async () => ((await stateful()).listens === v2.listens ? true : undefined),
      'the v2 listen stream to close',
    );
  });
});

describe('demo server session table', () => {
  const table = (maxSessions: number, idleMs: number) => {
    const ended: string[] = [];
    return { ended, sessions: new SessionTable<string>({ maxSessions, idleMs }, (_, id) => void ended.push(id)) };
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('ends sessions idle past the limit when a new one opens, and keeps those in use', async () => {
    const { ended, sessions } = table(100, 1_000);
    sessions.add('a', 'a', 0);
    sessions.add('b', 'b', 0);
    sessions.get('b', 900); // b is still in use
    sessions.makeRoom(1_500);
    await settle();
    expect(ended).toEqual(['a']);
    expect(sessions.has('a')).toBe(false);
    expect(sessions.has('b')).toBe(true);
  });

  it('never holds more than the maximum: the least recently used session is ended first', async () => {
    const { ended, sessions } = table(2, 60_000);
    sessions.add('a', 'a', 0);
    sessions.add('b', 'b', 1);
    sessions.get('a', 2); // now b is the least recently used
    sessions.makeRoom(3);
    sessions.add('c', 'c', 3);
    await settle();
    expect(ended).toEqual(['b']);
    expect(sessions.size).toBe(2);
  });

  it('a session its client deleted is simply forgotten', async () => {
    const { ended, sessions } = table(2, 60_000);
    sessions.add('a', 'a', 0);
    sessions.delete('a');
    sessions.makeRoom(1);
    await settle();
    expect(sessions.size).toBe(0);
    expect(ended).toEqual([]);
  });
});
