import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ACME_ALICE, api, conversationStub, createConversation } from './helpers/api';
import { waitFor } from './helpers/demo-client';

type Frame = {
  type: string;
  id?: string;
  body?: string;
  done?: boolean;
  error?: boolean;
  messages?: Array<{ role: string }>;
};

async function openChat(id: string) {
  const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
    headers: { Upgrade: 'websocket', ...ACME_ALICE },
  });
  expect(response.status).toBe(101);
  const socket = response.webSocket!;
  socket.accept();
  const frames: Frame[] = [];
  socket.addEventListener('message', (event) => {
    try {
      frames.push(JSON.parse(String(event.data)) as Frame);
    } catch {
      // not JSON: not ours
    }
  });
  return { socket, frames };
}

const chatRequest = (id: string, text: string) =>
  JSON.stringify({
    type: 'cf_agent_use_chat_request',
    id,
    init: {
      method: 'POST',
      body: JSON.stringify({ messages: [{ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text }] }] }),
    },
  });

describe('GET /v1/conversations/:id/ws (agents chat protocol)', () => {
  it('sends the transcript on connect and streams a turn as cf_agent_use_chat_response frames', async () => {
    const id = await createConversation();
    const { socket, frames } = await openChat(id);
    await waitFor(() => frames.find((f) => f.type === 'cf_agent_chat_messages'), 'the transcript');

    socket.send(chatRequest('req-1', 'What do the team guidelines say about estimates?'));
    await waitFor(
      () => frames.find((f) => f.type === 'cf_agent_use_chat_response' && f.id === 'req-1' && f.done),
      'the end of the turn',
      10_000,
    );
    const chunks = frames
      .filter((f) => f.type === 'cf_agent_use_chat_response' && f.id === 'req-1' && !f.done)
      .map((f) => JSON.parse(f.body!) as { type: string; toolName?: string; delta?: string });
    expect(chunks.find((c) => c.type === 'tool-input-available')?.toolName).toBe('read_resource');
    expect(chunks.map((c) => c.delta ?? '').join('')).toContain('Estimate in hours');
    socket.close();

    // The same history as over HTTP.
    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{ messages: Array<{ role: string }> }>();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('answers a bad request with an error frame and stays usable; clear empties the history', async () => {
    const id = await createConversation();
    const { socket, frames } = await openChat(id);
    socket.send(
      JSON.stringify({
        type: 'cf_agent_use_chat_request',
        id: 'bad',
        init: { method: 'POST', body: '{"messages":[]}' },
      }),
    );
    const error = await waitFor(() => frames.find((f) => f.id === 'bad' && f.done), 'the error frame');
    expect(error).toMatchObject({ error: true });
    socket.send(chatRequest('good', 'What do the team guidelines say about owners?'));
    await waitFor(() => frames.find((f) => f.id === 'good' && f.done), 'the turn', 10_000);

    socket.send(JSON.stringify({ type: 'cf_agent_chat_clear' }));
    await waitFor(
      async () =>
        (await (await api(`/v1/conversations/${id}`)).json<{ messages: unknown[] }>()).messages.length === 0
          ? true
          : undefined,
      'an empty history',
    );
    socket.close();
  });

  it('refuses a plain GET and an unknown conversation', async () => {
    const id = await createConversation();
    expect((await api(`/v1/conversations/${id}/ws`)).status).toBe(400);
    const unknown = await exports.default.fetch(`http://localhost/v1/conversations/${crypto.randomUUID()}/ws`, {
      headers: { Upgrade: 'websocket', ...ACME_ALICE },
    });
    expect(unknown.status).toBe(404);
  });
});

describe('framework headers stop at our edge', () => {
  // The agents framework trusts some request headers (x-cf-agents-subagent-url routes a socket to a child
  // "facet" the header names; x-agents-lifecycle-props sets the Agent's props): a client must not set them.
  it.each([['conversation'], ['demo-mcp-server'], ['rate-limiter']])(
    'x-cf-agents-subagent-url naming %s reaches the conversation itself; no frame carries a stack',
    async (childClass) => {
      const id = await createConversation();
      const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
        headers: {
          Upgrade: 'websocket',
          ...ACME_ALICE,
          'x-cf-agents-subagent-url': `http://localhost/v1/conversations/${id}/ws/sub/${childClass}/intruder`,
          'x-agents-lifecycle-props': btoa(JSON.stringify({ admin: true })),
        },
      });
      expect(response.status).toBe(101);
      const socket = response.webSocket!;
      const raw: string[] = [];
      let closed: { code: number; reason: string } | undefined;
      socket.addEventListener('message', (event) => raw.push(String(event.data)));
      socket.addEventListener('close', (event) => (closed = { code: event.code, reason: event.reason }));
      socket.accept();
      const transcript = await waitFor(
        () => raw.map((r) => JSON.parse(r) as Frame).find((f) => f.type === 'cf_agent_chat_messages'),
        'the transcript of this conversation',
        5_000,
      );
      expect(transcript).toBeDefined();
      expect(closed).toBeUndefined();
      for (const frame of raw) expect(frame).not.toMatch(/stack|\.js:\d|at \w+ \(/);
      socket.close();
    },
  );
});

describe('the conversation Durable Object itself', () => {
  it('ignores x-cf-agents-subagent-url even on a request that did not come through the route', async () => {
    const id = await createConversation();
    const stub = await conversationStub(id);
    const response = await stub.fetch(
      new Request(`http://localhost/v1/conversations/${id}/ws`, {
        headers: { Upgrade: 'websocket', 'x-cf-agents-subagent-url': `http://localhost/sub/demo-mcp-server/intruder` },
      }),
    );
    expect(response.status).toBe(101);
    const socket = response.webSocket!;
    const raw: string[] = [];
    socket.addEventListener('message', (event) => raw.push(String(event.data)));
    socket.accept();
    await waitFor(
      () => raw.map((r) => JSON.parse(r) as Frame).find((f) => f.type === 'cf_agent_chat_messages'),
      'the transcript',
      5_000,
    );
    for (const frame of raw) expect(frame).not.toMatch(/stack|\.js:\d/);
    socket.close();
  });
});
