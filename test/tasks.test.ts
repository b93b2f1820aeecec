import { Chat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { abortAllDurableObjects, runInDurableObject } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { Settings } from '../src/config';
import { pollTasks } from '../src/turn/tasks/task-poll';
import type { TaskStore } from '../src/turn/tasks/task-store';
import type { ElicitationNotice, TaskNotice } from '../shared/api/stream';
import { api, conversationStub, createConversation, openSocketTab } from './helpers/api';
import { callTools, finish, say, scriptedModel, toolResults, userMessage } from './helpers/turns';

/*
 * Long-running tools as MCP Tasks, through the real path: an SDK v2 server
 * whose tools answer `resultType: "task"` (test/infra/task-servers.ts), the
 * conversation's Durable Object following them from its alarm, and the
 * answer going on by itself when they end.
 */
const TASKS = { authorization: 'Bearer test-key-tasks', 'x-end-user': 'alice' };
const tasksUrl = inject('tasksUrl');
const serverState = async () =>
  (await fetch(`${tasksUrl}/__control/state`)).json<{
    methods: Record<string, number>;
    tasks: Array<{ taskId: string; tool: string; status: string; polls: number; cancelRequested: boolean }>;
  }>();

type Chunk = UIMessageChunk & { type: string };

/**
 * Starts a turn whose scripted model calls `tool` at its first step and, in
 * the continued answer, says what the tool gave (or that it failed). The
 * model and settings stay set on the conversation (its continuation runs
 * from the alarm, after this returns). Returns the first stream's chunks.
 */
async function startTaskTurn(
  id: string,
  tool: string,
  args: Record<string, unknown> = {},
  settings: Partial<Settings> = {},
  server = 'jobs',
) {
  const model = scriptedModel((call, index) => {
    if (index === 0) return callTools([`${server}__${tool}`, args]);
    const result = toolResults(call.prompt).at(-1);
    return say(result ? `${result.error ? 'Failed' : 'Result'}: ${result.text}` : 'no result');
  });
  const chunks = await runInDurableObject(await conversationStub(id), async (instance) => {
    instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' }, settings });
    const stream = await instance.parts.turns.start({ kind: 'message', newMessages: [userMessage(`run ${tool}`)] });
    const all: Chunk[] = [];
    const reader = stream.reader().getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value as Chunk);
    return all;
  });
  return { chunks, model };
}

async function messages(id: string): Promise<UIMessage[]> {
  return runInDurableObject(await conversationStub(id), (instance) => instance.parts.history.load());
}

const lastAnswer = async (id: string) => (await messages(id)).at(-1)!;
const textOf = (message: UIMessage) => message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const taskPart = (message: UIMessage) =>
  message.parts.find((p) => p.type === 'data-task') as { data: TaskNotice } | undefined;
const toolPart = (message: UIMessage) =>
  message.parts.find((p) => p.type.startsWith('tool-')) as
    | { state: string; output?: unknown; errorText?: string }
    | undefined;

const JSON_TYPE = { 'content-type': 'application/json' };
const textOfStream = (chunks: Chunk[]) =>
  chunks
    .filter((c) => c.type === 'text-delta')
    .map((c) => (c as { delta: string }).delta)
    .join('');

/** The first `type` part of the last answer, once it is there. */
async function waitForPart(id: string, type: 'data-elicitation'): Promise<ElicitationNotice> {
  let found: ElicitationNotice | undefined;
  await expect
    .poll(
      async () =>
        (found = ((await lastAnswer(id)).parts.find((p) => p.type === type) as { data?: ElicitationNotice } | undefined)
          ?.data),
      { timeout: 10_000 },
    )
    .toBeTruthy();
  return found!;
}

/** A model that calls `jobs__build` (steps 3 × 200 ms), then answers `text` in `chunks` pieces, `delayMs` apart. */
function slowContinuation(text: string, chunks: number, delayMs: number) {
  let index = 0;
  return new MockLanguageModelV4({
    doStream: async () => {
      if (index++ === 0) return { stream: streamOf(callTools(['jobs__build', { steps: 3, stepMs: 200 }])) };
      const size = Math.ceil(text.length / chunks);
      const pieces = Array.from({ length: chunks }, (_, i) => text.slice(i * size, (i + 1) * size));
      return {
        stream: new ReadableStream({
          async start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            for (const delta of pieces) {
              await new Promise((resolve) => setTimeout(resolve, delayMs));
              controller.enqueue({ type: 'text-delta', id: 't', delta });
            }
            controller.enqueue({ type: 'text-end', id: 't' });
            controller.enqueue(finish('stop'));
            controller.close();
          },
        }),
      };
    },
  });
}

