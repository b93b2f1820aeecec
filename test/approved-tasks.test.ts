import { runInDurableObject } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { Chat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import type { TaskNotice } from '../shared/api/stream';
import { api, conversationStub, createConversation, openSocketTab, postJson } from './helpers/api';
import { callTools, say, scriptedModel, sseChunks, toolResults } from './helpers/turns';

/*
 * A tool call the user approves that then runs as an MCP task (issue 34, item 1). The approved call is executed before
 * the continuation's first model step (the AI SDK runs approved calls first), so the turn must stop right there — the
 * model never sees the task's placeholder — and go on once the task ends, with its real result. Tenant "gated"
 * (test/infra/tenants.ts): the same task servers as tests/tasks.test.ts, every call waiting for approval. Through the HTTP
 * routes a frontend uses (POST …/messages, POST …/approvals), and through the WebSocket (cf_agent_tool_approval), for a
 * 2026 task server (SDK v2, test/infra/task-servers.ts), the demo's build_report (2026) and server-everything's
 * simulate-research-query (2025-11-25, task-augmented tools/call).
 */
const GATED = { authorization: 'Bearer test-key-gated', 'x-end-user': 'approver' };
const tasksUrl = inject('tasksUrl');

type Chunk = UIMessageChunk & { type: string; data?: unknown; messageMetadata?: Record<string, unknown> };

/** A model that calls `tool` first and, once it is sent a result, says it; set on the conversation for every turn. */
async function withModel(id: string, tool: string, args: Record<string, unknown>, answerPauseMs = 0) {
  const model = scriptedModel(
    (call, index) => {
      if (index === 0) return callTools([tool, args]);
      const result = toolResults(call.prompt).at(-1);
      return say(result ? `${result.error ? 'Failed' : 'Result'}: ${result.text}` : 'no result');
    },
    { pauseMs: (index) => (index > 0 ? answerPauseMs : 0) },
  );
  await runInDurableObject(await conversationStub(id), (instance) => {
    instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
  });
  return model;
}

const lastAnswer = async (id: string): Promise<UIMessage> =>
  (await runInDurableObject(await conversationStub(id), (instance) => instance.parts.history.load())).at(-1)!;
const textOf = (message: UIMessage) => message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const taskOf = (message: UIMessage) =>
  (message.parts.find((p) => p.type === 'data-task') as { data: TaskNotice } | undefined)?.data;
const toolPartOf = (message: UIMessage) =>
  message.parts.find((p) => p.type.startsWith('tool-')) as { state: string; output?: unknown } | undefined;

/** Sends `text` over HTTP; the stream pauses at the approval; returns the waiting call's id. */
async function askAndWait(id: string, text: string): Promise<string> {
  const chunks = (await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text }, GATED))) as Chunk[];
  const request = chunks.find((c) => c.type === 'tool-approval-request') as { toolCallId: string } | undefined;
  expect(request, 'the call waits for approval').toBeTruthy();
  return request!.toolCallId;
}

beforeEach(async () => {
  await fetch(`${tasksUrl}/__control/reset`, { method: 'POST' });
});

