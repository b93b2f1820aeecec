import { runInDurableObject } from 'cloudflare:test';
import type { UIMessage, UIMessageChunk } from 'ai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { Settings } from '../src/config';
import type { TaskNotice } from '../shared/api/stream';
import { api, conversationStub, createConversation } from './helpers/api';
import { callTools, say, scriptedModel, toolResults, userMessage } from './helpers/turns';

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
) {
  const model = scriptedModel((call, index) => {
    if (index === 0) return callTools([`jobs__${tool}`, args]);
    const result = toolResults(call.prompt).at(-1);
    return say(result ? `${result.error ? 'Failed' : 'Result'}: ${result.text}` : 'no result');
  });
  const chunks = await runInDurableObject(await conversationStub(id), async (instance) => {
    instance.parts.context.override({ model: { model, acceptsImages: false, spec: 'mock' }, settings });
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
});