const streamOf = <T>(parts: T[]) =>
  new ReadableStream<T>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });

/** The AI SDK's chat client on /v1/chat (resumeStream: GET /v1/chat/:id/stream), as a frontend would use it. */
function chatFor(id: string) {
  return new Chat<UIMessage>({
    id,
    transport: new DefaultChatTransport({
      api: 'http://localhost/v1/chat',
      headers: TASKS,
      fetch: (input, init) => exports.default.fetch(input, init),
    }),
  });
}

async function settled(chat: Chat<UIMessage>) {
  for (let i = 0; i < 400 && (chat.status === 'submitted' || chat.status === 'streaming'); i++)
    await new Promise((r) => setTimeout(r, 25));
  if (chat.error) throw chat.error;
}

/** A WebSocket tab (the useAgentChat protocol), recording every frame it is sent. */
const openTab = (id: string) => openSocketTab(id, TASKS);

beforeEach(async () => {
  await fetch(`${tasksUrl}/__control/reset`, { method: 'POST' });
});

describe('a tool call that becomes a task', () => {
  it('the turn ends with the call running (a data-task part); the alarm follows the task and the answer goes on with its result', async () => {
    const id = await createConversation(TASKS);
    const { chunks, model } = await startTaskTurn(id, 'build', { steps: 3, stepMs: 150 });
    const started = chunks.find((c) => c.type === 'data-task') as { id: string; data: TaskNotice } | undefined;
    expect(started?.data).toMatchObject({ server: 'jobs', tool: 'build', status: 'working' });
    expect(chunks.some((c) => c.type === 'tool-output-available')).toBe(false); // the placeholder never reaches a client
    expect(chunks.find((c) => c.type === 'finish')).toMatchObject({ messageMetadata: { waitingForTasks: true } });
    expect(model.doStreamCalls).toHaveLength(1); // the model never saw the placeholder

    const waiting = await lastAnswer(id);
    expect(toolPart(waiting)?.state).toBe('input-available');
    expect(taskPart(waiting)?.data.status).toBe('working');
    // Nothing holds a request open: the task is followed from the object's alarm.
    expect(
      await runInDurableObject(
        await conversationStub(id),
        async (_instance, state) => (await state.storage.getAlarm()) !== null,
      ),
    ).toBe(true);

    await expect
      .poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 })
      .toContain('Result: Built in 3 steps.');
    const done = await lastAnswer(id);
    expect(done.id).toBe(waiting.id); // the same answer, gone on
    expect(toolPart(done)).toMatchObject({ state: 'output-available' });
    expect(taskPart(done)?.data).toMatchObject({ status: 'completed' });
    expect(model.doStreamCalls).toHaveLength(2);
    const polls = (await serverState()).tasks[0]!.polls;
    expect(polls).toBeGreaterThanOrEqual(1);
  });

  it('a failed task gives its error as the tool result', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'explode');
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Failed:');
    const done = await lastAnswer(id);
    expect(toolPart(done)).toMatchObject({
      state: 'output-error',
      errorText: expect.stringContaining('The build machine caught fire'),
    });
    expect(taskPart(done)?.data.status).toBe('failed');
  });

  it('a status message or failure of megabytes is cut, as upstream text is: in the step, the stored row and the result', async () => {
    const id = await createConversation(TASKS);
    const { chunks } = await startTaskTurn(id, 'chatty');
    const first = chunks.find((c) => c.type === 'data-task') as { data: TaskNotice } | undefined;
    expect(first?.data.statusMessage?.length ?? 0).toBeLessThan(400);
    expect(first?.data.statusMessage).toMatch(/^Working: x+… \[\d+ more characters\]$/);
    const rows = await runInDurableObject(await conversationStub(id), (instance) => instance.parts.tasks.running());
    expect(JSON.stringify(rows).length).toBeLessThan(2_000);
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Failed:');
    const done = await lastAnswer(id);
    expect(JSON.stringify(done).length).toBeLessThan(5_000);
    expect(toolPart(done)?.errorText).toMatch(/Gave up: y+… \[\d+ more characters\]/);
  });

  it('a task the server forgets is an error, never a hang', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'vanish');
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Failed:');
    expect(toolPart(await lastAnswer(id))?.errorText).toContain('no longer knows task');
  });

  it('a task older than TASK_MAX_MS is cancelled on the server, and the model told so', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'wait_forever', {}, { TASK_MAX_MS: 1_000 });
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Failed:');
    expect(toolPart(await lastAnswer(id))?.errorText).toContain('ran longer than 1 s (TASK_MAX_MS) and was cancelled');
    expect((await serverState()).tasks[0]).toMatchObject({
      tool: 'wait_forever',
      status: 'cancelled',
      cancelRequested: true,
    });
  });

  it('a new message while a task runs is refused with 409 naming it; Stop cancels the task and settles the step', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'wait_forever');
    const refused = await api(
      `/v1/conversations/${id}/messages`,
      { method: 'POST', body: JSON.stringify({ text: 'hello?' }), headers: { 'content-type': 'application/json' } },
      TASKS,
    );
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({
      error: { code: 'task_running', message: expect.stringContaining('"wait_forever" of MCP server "jobs"') },
    });

    const stopped = await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, TASKS);
    expect(await stopped.json()).toEqual({ stopped: true });
    const answer = await lastAnswer(id);
    expect(toolPart(answer)).toMatchObject({ state: 'output-error', errorText: 'Stopped by the user.' });
    expect(taskPart(answer)?.data.status).toBe('cancelled');
    expect(answer.metadata).toMatchObject({ stopped: true, waitingForTasks: false });
    expect((await serverState()).tasks[0]).toMatchObject({ status: 'cancelled', cancelRequested: true });
    // The conversation goes on.
    const next = await api(
      `/v1/conversations/${id}/messages`,
      {
        method: 'POST',
        body: JSON.stringify({ text: 'hello again' }),
        headers: { 'content-type': 'application/json' },
      },
      TASKS,
    );
    expect(next.status).toBe(200);
    await next.text();
  });

  it('Stop while the alarm’s poll waits on the server: the stopped answer does not go on, and stays stopped', async () => {
    const id = await createConversation(TASKS);
    const { model } = await startTaskTurn(id, 'wait_forever');
    const answer = await runInDurableObject(await conversationStub(id), async (instance) => {
      const follower = instance.parts.tasks as unknown as {
        host: { store: TaskStore; withMcp: (work: (sessions: object) => Promise<unknown>) => Promise<unknown> };
      };
      const [row] = follower.host.store.all();
      follower.host.store.reschedule(row!.toolCallId, Date.now()); // due now
      // The server answers this poll's tasks/get only after the user has pressed Stop (a slow server, injected).
      let reached!: () => void;
      const atServer = new Promise<void>((resolve) => (reached = resolve));
      let answerNow!: () => void;
      const held = new Promise<void>((resolve) => (answerNow = resolve));
      const { withMcp } = follower.host;
      follower.host = {
        ...follower.host,
        withMcp: (work) =>
          withMcp((sessions) =>
            work(
              new Proxy(sessions, {
                get: (target, key) =>
                  key === 'getTask'
                    ? async (...args: unknown[]) => {
                        reached();
                        await held;
                        return (target as { getTask: (...a: unknown[]) => unknown }).getTask(...args);
                      }
                    : Reflect.get(target, key),
              }),
            ),
          ),
      };
      const polling = pollTasks(instance.parts.tasks, instance.parts.turns);
      await atServer;
      expect(await instance.parts.controls.stop()).toBe(true);
      answerNow();
      await polling;
      return instance.parts.history.load().at(-1)!;
    });
    expect(model.doStreamCalls).toHaveLength(1); // no continuation of a stopped answer
    expect(answer.metadata).toMatchObject({ stopped: true, waitingForTasks: false });
    // What Stop wrote stays: the late answer of the poll does not settle the call a second time.
    expect(toolPart(answer)).toMatchObject({ state: 'output-error', errorText: 'Stopped by the user.' });
    expect(taskPart(answer)?.data).toMatchObject({ status: 'cancelled', statusMessage: 'Stopped by the user' });
  });
});

