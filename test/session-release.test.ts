import { env } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { SessionTable } from '../src/demo/sessions';
import { api, conversationStub, createConversation, read } from './helpers/api';

const demo = () => env.DEMO_MCP.getByName('demo');

/** The MCP session id a conversation holds with a server (what the server knows it by). */
async function sessionIdOf(id: string, server: string): Promise<string | undefined> {
  return runInDurableObject(await conversationStub(id), (instance) => {
    const sessions = (instance as unknown as { sessions?: { sessions: Map<string, { transport?: { sessionId?: string } }> } }).sessions;
    return sessions?.sessions.get(server)?.transport?.sessionId;
  });
}

describe('releasing a deleted conversation', () => {
  it('after DELETE the demo server holds no session for that conversation', async () => {
    const id = await createConversation();
    await read(id, { server: 'demo', uri: 'task://guidelines' });
    const sessionId = await sessionIdOf(id, 'demo');
    expect(sessionId).toBeTruthy();
    expect(await demo().hasSession(sessionId!)).toBe(true);

    expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await demo().hasSession(sessionId!)).toBe(false);
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
