// What a turn does for a user beyond one answer: stop (down to the MCP
// server's own request), large results that never make a row or a frame too
// big, threads, and turn limits that do not trap anyone. The real chat
// clients are in test/browser/chat-clients.test.ts; these are the server-side
// facts behind them, in workerd with real Durable Objects and MCP servers.
import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import type { UIMessage } from 'ai';
import { describe, expect, inject, it } from 'vitest';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import {
  approveWith,
  callTools,
  say,
  scriptedModel,
  sseChunks,
  stalledModel,
  toolResults,
  turnUntilApproval,
  untilText,
  userMessage,
} from './helpers/turns';
import { BIG_TEXT_CHARS } from './infra/hostile-sizes';
import { turnIn, withModel } from './helpers/conversation';

const HOSTILE = { authorization: 'Bearer test-key-hostile', 'x-end-user': 'mallory' };
const snapshot = async (id: string, as: Record<string, string>) =>
  (await api(`/v1/conversations/${id}`, {}, as)).json<{ messages: UIMessage[] }>();

/** Starts a turn with a scripted model inside the conversation's Durable Object; the turn goes on after this returns. */
async function startTurn(id: string, text: string, model: ReturnType<typeof scriptedModel>) {
  await runInDurableObject(await conversationStub(id), async (instance) => {
    await turnIn(instance, [userMessage(text)], { model, acceptsImages: false, spec: 'mock' });
  });
}

describe('stop', () => {
  const ERAS = { authorization: 'Bearer test-key-eras', 'x-end-user': 'stopper' };
  const v2 = new URL(inject('v2Url')).origin;
  const jobs = async (mode: string) =>
    (await (await fetch(`${v2}/__control/${mode}/state`)).json<{ jobs: string[] }>()).jobs;

  // 2025-11-25: notifications/cancelled on the session; 2026-07-28: the request's own stream is aborted.
  for (const [server, mode] of [
    ['stateful2025', 'stateful'],
    ['strict', 'strict'],
  ] as const) {
    it(`DELETE …/stream cancels the MCP tool call on the server (${server}), keeps the partial answer settled, frees the conversation at once`, async () => {
      const id = await createConversation(ERAS);
      const before = (await jobs(mode)).length;
      const model = scriptedModel((_call, index) =>
        index === 0 ? callTools([`${server}__slow_job`, {}]) : say('should not run'),
      );
      await startTurn(id, 'run the slow job', model);
      await waitFor(async () => (await jobs(mode)).slice(before).includes('started'), 'the job to start', 10_000);

      const stop = await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, ERAS);
      expect(stop.status).toBe(200);
      expect(await stop.json()).toEqual({ stopped: true });
      // The server's own request was cancelled, not left running for 20 s.
      await waitFor(
        async () => (await jobs(mode)).slice(before).includes('cancelled'),
        'the server to see the cancellation',
        10_000,
      );

      await waitFor(
        async () => (await snapshot(id, ERAS)).messages.at(-1)?.role === 'assistant',
        'the partial answer to be saved',
        10_000,
      );
      const answer = (await snapshot(id, ERAS)).messages.at(-1)!;
      expect(answer.metadata).toMatchObject({ stopped: true, finishReason: 'stopped' });
      expect(answer.parts.find((p) => 'toolCallId' in p)).toMatchObject({
        state: 'output-error',
        errorText: expect.stringContaining('Stopped by the user'),
      });
      expect(model.doStreamCalls).toHaveLength(1); // the model was not asked again after the stop

      // Nothing runs now: a second stop says so, and the next message is answered at once (no 409).
      expect(await (await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, ERAS)).json()).toEqual({
        stopped: false,
      });
      const next = await postJson(`/v1/conversations/${id}/messages`, { text: 'hello' }, ERAS);
      expect(next.status).toBe(200);
      await next.text();
    });
  }
});