describe('a task that needs input', () => {
  it('input_required becomes a question in the step; the answer goes to the server with tasks/update and the task ends', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'ask_name');
    const question = await waitForPart(id, 'data-elicitation');
    expect(question).toMatchObject({
      server: 'jobs',
      message: 'What is your name?',
      status: 'pending',
      id: expect.stringMatching(/^task:.+:name$/),
    });
    expect(taskPart(await lastAnswer(id))?.data).toMatchObject({
      status: 'input_required',
      statusMessage: 'Waiting for a name',
    });
    // An answer that does not fit the server's form is refused, and the question stays open.
    const bad = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      { method: 'POST', body: JSON.stringify({ action: 'accept', content: {} }), headers: JSON_TYPE },
      TASKS,
    );
    expect(bad.status).toBe(400);
    const answered = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      { method: 'POST', body: JSON.stringify({ action: 'accept', content: { name: 'Ada' } }), headers: JSON_TYPE },
      TASKS,
    );
    expect(await answered.json()).toEqual({ answered: question.id });
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Result: Hello, Ada!');
    expect((await serverState()).methods['tasks/update']).toBe(1);
    const done = await lastAnswer(id);
    expect(done.parts.find((p) => p.type === 'data-elicitation')).toMatchObject({
      data: { status: 'accept', content: { name: 'Ada' } },
    });
    // Answered once: the same question cannot be answered again.
    const again = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      { method: 'POST', body: JSON.stringify({ action: 'decline' }), headers: JSON_TYPE },
      TASKS,
    );
    expect(again.status).toBe(404);
  });
  it('a question whose key holds colons is answered under that key', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'ask_name', { key: 'urn:form:name' });
    const question = await waitForPart(id, 'data-elicitation');
    expect(question.id).toMatch(/:urn:form:name$/);
    const answered = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      { method: 'POST', body: JSON.stringify({ action: 'accept', content: { name: 'Grace' } }), headers: JSON_TYPE },
      TASKS,
    );
    expect(answered.status).toBe(200);
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toContain('Result: Hello, Grace!');
  });
});

