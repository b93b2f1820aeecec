import { env, exports } from 'cloudflare:workers';
import { runInDurableObject } from 'cloudflare:test';
import type { UIMessage, UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskNotice, ToolProgress } from '../shared/api/stream';
import { ReportTasks } from '../src/demo/report-tasks';
import { api, conversationStub, createConversation } from './helpers/api';
import { DEMO_URL, connectDemoClient } from './helpers/demo-client';
import { callTools, say, scriptedModel, toolResults, userMessage } from './helpers/turns';

/*
 * The demo server's long-running tool, build_report (src/demo/build-report.ts):
 * an MCP task for a 2026 client that declares the Tasks extension (spoken here
 * as raw JSON-RPC: the SDK v2 client refuses `resultType: "task"`), the report
 * after the wait for everyone else; and through a conversation, where the
 * Durable Object follows the task and the answer goes on with the report.
 */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

type RpcAnswer = { result?: Record<string, unknown>; error?: { code: number; message: string } };

let nextId = 1;
/** One 2026-07-28 request to /demo/mcp, declaring the Tasks extension unless `tasks: false`; its JSON-RPC answer. */
async function rpc(
  method: string,
  params: Record<string, unknown>,
  { tasks = true, name }: { tasks?: boolean; name?: string } = {},
): Promise<RpcAnswer> {
  const response = await exports.default.fetch(DEMO_URL, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {},
          'io.modelcontextprotocol/clientInfo': { name: 'demo-tasks-test', version: '1.0.0' },
        },
      },
    }),
  });
  const body = await response.text();
  if (response.headers.get('content-type')?.includes('text/event-stream')) {
    const messages = body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as RpcAnswer & { id?: unknown });
    return messages.find((m) => m.id !== undefined && (m.result || m.error)) ?? {};
  }
  return JSON.parse(body) as RpcAnswer;
}

const startReport = (args: Record<string, unknown>, tasks = true) =>
  rpc('tools/call', { name: 'build_report', arguments: args }, { tasks, name: 'build_report' });
const getTask = (taskId: string) => rpc('tasks/get', { taskId }, { name: taskId });

type Task = {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  ttlMs?: number;
  result?: { content: Array<{ type: string; text: string }> };
};

const open: Array<Awaited<ReturnType<typeof connectDemoClient>>> = [];
afterEach(async () => {
  await Promise.all(
    open.splice(0).map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }),
  );
});