describe('an approved tool call that becomes a task (HTTP)', () => {
  const cases = [
    { server: 'jobs', era: '2026', tool: 'jobs__build', args: { steps: 3, stepMs: 200 }, expected: 'Built in 3 steps' },
    {
      server: 'demo',
      era: '2026',
      tool: 'demo__build_report',
      args: { topic: 'the approved sprint', seconds: 2 },
      expected: 'Report: the approved sprint',
    },
    {
      server: 'everything',
      era: '2025',
      tool: 'everything__simulate-research-query',
      args: { topic: 'approved caching' },
      expected: 'approved caching',
    },
  ];

  for (const { server, era, tool, args, expected } of cases) {
    it(`${tool} (${era}): the continuation waits for the task, never shows the model its placeholder, and goes on with the result`, async () => {
      const id = await createConversation(GATED);
      const model = await withModel(id, tool, args);
      const toolCallId = await askAndWait(id, `run ${tool}`);
      expect(model.doStreamCalls).toHaveLength(1);

      const approved = await postJson(`/v1/conversations/${id}/approvals`, { toolCallId, approved: true }, GATED);
      expect(approved.status).toBe(200);
      const chunks = (await sseChunks(approved)) as Chunk[];
      const notice = chunks.find((c) => c.type === 'data-task')?.data as TaskNotice | undefined;
      expect(notice).toMatchObject({ server, status: 'working', toolCallId });
      expect(chunks.find((c) => c.type === 'finish')?.messageMetadata).toMatchObject({ waitingForTasks: true });
      // The model was not asked to answer with the placeholder in place of the result.
      expect(model.doStreamCalls).toHaveLength(1);
      expect((await lastAnswer(id)).metadata).toMatchObject({ waitingForTasks: true });

      await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain(`Result: `);
      const done = await lastAnswer(id);
      expect(textOf(done)).toContain(expected);
      expect(textOf(done)).not.toContain('Running as task');
      expect(taskOf(done)).toMatchObject({ status: 'completed', taskId: notice!.taskId });
      expect(toolPartOf(done)?.state).toBe('output-available');
      expect(model.doStreamCalls).toHaveLength(2);
      const seen = toolResults(model.doStreamCalls[1]!.prompt).map((r) => r.text);
      expect(seen.join('\n')).not.toContain('Running as task');
      // Stored and shown once (D12): what a reload reads has the call once, with one task card.
      const { messages } = await (await api(`/v1/conversations/${id}`, {}, GATED)).json<{ messages: UIMessage[] }>();
      const answer = messages.at(-1)!;
      expect(answer.parts.filter((p) => (p as { toolCallId?: string }).toolCallId === toolCallId)).toHaveLength(1);
      expect(answer.parts.filter((p) => p.type === 'data-task')).toHaveLength(1);
    });
  }
});

describe('an approved tool call that becomes a task (WebSocket)', () => {
  it('cf_agent_tool_approval: the continuation waits; the tab sees the task end and the answer go on, once', async () => {
    const id = await createConversation(GATED);
    const model = await withModel(id, 'jobs__build', { steps: 3, stepMs: 200 });
    const toolCallId = await askAndWait(id, 'run build');
    const { socket, frames } = await openSocketTab(id, GATED);
    socket.send(JSON.stringify({ type: 'cf_agent_tool_approval', toolCallId, approved: true, autoContinue: true }));

    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain('Result: ');
    expect(textOf(await lastAnswer(id))).toContain('Built in 3 steps');
    expect(model.doStreamCalls).toHaveLength(2);
    // The tab that approved is kept out of the live frames until it asks to resume (as useAgentChat does, tested in
    // Chromium): what it gets unasked is the answer that went on when the task ended — once, with the result.
    const streamed = frames
      .filter((f) => f.type === 'cf_agent_use_chat_response' && typeof f.body === 'string' && f.body)
      .map((f) => JSON.parse(f.body as string) as Chunk);
    const answerText = streamed
      .filter((c) => c.type === 'text-delta')
      .map((c) => (c as { delta: string }).delta)
      .join('');
    expect(answerText.match(/Result: /g)).toHaveLength(1);
    expect(answerText).not.toContain('Running as task');
    socket.close();
    await api(`/v1/conversations/${id}`, { method: 'DELETE' }, GATED);
  });
});