describe('nothing is lost', () => {
  it('a Durable Object restart in the middle: the new instance follows the task from its alarm and answers', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'build', { steps: 4, stepMs: 250 });
    expect(taskPart(await lastAnswer(id))?.data.status).toBe('working');
    await abortAllDurableObjects(); // evicted: the scripted model and every in-memory state are gone
    // The next instance answers with the tenant's model (the offline one); the task's result is its tool result.
    await expect.poll(async () => toolPart(await lastAnswer(id))?.state, { timeout: 15_000 }).toBe('output-available');
    const done = await lastAnswer(id);
    expect(JSON.stringify(toolPart(done)?.output)).toContain('Built in 4 steps.');
    expect(taskPart(done)?.data.status).toBe('completed');
    await expect
      .poll(async () => (await lastAnswer(id)).metadata, { timeout: 10_000 })
      .toMatchObject({
        waitingForTasks: false,
      });
    expect((await serverState()).tasks).toHaveLength(1); // followed, never started again
  });

  it('the AI SDK chat client: its stream ends while the task runs; resumeStream during the continuation gets the answer', async () => {
    const id = await createConversation(TASKS);
    const model = slowContinuation('The build is done', 6, 150);
    await runInDurableObject(await conversationStub(id), (instance) =>
      instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } }),
    );
    const chat = chatFor(id);
    await chat.sendMessage({ text: 'build it' });
    await settled(chat);
    const first = chat.messages.at(-1)!;
    expect(first.parts.find((p) => p.type === 'data-task')).toMatchObject({ data: { status: 'working' } });
    expect(first.metadata).toMatchObject({ waitingForTasks: true });
    // The person closed the tab; the continuation starts without them. They come back while it streams.
    await expect
      .poll(async () => runInDurableObject(await conversationStub(id), (instance) => instance.parts.turns.busy), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
    await chat.resumeStream();
    await settled(chat);
    const seen = chat.messages.at(-1)!;
    expect(textOf(seen)).toBe('The build is done');
    // The step is whole in the client's view too: the call, its result, the task's final state.
    expect(toolPart(seen)).toMatchObject({ state: 'output-available' });
    expect(JSON.stringify(toolPart(seen)?.output)).toContain('Built in 3 steps.');
    expect(taskPart(seen)?.data.status).toBe('completed');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // And a person who comes back later finds it in the history, once.
    const storedMessages = async () =>
      (await (await api(`/v1/conversations/${id}`, {}, TASKS)).json<{ messages: UIMessage[] }>()).messages;
    await expect.poll(async () => textOf((await storedMessages())[1]!)).toBe('The build is done');
    const stored = await storedMessages();
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(stored[1]!)).toBe('The build is done');
    expect(toolPart(stored[1]!)).toMatchObject({ state: 'output-available' });
  });

  it('two WebSocket tabs: each sees the task move and the continued answer live', async () => {
    const id = await createConversation(TASKS);
    const tabs = [await openTab(id), await openTab(id)];
    await startTaskTurn(id, 'build', { steps: 3, stepMs: 200 });
    await expect
      .poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 })
      .toContain('Result: Built in 3 steps.');
    for (const tab of tabs) {
      await expect
        .poll(() => tab.frames.filter((f) => f.type === 'cf_agent_message_updated').length, { timeout: 5_000 })
        .toBeGreaterThan(0);
      const updates = tab.frames
        .filter((f) => f.type === 'cf_agent_message_updated')
        .map(
          (f) => (f.message as UIMessage).parts.find((p) => p.type === 'data-task') as { data: TaskNotice } | undefined,
        );
      expect(updates.map((u) => u?.data.status)).toContain('completed');
      const continued = tab.frames
        .filter((f) => f.type === 'cf_agent_use_chat_response' && typeof f.body === 'string' && f.body)
        .map((f) => JSON.parse(f.body as string) as Chunk);
      expect(
        continued
          .filter((c) => c.type === 'text-delta')
          .map((c) => (c as { delta: string }).delta)
          .join(''),
      ).toContain('Result: Built in 3 steps.');
      tab.socket.close();
    }
  });
});