describe('build_report on the demo server: MCP Tasks', () => {
  it('declares the extension on 2026 (server/discover) and the tool as optionally a task on 2025', async () => {
    const modern = await connectDemoClient('tasks-modern');
    const legacy = await connectDemoClient('tasks-legacy', { protocol: '2025-11-25' });
    open.push(modern, legacy);
    expect(modern.client.getServerCapabilities()?.extensions).toHaveProperty([TASKS_EXTENSION]);
    expect(legacy.client.getServerCapabilities()?.extensions ?? {}).not.toHaveProperty([TASKS_EXTENSION]);
    const modernTool = (await modern.client.listTools()).tools.find((t) => t.name === 'build_report');
    expect(modernTool?.annotations?.readOnlyHint).toBe(true);
    expect(modernTool).not.toHaveProperty('execution'); // 2026-07-28 dropped it: the server decides per call
    const legacyTool = (await legacy.client.listTools()).tools.find((t) => t.name === 'build_report');
    expect(legacyTool?.execution).toEqual({ taskSupport: 'optional' });
  });

  it('answers with a task whose status message moves with time, then completes with the report', async () => {
    const started = await startReport({ topic: 'release 4.18', seconds: 2 });
    const task = started.result as unknown as Task & { resultType: string };
    expect(task).toMatchObject({ resultType: 'task', status: 'working', statusMessage: 'Collecting tasks (1/4)' });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(task.pollIntervalMs).toBeGreaterThanOrEqual(1_000);
    expect(task.ttlMs).toBeGreaterThan(0);

    const seen: string[] = [];
    let last: Task;
    for (;;) {
      last = (await getTask(task.taskId)).result as unknown as Task;
      if (last.statusMessage && seen.at(-1) !== last.statusMessage) seen.push(last.statusMessage);
      if (last.status !== 'working') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(last.status).toBe('completed');
    expect(seen.length).toBeGreaterThanOrEqual(3); // "Collecting tasks (1/4)", …, "Writing the report (4/4)", "Report ready"
    expect(seen[0]).toBe('Collecting tasks (1/4)');
    expect(seen).toContain('Writing the report (4/4)');
    const report = last.result!.content[0]!.text;
    expect(report).toContain('Report: release 4.18');
    expect(report).toMatch(/\d+ open task\(s\), \d+ done/);
    // The same report on every read.
    expect(((await getTask(task.taskId)).result as unknown as Task).result!.content[0]!.text).toBe(report);
  });

  it('tasks/cancel cancels a working task, and it stays cancelled', async () => {
    const { taskId } = (await startReport({ seconds: 2 })).result as unknown as Task;
    expect((await rpc('tasks/cancel', { taskId }, { name: taskId })).result).toEqual(expect.any(Object));
    expect((await getTask(taskId)).result).toMatchObject({ status: 'cancelled' });
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const after = (await getTask(taskId)).result as unknown as Task;
    expect(after.status).toBe('cancelled');
    expect(after).not.toHaveProperty('result');
  });

  it('an unknown task is -32602, for tasks/get, tasks/update and tasks/cancel', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = { taskId: 'no-such-task', ...(method === 'tasks/update' ? { inputResponses: {} } : {}) };
      const answer = await rpc(method, params, { name: 'no-such-task' });
      expect(answer.error, method).toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    }
  });

  it('a client without the extension gets the report after the wait, with progress when it asks for it', async () => {
    const modern = await connectDemoClient('no-tasks');
    open.push(modern);
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const before = Date.now();
    const result = await modern.client.callTool(
      { name: 'build_report', arguments: { seconds: 2 } },
      { onprogress: (p) => void progress.push(p) },
    );
    expect(Date.now() - before).toBeGreaterThanOrEqual(1_900);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^Report \(/);
    expect(progress.map((p) => p.progress)).toEqual([0, 1, 2]);
    expect(progress[0]).toMatchObject({ total: 2, message: 'Collecting tasks (1/4)' });
    expect(progress.at(-1)?.message).toBe('Report ready');
    // Raw, without the extension: no task either.
    const raw = await startReport({ seconds: 2 }, false);
    expect(raw.result).toMatchObject({ content: [{ type: 'text', text: expect.stringMatching(/^Report \(/) }] });
  });

  it('a 2025-11-25 session gets the report synchronously', async () => {
    const legacy = await connectDemoClient('legacy-report', { protocol: '2025-11-25' });
    open.push(legacy);
    const result = await legacy.client.callTool({
      name: 'build_report',
      arguments: { topic: 'old client', seconds: 2 },
    });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain('Report: old client');
  });

  it('keeps its task table bounded: expired tasks go, and past the cap the oldest', async () => {
    // A demo object of its own (the one serving /demo/mcp is named "demo"), so this table is the test's alone.
    const stub = env.DEMO_MCP.getByName(`report-bounds-${crypto.randomUUID()}`);
    await runInDurableObject(stub, (_instance, state) => {
      const reports = new ReportTasks(state.storage.sql, { maxTasks: 3, ttlMs: 1_000 });
      const ids = [0, 1, 2, 3, 4].map((i) => reports.create({ durationMs: 500 }, 10_000 + i).taskId);
      expect(reports.count()).toBe(3);
      expect(reports.get(ids[0]!, 10_010)).toBeUndefined(); // the oldest went first
      expect(reports.get(ids[4]!, 10_010)).toBeDefined();
      expect(reports.get(ids[4]!, 11_004)).toBeUndefined(); // past its ttl
      expect(reports.count()).toBe(0);
    });
  });
});