describe('a 5 MB tool result', () => {
  it('reaches the model window by window; no stored row, no message and no frame carries it whole', async () => {
    const id = await createConversation(HOSTILE);
    const model = scriptedModel((call, index) => {
      if (index === 0) return callTools(['hostile__big_report', {}]);
      if (index === 1) {
        const first = toolResults(call.prompt)[0]!.text;
        const next = JSON.parse(first.match(/call read_resource with (\{.*?\}) for the next part/)![1]!) as {
          uri: string;
          offset: number;
        };
        return callTools(['read_resource', next]);
      }
      return say('The report is long; I read the first two parts.');
    });
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [userMessage('summarize the activity report')], {
        model,
        acceptsImages: false,
        spec: 'mock',
      });
      const reader = live.reader().getReader();
      while (!(await reader.read()).done);
    });
    const [first] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(first!.text.length).toBeLessThan(30_000);
    expect(first!.text).toContain(`of ${BIG_TEXT_CHARS} of this result`);
    // The first window ends with a line (window-end.ts) and the second goes on from exactly there.
    const firstEnd = Number(/of this result[^{]*\{[^}]*"offset":(\d+)/.exec(first!.text)![1]);
    expect(firstEnd).toBeGreaterThan(23_900);
    expect(firstEnd).toBeLessThanOrEqual(24_000);
    const [, second] = toolResults(model.doStreamCalls[2]!.prompt);
    expect(second!.text).toMatch(new RegExp(`part="characters ${firstEnd}-\\d+ of ${BIG_TEXT_CHARS}"`));

    const { messages } = await snapshot(id, HOSTILE);
    expect(JSON.stringify(messages).length).toBeLessThan(200_000);
    await runInDurableObject(await conversationStub(id), (_instance, state) => {
      const largest = state.storage.sql
        .exec<{ bytes: number }>(
          `SELECT max(length(CAST(text AS BLOB))) AS bytes FROM large_results UNION ALL SELECT max(length(CAST(message AS BLOB))) FROM messages`,
        )
        .toArray();
      for (const row of largest) expect(row.bytes).toBeLessThanOrEqual(2_000_000);
      const kept = state.storage.sql
        .exec<{ chars: number }>(`SELECT sum(length(text)) AS chars FROM large_results`)
        .one();
      expect(kept.chars).toBe(BIG_TEXT_CHARS); // kept whole, nothing cut
    });

    // The WebSocket transcript on connect is one bounded frame.
    const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', ...HOSTILE },
    });
    const socket = response.webSocket!;
    socket.accept();
    const frame = await new Promise<string>((resolve) =>
      socket.addEventListener('message', (e) => resolve(String(e.data)), { once: true }),
    );
    socket.close();
    // The first frame is the transcript (no Agent identity or state frames: the chat hook needs none).
    expect(frame.length).toBeLessThan(1024 * 1024);
    expect(JSON.parse(frame)).toMatchObject({ type: 'cf_agent_chat_messages', connect: true });
  });

  it('goes with the message that owns it: on regenerate, on a failed turn, on a client removing it', async () => {
    const id = await createConversation(HOSTILE);
    const stub = await conversationStub(id);
    const kept = () =>
      runInDurableObject(stub, (_instance, state) =>
        state.storage.sql
          .exec<{ uri: string }>(`SELECT DISTINCT uri FROM large_results`)
          .toArray()
          .map((r) => r.uri),
      );
    const drain = async (live: { reader(): ReadableStream } | undefined) => {
      const reader = live!.reader().getReader();
      while (!(await reader.read()).done);
    };
    const reporting = () =>
      scriptedModel((_call, index) => (index === 0 ? callTools(['hostile__big_report', {}]) : say('read it')));
    await runInDurableObject(stub, async (instance) =>
      drain(
        await turnIn(instance, [userMessage('the report')], { model: reporting(), acceptsImages: false, spec: 'mock' }),
      ),
    );
    expect(await kept()).toHaveLength(1);

    // Regenerated without the tool: the old answer's result goes with it.
    const plain = scriptedModel(() => say('no report this time'));
    await runInDurableObject(stub, async (instance) =>
      drain(
        await withModel(instance, { model: plain, acceptsImages: false, spec: 'mock' }, {}, () =>
          instance.parts.requests.run({ kind: 'regenerate' }),
        ),
      ),
    );
    expect((await snapshot(id, HOSTILE)).messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(await kept()).toEqual([]);

    // A turn that calls the tool, then fails: nothing of it is saved, and neither is its result.
    const failing = scriptedModel((_call, index) => {
      if (index === 0) return callTools(['hostile__big_report', {}]);
      throw new Error('the model went away');
    });
    await runInDurableObject(stub, async (instance) =>
      drain(await turnIn(instance, [userMessage('again')], { model: failing, acceptsImages: false, spec: 'mock' })),
    );
    expect((await snapshot(id, HOSTILE)).messages).toHaveLength(2);
    expect(await kept()).toEqual([]);

    // Kept by a saved answer, then removed by the client (setMessages over the socket: only the first two kept).
    await runInDurableObject(stub, async (instance) =>
      drain(
        await turnIn(instance, [userMessage('once more')], { model: reporting(), acceptsImages: false, spec: 'mock' }),
      ),
    );
    expect(await kept()).toHaveLength(1);
    const first = (await snapshot(id, HOSTILE)).messages.slice(0, 2);
    const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', ...HOSTILE },
    });
    const socket = response.webSocket!;
    socket.accept();
    socket.send(JSON.stringify({ type: 'cf_agent_chat_messages', messages: first }));
    await waitFor(async () => ((await snapshot(id, HOSTILE)).messages.length === 2 ? true : undefined), 'the removal');
    socket.close();
    expect(await kept()).toEqual([]);
  });

  it('a message longer than a row is stored in pieces and read back whole', async () => {
    const id = await createConversation(HOSTILE);
    const huge: UIMessage = {
      id: 'huge-1',
      role: 'assistant',
      parts: [{ type: 'text', text: `${'é'.repeat(1_200_000)}🙂${'x'.repeat(900_000)}` }],
    };
    await runInDurableObject(await conversationStub(id), async (instance, state) => {
      instance.parts.history.save([huge]);
      const rows = state.storage.sql
        .exec<{ bytes: number }>(
          `SELECT length(CAST(message AS BLOB)) AS bytes FROM messages UNION ALL SELECT length(CAST(text AS BLOB)) FROM message_overflow`,
        )
        .toArray();
      expect(rows.length).toBeGreaterThan(3);
      for (const row of rows) expect(row.bytes).toBeLessThanOrEqual(2_000_000);
    });
    expect((await snapshot(id, HOSTILE)).messages).toEqual([huge]);
    // Older messages page over HTTP.
    const page = await (await api(`/v1/conversations/${id}/messages?limit=1`, {}, HOSTILE)).json<{
      messages: UIMessage[];
      hasMore: boolean;
    }>();
    expect(page).toEqual({ messages: [huge], hasMore: false });
    expect((await api(`/v1/conversations/${id}/messages?before=nope`, {}, HOSTILE)).status).toBe(404);
  });
});