describe('progress, for every long call', () => {
  it('notifications/progress reach the step as transient data-progress parts', async () => {
    const id = await createConversation(TASKS);
    const { chunks } = await startTaskTurn(id, 'count', { steps: 4, stepMs: 50 });
    const progress = chunks.filter((c) => c.type === 'data-progress') as unknown as Array<{
      data: { progress: number; total?: number; message?: string; tool: string };
      transient?: boolean;
    }>;
    expect(progress.map((p) => p.data.progress)).toEqual([1, 2, 3, 4]);
    expect(progress[0]).toMatchObject({ transient: true, data: { total: 4, message: 'Counted 1', tool: 'count' } });
    expect(textOfStream(chunks)).toContain('Result: Counted to 4.');
    // Transient: the saved answer has none.
    expect((await lastAnswer(id)).parts.some((p) => p.type === 'data-progress')).toBe(false);
  });

  it('each progress notification restarts the request deadline, up to TOOL_CALL_MAX_MS', async () => {
    const id = await createConversation(TASKS);
    // 6 × 300 ms: twice MCP_REQUEST_TIMEOUT_MS, but never 1 s without news.
    const { chunks } = await startTaskTurn(
      id,
      'count',
      { steps: 6, stepMs: 300 },
      { MCP_REQUEST_TIMEOUT_MS: 1_000, TOOL_CALL_MAX_MS: 60_000 },
    );
    expect(textOfStream(chunks)).toContain('Result: Counted to 6.');
    const capped = await createConversation(TASKS);
    const { chunks: cut } = await startTaskTurn(
      capped,
      'count',
      { steps: 6, stepMs: 300 },
      { MCP_REQUEST_TIMEOUT_MS: 1_000, TOOL_CALL_MAX_MS: 1_000 },
    );
    expect(textOfStream(cut)).toContain('Failed:');
  });
});