describe('build_report through a conversation', () => {
  type Chunk = UIMessageChunk & { type: string; data?: unknown };

  /** A turn whose model calls `tool` first, then says what it gave; the model stays set for the continuation. */
  async function startTurn(id: string, tool: string, args: Record<string, unknown>) {
    const model = scriptedModel((call, index) => {
      if (index === 0) return callTools([tool, args]);
      const result = toolResults(call.prompt).at(-1);
      return say(result ? `${result.error ? 'Failed' : 'Result'}: ${result.text}` : 'no result');
    });
    const chunks = await runInDurableObject(await conversationStub(id), async (instance) => {
      instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
      const stream = await instance.parts.turns.start({ kind: 'message', newMessages: [userMessage('a report')] });
      const all: Chunk[] = [];
      const reader = stream.reader().getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value as Chunk);
      return all;
    });
    return { chunks, model };
  }
  const lastAnswer = async (id: string): Promise<UIMessage> =>
    (await runInDurableObject(await conversationStub(id), (instance) => instance.parts.history.load())).at(-1)!;
  const textOf = (message: UIMessage) => message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
  const taskOf = (message: UIMessage) =>
    (message.parts.find((p) => p.type === 'data-task') as { data: TaskNotice } | undefined)?.data;

  it('the call becomes a task, followed by the conversation; the answer goes on with the report', async () => {
    const id = await createConversation();
    const { chunks, model } = await startTurn(id, 'demo__build_report', { topic: 'the sprint', seconds: 2 });
    const notice = chunks.find((c) => c.type === 'data-task')?.data as TaskNotice | undefined;
    expect(notice).toMatchObject({ server: 'demo', tool: 'build_report', status: 'working' });
    expect(chunks.find((c) => c.type === 'finish')).toMatchObject({ messageMetadata: { waitingForTasks: true } });

    await expect
      .poll(async () => textOf(await lastAnswer(id)), { timeout: 15_000 })
      .toContain('Result: Report: the sprint');
    const done = await lastAnswer(id);
    expect(taskOf(done)).toMatchObject({ status: 'completed', taskId: notice!.taskId });
    expect(done.parts.find((p) => p.type === 'tool-demo__build_report')).toMatchObject({ state: 'output-available' });
    expect(model.doStreamCalls).toHaveLength(2);
  });

  it('Stop cancels the task on the demo server', async () => {
    const id = await createConversation();
    const { chunks } = await startTurn(id, 'demo__build_report', { seconds: 60 });
    const notice = chunks.find((c) => c.type === 'data-task')?.data as TaskNotice;
    const stopped = await api(`/v1/conversations/${id}/stream`, { method: 'DELETE' });
    expect(await stopped.json()).toEqual({ stopped: true });
    expect(taskOf(await lastAnswer(id))?.status).toBe('cancelled');
    expect((await getTask(notice.taskId)).result).toMatchObject({ status: 'cancelled' });
  });

  it('a 2025 session answers inline: the turn streams the call’s progress (transient data-progress parts)', async () => {
    const ERAS = { authorization: 'Bearer test-key-eras', 'x-end-user': 'reporter' };
    const id = await createConversation(ERAS);
    const { chunks } = await startTurn(id, 'demo2025__build_report', { seconds: 2 });
    const progress = chunks.filter((c) => c.type === 'data-progress');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((c) => (c as { transient?: boolean }).transient)).toBe(true);
    expect(progress.at(-1)!.data as ToolProgress).toMatchObject({
      server: 'demo2025',
      tool: 'build_report',
      progress: 2,
      total: 2,
      message: 'Report ready',
    });
    expect(chunks.some((c) => c.type === 'data-task')).toBe(false);
    expect(textOf(await lastAnswer(id))).toContain('Result: Report (');
  });
});