describe('threads', () => {
  const DAVE = { authorization: 'Bearer test-key-acme', 'x-end-user': `dave-${crypto.randomUUID().slice(0, 8)}` };
  type Listing = {
    conversations: Array<{ id: string; title: string; createdAt: string; lastActivityAt: string }>;
    nextCursor: string | null;
  };
  const list = async (query = '', as = DAVE) => (await api(`/v1/conversations${query}`, {}, as)).json<Listing>();

  it("lists the caller's conversations newest activity first, titled by their first words, paginated; titles can be set", async () => {
    const ids: string[] = [];
    for (const text of [
      'What do the team guidelines say about estimates and other planning matters today?',
      'hello',
      'third one',
    ]) {
      const id = await createConversation(DAVE);
      ids.push(id);
      await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text }, DAVE));
    }
    // The first conversation is used again: it moves to the top.
    await sseChunks(await postJson(`/v1/conversations/${ids[0]}/messages`, { text: 'and more' }, DAVE));
    await waitFor(
      async () => (await list()).conversations[0]?.id === ids[0],
      'the listing to follow the activity',
      5_000,
    );

    const all = await list();
    expect(all.conversations.map((c) => c.id)).toEqual([ids[0], ids[2], ids[1]]);
    expect(all.conversations[0]!.title).toBe('What do the team guidelines say about estimates…');
    expect(all.conversations[2]!.title).toBe('hello');
    expect(all.nextCursor).toBeNull();

    const page1 = await list('?limit=2');
    expect(page1.conversations.map((c) => c.id)).toEqual([ids[0], ids[2]]);
    const page2 = await list(`?limit=2&cursor=${page1.nextCursor}`);
    expect(page2).toMatchObject({ conversations: [{ id: ids[1] }], nextCursor: null });

    const patched = await api(
      `/v1/conversations/${ids[1]}`,
      {
        method: 'PATCH',
        body: JSON.stringify({ title: 'Greetings' }),
        headers: { 'content-type': 'application/json' },
      },
      DAVE,
    );
    expect(patched.status).toBe(200);
    expect((await list()).conversations.find((c) => c.id === ids[1])!.title).toBe('Greetings');
    expect((await snapshot(ids[1]!, DAVE)).messages.length).toBe(2);

    // Someone else sees none of them and cannot rename them; bad queries are 400.
    const OTHER = { authorization: 'Bearer test-key-acme', 'x-end-user': `erin-${crypto.randomUUID().slice(0, 8)}` };
    expect((await list('', OTHER)).conversations).toEqual([]);
    expect(
      (
        await api(
          `/v1/conversations/${ids[1]}`,
          { method: 'PATCH', body: JSON.stringify({ title: 'x' }), headers: { 'content-type': 'application/json' } },
          OTHER,
        )
      ).status,
    ).toBe(404);
    expect((await api('/v1/conversations?limit=0', {}, DAVE)).status).toBe(400);
    expect((await api('/v1/conversations?cursor=bogus', {}, DAVE)).status).toBe(400);

    // A deleted conversation leaves the list.
    await api(`/v1/conversations/${ids[2]}`, { method: 'DELETE' }, DAVE);
    expect((await list()).conversations.map((c) => c.id)).toEqual([ids[0], ids[1]]);
  });
});