describe('a 2025 server: server-everything', () => {
  it('simulate-research-query (taskSupport: required) runs as a task-augmented tools/call and answers', async () => {
    const id = await createConversation(TASKS);
    const { chunks } = await startTaskTurn(id, 'simulate-research-query', { topic: 'edge caching' }, {}, 'everything');
    expect(chunks.find((c) => c.type === 'data-task')).toMatchObject({
      data: { server: 'everything', tool: 'simulate-research-query', status: 'working' },
    });
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain('Result: ');
    const done = await lastAnswer(id);
    expect(toolPart(done)?.state).toBe('output-available');
    expect(textOf(done)).toContain('edge caching');
    expect(taskPart(done)?.data.status).toBe('completed');
  });

  it('an ambiguous simulate-research-query asks on its tasks/result stream: the question is shown, the answer reaches the server', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'simulate-research-query', { topic: 'python', ambiguous: true }, {}, 'everything');
    const question = await waitForPart(id, 'data-elicitation');
    expect(question).toMatchObject({ server: 'everything', status: 'pending' });
    expect(question.message).toContain('multiple interpretations');
    expect(question.requestedSchema.properties).toHaveProperty('interpretation');
    expect(taskPart(await lastAnswer(id))?.data.status).toBe('input_required');
    // Not one of the titled choices: refused, and still waiting.
    const bad = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      {
        method: 'POST',
        body: JSON.stringify({ action: 'accept', content: { interpretation: 'lizard' } }),
        headers: JSON_TYPE,
      },
      TASKS,
    );
    expect(bad.status).toBe(400);
    const answered = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      {
        method: 'POST',
        body: JSON.stringify({ action: 'accept', content: { interpretation: 'snake' } }),
        headers: JSON_TYPE,
      },
      TASKS,
    );
    expect(answered.status).toBe(200);
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain('Result: ');
    const done = await lastAnswer(id);
    expect(textOf(done)).toContain('Research Report: python (snake)');
    expect(taskPart(done)?.data.status).toBe('completed');
    expect(done.parts.find((p) => p.type === 'data-elicitation')).toMatchObject({
      data: { status: 'accept', content: { interpretation: 'snake' } },
    });
  });

  it('declining a 2025 task’s question: the server goes on with its default', async () => {
    const id = await createConversation(TASKS);
    await startTaskTurn(id, 'simulate-research-query', { topic: 'python', ambiguous: true }, {}, 'everything');
    const question = await waitForPart(id, 'data-elicitation');
    const declined = await api(
      `/v1/conversations/${id}/elicitations/${encodeURIComponent(question.id)}`,
      { method: 'POST', body: JSON.stringify({ action: 'decline' }), headers: JSON_TYPE },
      TASKS,
    );
    expect(declined.status).toBe(200);
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain('Result: ');
    expect(textOf(await lastAnswer(id))).toContain('User declined - using default interpretation');
  });

  it('trigger-long-running-operation outlives the request timeout while it reports progress', async () => {
    const id = await createConversation(TASKS);
    const { chunks } = await startTaskTurn(
      id,
      'trigger-long-running-operation',
      { duration: 5, steps: 10 },
      { MCP_REQUEST_TIMEOUT_MS: 3_000 },
      'everything',
    );
    expect(chunks.filter((c) => c.type === 'data-progress').length).toBeGreaterThanOrEqual(5);
    expect(textOfStream(chunks)).toContain('Result: ');
    expect(textOfStream(chunks)).not.toContain('Failed:');
  });
});

