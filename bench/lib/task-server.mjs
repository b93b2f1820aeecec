// An MCP server with one long-running tool for the tasks benchmark
// (bench/tasks.mjs), in Node on 127.0.0.1: the official SDK v2 with
// low-level handlers for the Tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663, MCP 2026-07-28), as test/infra/task-servers.ts does, plus what a
// benchmark needs to read off it: when each task switched to `completed`,
// and when every `tasks/get` was answered and with which status.
//
//   job {ms, pollIntervalMs, progressMs}   a task (when the client declares the extension) that completes `ms`
//                                          after it started (0: only when `complete()` is called); the server
//                                          asks to be polled every `pollIntervalMs`; with `progressMs` its
//                                          statusMessage changes that often ("Step n"), else it stays "Working"
//   echo {text}                            never a task: answers at once (the baseline conversation's tool)
//
// In-process control (no HTTP): `tasks()`, `complete(taskId?)`, `requests()` (MCP requests by method, with the
// time of each), `reset()`. Times are `Date.now()` of this process, the benchmark's own clock.
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, ProtocolError } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * @typedef {{ taskId: string, status: string, statusMessage: string, createdAt: string, lastUpdatedAt: string,
 *   ttlMs: number, pollIntervalMs: number, result?: unknown, startedAt: number, completedAt?: number,
 *   polls: Array<{ at: number, status: string }>, timers: ReturnType<typeof setTimeout>[] }} Task
 */

export async function startTaskServer({ port }) {
  /** @type {Map<string, Task>} */
  const tasks = new Map();
  /** @type {Array<{ method: string, at: number }>} */
  let requests = [];

  const view = (task) => ({
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    statusMessage: task.statusMessage,
    ...(task.status === 'completed' ? { result: task.result } : {}),
  });
  const update = (task, patch) => {
    if (TERMINAL.has(task.status)) return;
    Object.assign(task, patch, { lastUpdatedAt: new Date().toISOString() });
  };
  const finish = (task) => {
    if (TERMINAL.has(task.status)) return;
    for (const timer of task.timers) clearTimeout(timer), clearInterval(timer);
    const elapsed = ((Date.now() - task.startedAt) / 1000).toFixed(1);
    update(task, {
      status: 'completed',
      statusMessage: 'Done',
      result: { content: [{ type: 'text', text: `The job finished after ${elapsed} s.` }] },
    });
    task.completedAt = Date.now();
  };
  const declaresTasks = (ctx) =>
    Boolean(ctx.mcpReq.envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION]);

  function buildServer() {
    const server = new McpServer(
      { name: 'bench-jobs', version: '1.0.0' },
      { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
    );
    server.registerTool(
      'job',
      {
        description: 'Runs a long job (a task)',
        inputSchema: z.object({
          ms: z.number().int().min(0).default(0),
          pollIntervalMs: z.number().int().min(1).default(1000),
          progressMs: z.number().int().min(0).default(0),
        }),
      },
      ({ ms, pollIntervalMs, progressMs }, ctx) => {
        if (!declaresTasks(ctx)) throw new ProtocolError(-32602, 'This benchmark tool runs as a task only');
        const now = new Date().toISOString();
        /** @type {Task} */
        const task = {
          taskId: crypto.randomUUID(),
          status: 'working',
          statusMessage: 'Working',
          createdAt: now,
          lastUpdatedAt: now,
          ttlMs: 3_600_000,
          pollIntervalMs,
          startedAt: Date.now(),
          polls: [],
          timers: [],
        };
        tasks.set(task.taskId, task);
        if (ms > 0) task.timers.push(setTimeout(() => finish(task), ms));
        if (progressMs > 0) {
          let step = 0;
          task.timers.push(setInterval(() => update(task, { statusMessage: `Step ${++step}` }), progressMs));
        }
        return { resultType: 'task', ...view(task) };
      },
    );
    server.registerTool(
      'echo',
      { description: 'Says the text back at once', inputSchema: z.object({ text: z.string().default('') }) },
      ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
    server.server.setRequestHandler('tasks/get', { params: z.looseObject({ taskId: z.string() }) }, ({ taskId }) => {
      const task = tasks.get(taskId);
      if (!task) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
      task.polls.push({ at: Date.now(), status: task.status });
      return view(task);
    });
    server.server.setRequestHandler('tasks/cancel', { params: z.looseObject({ taskId: z.string() }) }, ({ taskId }) => {
      const task = tasks.get(taskId);
      if (!task) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
      for (const timer of task.timers) clearTimeout(timer), clearInterval(timer);
      update(task, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
      return {};
    });
    return server;
  }

  const handler = createMcpHandler(buildServer, { legacy: 'reject', onerror: () => {} });
  const node = toNodeHandler({ fetch: (request) => handler.fetch(request) }, { onerror: () => {} });
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return void res.writeHead(404).end();
    const method = req.headers['mcp-method'];
    if (typeof method === 'string') requests.push({ method, at: Date.now() });
    void node(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    /** Every task, oldest first. */
    tasks: () => [...tasks.values()],
    task: (taskId) => tasks.get(taskId),
    /** Completes one task (or every running one) now. */
    complete(taskId) {
      for (const task of taskId ? [tasks.get(taskId)] : tasks.values()) if (task) finish(task);
    },
    /** MCP requests received, with their times (ms since the epoch), oldest first. */
    requests: () => requests,
    reset() {
      for (const task of tasks.values()) for (const timer of task.timers) clearTimeout(timer), clearInterval(timer);
      tasks.clear();
      requests = [];
    },
    async close() {
      for (const task of tasks.values()) for (const timer of task.timers) clearTimeout(timer), clearInterval(timer);
      await handler.close?.().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