describe('turn limits that do not trap users', () => {
  const metered = (user: string) => ({
    authorization: 'Bearer test-key-metered',
    'x-end-user': `${user}-${crypto.randomUUID().slice(0, 8)}`,
  });

  it('answering an approval is not a new turn', async () => {
    const who = metered('ann');
    const id = await createConversation(who);
    const model = scriptedModel((call) =>
      call.prompt.some((m) => m.role === 'tool')
        ? say('Created.')
        : callTools(['demo__create_task', { title: 'Limits' }]),
    );
    await approveWith(id, await turnUntilApproval(id, 'create a task', model), model);
    // Two turns per user: the approval did not use the second.
    const second = await postJson(`/v1/conversations/${id}/messages`, { text: 'hello' }, who);
    expect(second.status).toBe(200);
    await second.text();
    expect((await postJson(`/v1/conversations/${id}/messages`, { text: 'hello again' }, who)).status).toBe(429);
  });

  it("a turn the tenant refuses does not use the user's own slot", async () => {
    const [a, b] = [metered('amy'), metered('ben')];
    const [idA, idB] = [await createConversation(a), await createConversation(b)];
    for (const text of ['one', 'two']) await (await postJson(`/v1/conversations/${idA}/messages`, { text }, a)).text();
    await (await postJson(`/v1/conversations/${idB}/messages`, { text: 'one' }, b)).text(); // the tenant's third
    for (let i = 0; i < 3; i++) {
      const refused = await postJson(`/v1/conversations/${idB}/messages`, { text: 'again' }, b);
      expect(refused.status).toBe(429);
      expect((await refused.json<{ error: { message: string } }>()).error.message).toContain('this tenant');
    }
    // Ben used one of his two turns; the three refusals took none.
    const limiter = env.RATE_LIMITER.getByName('tenant:metered');
    expect(
      (await limiter.take([{ key: `user:${b['x-end-user']}`, limit: 2, windowMs: 60_000, who: 'ben' }])).allowed,
    ).toBe(true);
  });
});