describe('limits', () => {
  it('TASKS_PER_CONVERSATION: a call that would start one task too many is cancelled, and the model told why', async () => {
    const id = await createConversation({ ...TASKS, 'x-end-user': 'limits-conversation' });
    const model = scriptedModel((call, index) =>
      index === 0
        ? callTools(['jobs__wait_forever', {}], ['jobs__wait_forever', {}])
        : say(
            toolResults(call.prompt)
              .map((r) => r.text)
              .join(' | '),
          ),
    );
    await runInDurableObject(await conversationStub(id), async (instance) => {
      instance.parts.terms.override({
        model: { model, acceptsImages: false, spec: 'mock' },
        settings: { TASKS_PER_CONVERSATION: 1 },
      });
      const stream = await instance.parts.turns.start({ kind: 'message', newMessages: [userMessage('twice')] });
      const reader = stream.reader().getReader();
      while (!(await reader.read()).done);
    });
    const state = await serverState();
    expect(state.tasks).toHaveLength(2);
    expect(state.tasks.filter((t) => t.cancelRequested)).toHaveLength(1); // the one too many, at once
    const answer = await lastAnswer(id);
    const errors = answer.parts.filter((p) => (p as { state?: string }).state === 'output-error') as Array<{
      errorText: string;
    }>;
    expect(errors).toHaveLength(1);
    expect(errors[0]!.errorText).toContain('(TASKS_PER_CONVERSATION)');
    await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, TASKS);
  });

  it('deleting a conversation whose call runs as a task cancels it on the server and frees its TASKS_PER_USER place', async () => {
    const user = { ...TASKS, 'x-end-user': 'limits-delete' };
    const first = await createConversation(user);
    await startTaskTurn(first, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    const running = (await serverState()).tasks.find((t) => t.tool === 'wait_forever')!;
    expect(running.status).toBe('working');
    const deleted = await api(`/v1/conversations/${first}`, { method: 'DELETE' }, user);
    expect(deleted.status, await deleted.clone().text()).toBe(204);
    const after = (await serverState()).tasks.find((t) => t.taskId === running.taskId)!;
    expect(after.cancelRequested).toBe(true);
    // The user can run a task again.
    const second = await createConversation(user);
    await startTaskTurn(second, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    expect(taskPart(await lastAnswer(second))?.data.status).toBe('working');
    await api(`/v1/conversations/${second}/stream`, { method: 'DELETE' }, user);
  });

  it('a TASKS_PER_USER place is never held longer than TASK_MAX_MS, whatever happened to its conversation', async () => {
    const places = env.LIVE_CONVERSATIONS.getByName('tasks:limits-expiry');
    expect(await places.takeTask('lost-conversation', 'call-1', 1, 200)).toBe(true);
    expect(await places.takeTask('other', 'call-2', 1, 200)).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await places.takeTask('other', 'call-2', 1, 200)).toBe(true);
    expect(await places.taskCount()).toBe(1);
  });

  it('Stop gives the TASKS_PER_USER place back before it answers, trying again when the first try fails', async () => {
    const user = { ...TASKS, 'x-end-user': 'limits-stop' };
    const id = await createConversation(user);
    await startTaskTurn(id, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    const places = env.LIVE_CONVERSATIONS.getByName('tasks:limits-stop');
    expect(await places.taskCount()).toBe(1);
    // The user's places object drops the first release (a call to another object can fail: a reset, a lost link).
    const tries: string[] = [];
    await runInDurableObject(await conversationStub(id), (instance) => {
      const namespace = instance.parts.terms.env.LIVE_CONVERSATIONS;
      const getByName = namespace.getByName.bind(namespace);
      Object.defineProperty(namespace, 'getByName', {
        configurable: true,
        value: (name: string) => {
          const stub = getByName(name);
          return new Proxy(stub, {
            get: (target, key) =>
              key === 'releaseTask'
                ? async (...args: Parameters<typeof stub.releaseTask>) => {
                    tries.push(String(args[1]));
                    if (tries.length === 1) throw new Error('Network connection lost.');
                    return target.releaseTask(...args);
                  }
                : Reflect.get(target, key),
          });
        },
      });
    });
    try {
      const stopped = await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' }, user);
      expect(await stopped.json()).toEqual({ stopped: true });
      expect(tries).toHaveLength(2);
      expect(await places.taskCount()).toBe(0);
    } finally {
      await runInDurableObject(await conversationStub(id), (instance) => {
        delete (instance.parts.terms.env.LIVE_CONVERSATIONS as { getByName?: unknown }).getByName;
      });
    }
  });

  it('TASKS_PER_USER: across conversations of one end user', async () => {
    const user = { ...TASKS, 'x-end-user': 'limits-user' };
    const first = await createConversation(user);
    const second = await createConversation(user);
    await startTaskTurn(first, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    await startTaskTurn(second, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    await expect.poll(async () => textOf(await lastAnswer(second)), { timeout: 10_000 }).toContain('Failed:');
    expect(toolPart(await lastAnswer(second))?.errorText).toContain('(TASKS_PER_USER)');
    expect(taskPart(await lastAnswer(first))?.data.status).toBe('working');
    // Stopping the first frees the place.
    await api(`/v1/conversations/${first}/stream`, { method: 'DELETE' }, user);
    const third = await createConversation(user);
    await startTaskTurn(third, 'wait_forever', {}, { TASKS_PER_USER: 1 });
    expect(taskPart(await lastAnswer(third))?.data.status).toBe('working');
    await api(`/v1/conversations/${third}/stream`, { method: 'DELETE' }, user);
  });
});