describe('an approved tool call that becomes a task (the AI SDK chat client, as useChat runs it)', () => {
  it('addToolApprovalResponse, then the automatic send: the stream ends waiting; resumeStream gets the answer', async () => {
    const id = await createConversation(GATED);
    // The continuation's answer takes a moment (as a model's does), so that the test sees its turn running.
    const model = await withModel(id, 'jobs__build', { steps: 4, stepMs: 300 }, 500);
    const chat = new Chat<UIMessage>({
      id,
      transport: new DefaultChatTransport({
        api: 'http://localhost/v1/chat',
        headers: GATED,
        fetch: (input, init) => exports.default.fetch(input, init),
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    const settled = async () => {
      for (let i = 0; i < 400 && (chat.status === 'submitted' || chat.status === 'streaming'); i++)
        await new Promise((r) => setTimeout(r, 25));
      if (chat.error) throw chat.error;
    };
    await chat.sendMessage({ text: 'build it' });
    await settled();
    const asked = chat.messages.at(-1)!.parts.find((p) => (p as { state?: string }).state === 'approval-requested') as
      | { approval: { id: string } }
      | undefined;
    expect(asked).toBeTruthy();
    await chat.addToolApprovalResponse({ id: asked!.approval.id, approved: true });
    await settled();
    const waiting = chat.messages.at(-1)!;
    expect(waiting.metadata).toMatchObject({ waitingForTasks: true });
    expect(taskOf(waiting)?.status).toBe('working');
    expect(textOf(waiting)).toBe('');
    expect(model.doStreamCalls).toHaveLength(1);

    await expect
      .poll(async () => runInDurableObject(await conversationStub(id), (instance) => instance.parts.turns.busy), {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(true);
    await chat.resumeStream();
    await settled();
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 10_000 }).toBe('Result: Built in 4 steps.');
    expect(textOf(chat.messages.at(-1)!)).toBe('Result: Built in 4 steps.');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // The call once in what the client shows (D12: the continuation re-sent it into a step of its own, a second card).
    const toolCallId = taskOf(waiting)!.toolCallId;
    const calls = (message: UIMessage) =>
      message.parts.filter((p) => (p as { toolCallId?: string }).toolCallId === toolCallId);
    expect(calls(chat.messages.at(-1)!)).toHaveLength(1);
    expect(calls(await lastAnswer(id))).toHaveLength(1);
    expect(model.doStreamCalls).toHaveLength(2);
  });
});

describe('a step with a call that became a task and a call waiting for approval', () => {
  const TASKS = { authorization: 'Bearer test-key-tasks', 'x-end-user': 'mixer' };

  it('approved while the task runs, the answer goes on once the task ends: both results reach the model', async () => {
    const id = await createConversation(TASKS);
    // Tenant "tasks": jobs' build runs without approval (and becomes a task); echo_task is not auto-approved.
    const model = scriptedModel((call, index) => {
      if (index === 0) return callTools(['jobs__build', { steps: 3, stepMs: 300 }], ['jobs__echo_task', {}]);
      const results = toolResults(call.prompt);
      return results.length >= 2 ? say(`Results: ${results.map((r) => r.text).join(' | ')}`) : say('waiting');
    });
    await runInDurableObject(await conversationStub(id), (instance) => {
      instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
    });
    const chunks = (await sseChunks(
      await postJson(`/v1/conversations/${id}/messages`, { text: 'build and echo' }, TASKS),
    )) as Chunk[];
    const request = chunks.find((c) => c.type === 'tool-approval-request') as { toolCallId: string } | undefined;
    expect(request, 'echo_task waits for approval').toBeTruthy();
    expect(chunks.find((c) => c.type === 'data-task')?.data).toMatchObject({ tool: 'build', status: 'working' });

    // Approved while build still runs: recorded; the answer goes on when the task ends, not now.
    const approved = await postJson(
      `/v1/conversations/${id}/approvals`,
      { toolCallId: request!.toolCallId, approved: true },
      TASKS,
    );
    expect(approved.status).toBeLessThan(300);
    await expect.poll(async () => textOf(await lastAnswer(id)), { timeout: 20_000 }).toContain('Results: ');
    const text = textOf(await lastAnswer(id));
    expect(text).toContain('Built in 3 steps');
    expect(text).toContain('Done with');
    expect(text).not.toContain('Running as task');
    await api(`/v1/conversations/${id}`, { method: 'DELETE' }, TASKS);
  });
});