describe('WebSocket edge cases (hand-built frames)', () => {
  async function open(id: string) {
    const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', ...HOSTILE },
    });
    const socket = response.webSocket!;
    socket.accept();
    const frames: Array<Record<string, unknown>> = [];
    socket.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data)) as Record<string, unknown>));
    return { socket, frames };
  }

  it('a probe with nothing running gets resume_none with its reason and probe id; a bad request gets an error frame', async () => {
    const id = await createConversation(HOSTILE);
    const { socket, frames } = await open(id);
    socket.send(JSON.stringify({ type: 'cf_agent_stream_resume_request', probeId: 'p1' }));
    await waitFor(() => frames.find((f) => f.type === 'cf_agent_stream_resume_none'), 'the answer to the probe');
    expect(frames.find((f) => f.type === 'cf_agent_stream_resume_none')).toEqual({
      type: 'cf_agent_stream_resume_none',
      reason: 'idle',
      probeId: 'p1',
    });
    socket.send(
      JSON.stringify({
        type: 'cf_agent_use_chat_request',
        id: 'r1',
        init: { method: 'POST', body: '{"messages":[]}' },
      }),
    );
    await waitFor(() => frames.find((f) => f.id === 'r1'), 'the error frame');
    expect(frames.find((f) => f.id === 'r1')).toMatchObject({
      type: 'cf_agent_use_chat_response',
      done: true,
      error: true,
    });
    socket.close();
  });

  it('clear while a turn streams: the turn is stopped and ended first, and nothing of the history comes back', async () => {
    const id = await createConversation(HOSTILE);
    await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: 'hello' }, HOSTILE));
    const { socket, frames } = await open(id);
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [userMessage('and more')], {
        model: stalledModel('A partial'),
        acceptsImages: false,
        spec: 'mock',
      });
      await untilText(live.reader());
    });
    socket.send(JSON.stringify({ type: 'cf_agent_chat_clear' }));
    // The stopped turn's save (the whole history it started from) lands before the clear, never after it.
    await waitFor(async () => (await snapshot(id, HOSTILE)).messages.length === 0, 'the history to be empty', 10_000);
    expect(await (await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, HOSTILE)).json()).toEqual({
      stopped: false,
    });
    expect((await snapshot(id, HOSTILE)).messages).toEqual([]);
    expect(frames.some((f) => f.type === 'cf_agent_use_chat_response' && f.done)).toBe(true); // this tab saw the stopped turn end
    socket.close();
  });

  it('a tab that probes while its own request starts is told there is nothing to resume, and reads its answer once', async () => {
    const id = await createConversation(HOSTILE);
    const { socket, frames } = await open(id);
    const body = JSON.stringify({
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What do the team guidelines say about estimates?' }] },
      ],
    });
    // As the hook does on a fast send after mount: the request, then its page-load probe.
    socket.send(JSON.stringify({ type: 'cf_agent_use_chat_request', id: 'r2', init: { method: 'POST', body } }));
    socket.send(JSON.stringify({ type: 'cf_agent_stream_resume_request', probeId: 'p2' }));
    await waitFor(() => frames.find((f) => f.id === 'r2' && f.done), 'the end of the turn', 10_000);
    expect(frames.find((f) => f.probeId === 'p2')).toEqual({
      type: 'cf_agent_stream_resume_none',
      reason: 'idle',
      probeId: 'p2',
    });
    const mine = frames.filter((f) => f.id === 'r2');
    expect(mine.some((f) => f.replay)).toBe(false);
    expect(mine.filter((f) => f.done)).toHaveLength(1);
    const seqs = mine.filter((f) => f.body).map((f) => f.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i)); // every chunk once, in order
    socket.close();
  });
});
