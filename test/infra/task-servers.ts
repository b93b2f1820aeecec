// An MCP server with long-running tools (TEST_PORT_BASE + 10), built on the
// official SDK v2 — which has no task runtime — with low-level handlers for
// the Tasks extension (io.modelcontextprotocol/tasks, SEP-2663, MCP 2026-07-28):
// a `tools/call` answered `resultType: "task"`, then `tasks/get`,
// `tasks/update` and `tasks/cancel`. A client that does not declare the
// extension gets each tool's answer synchronously (after the same wait).
//
//   build {steps, stepMs}   completes after its steps, a status message each
//   explode                 fails (the task's JSON-RPC error)
//   ask_name {key?}         needs input (an elicitation, under `key`: 'name' by default), then greets
//   wait_forever            works until it is cancelled
//   vanish                  forgotten by the server after its first tasks/get
//   count {steps, stepMs}   never a task: a synchronous call with progress
//   echo_task               a careless task: its status message and result repeat the credential it was sent
//   chatty                  a task whose status message is 3 MB long, and whose failure's message too
//
// Control: GET /__control/state (every task: tool, status, polls, whether it
// was cancelled; requests by method); POST /__control/reset.
import { AsyncLocalStorage } from 'node:async_hooks';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, ProtocolError, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

interface TaskRecord {
  taskId: string;
  tool: string;
  status: Status;
  statusMessage?: string | undefined;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: unknown;
  error?: { code: number; message: string } | undefined;
  inputRequests?: Record<string, unknown> | undefined;
  /** tasks/get calls answered. */
  polls: number;
  cancelRequested: boolean;
  /** Wakes a task waiting for input (or for cancellation). */
  wake?: (() => void) | undefined;
  answer?: { action: string; content?: Record<string, unknown> } | undefined;
  /** The key its question was asked under (ask_name). */
  inputKey?: string | undefined;
}

const tasks = new Map<string, TaskRecord>();
/** The Authorization header of the request being served (echo_task repeats it). */
const caller = new AsyncLocalStorage<string>();
const methods: Record<string, number> = {};
const now = () => new Date().toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TERMINAL = new Set<Status>(['completed', 'failed', 'cancelled']);

function view(task: TaskRecord) {
  return {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    ...(task.status === 'completed' ? { result: task.result } : {}),
    ...(task.status === 'failed' ? { error: task.error } : {}),
    ...(task.status === 'input_required' ? { inputRequests: task.inputRequests } : {}),
  };
}

function update(task: TaskRecord, patch: Partial<TaskRecord>): void {
  if (TERMINAL.has(task.status)) return; // a cancelled task stays cancelled, whatever its work does next
  Object.assign(task, patch, { lastUpdatedAt: now() });
}

/** Whether the request's client capabilities (2026: in its `_meta` envelope) declare the extension. */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as
    | Record<string, { extensions?: Record<string, unknown> } | undefined>
    | undefined;
  return Boolean(envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION]);
}

function find(taskId: string): TaskRecord {
  const task = tasks.get(taskId);
  if (!task) throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
  return task;
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * A tool's work as a task (the client declared the extension) or inline:
 * `work` updates the task as it goes and returns the final tool result (or
 * throws a ProtocolError: the task fails with it).
 */
async function taskOr(ctx: ServerContext, tool: string, work: (task: TaskRecord) => Promise<unknown>) {
  const task: TaskRecord = {
    taskId: crypto.randomUUID(),
    tool,
    status: 'working',
    statusMessage: 'Starting',
    createdAt: now(),
    lastUpdatedAt: now(),
    ttlMs: 600_000,
    pollIntervalMs: 100,
    polls: 0,
    cancelRequested: false,
  };
  if (!declaresTasks(ctx)) return (await work(task)) as never;
  tasks.set(task.taskId, task);
  void work(task).then(
    (result) => update(task, { status: 'completed', statusMessage: 'Done', result }),
    (error: unknown) =>
      update(task, {
        status: 'failed',
        statusMessage: error instanceof Error ? error.message : String(error),
        error: {
          code: error instanceof ProtocolError ? error.code : -32603,
          message: error instanceof Error ? error.message : String(error),
        },
      }),
  );
  return { resultType: 'task', ...view(task) } as never;
}

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'tasks-test', version: '2.4.0' },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
  );
  server.registerTool(
    'build',
    {
      description: 'Builds the project (takes a while)',
      inputSchema: z.object({
        steps: z.number().int().min(1).default(3),
        stepMs: z.number().int().min(0).default(150),
      }),
    },
    ({ steps, stepMs }, ctx) =>
      taskOr(ctx, 'build', async (task) => {
        for (let i = 1; i <= steps; i++) {
          await sleep(stepMs);
          update(task, { statusMessage: `Step ${i} of ${steps}` });
        }
        return text(`Built in ${steps} steps.`);
      }),
  );
  server.registerTool('explode', { description: 'A build that fails', inputSchema: z.object({}) }, (_args, ctx) =>
    taskOr(ctx, 'explode', async () => {
      await sleep(100);
      throw new ProtocolError(-32603, 'The build machine caught fire');
    }),
  );
  server.registerTool(
    'ask_name',
    {
      description: 'Greets the user, asking their name first',
      inputSchema: z.object({ key: z.string().default('name') }),
    },
    ({ key }, ctx) =>
      taskOr(ctx, 'ask_name', async (task) => {
        await sleep(50);
        task.inputKey = key;
        update(task, {
          status: 'input_required',
          statusMessage: 'Waiting for a name',
          inputRequests: {
            [key]: {
              method: 'elicitation/create',
              params: {
                mode: 'form',
                message: 'What is your name?',
                requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
              },
            },
          },
        });
        await new Promise<void>((resolve) => (task.wake = resolve));
        update(task, { status: 'working', statusMessage: 'Greeting', inputRequests: undefined });
        const name = task.answer?.action === 'accept' ? String(task.answer.content?.name ?? '') : '';
        return text(name ? `Hello, ${name}!` : 'Hello, stranger (no name was given).');
      }),
  );
  server.registerTool(
    'chatty',
    { description: 'A task that says far too much', inputSchema: z.object({}) },
    (_a, ctx) =>
      taskOr(ctx, 'chatty', async (task) => {
        update(task, { statusMessage: `Working: ${'x'.repeat(3_000_000)}` });
        await sleep(300);
        throw new ProtocolError(-32603, `Gave up: ${'y'.repeat(3_000_000)}`);
      }),
  );
  server.registerTool(
    'echo_task',
    { description: 'A task that repeats the credential it was sent', inputSchema: z.object({}) },
    (_args, ctx) => {
      const credential = caller.getStore() ?? '(none)';
      return taskOr(ctx, 'echo_task', async (task) => {
        update(task, { statusMessage: `Working with ${credential}` });
        await sleep(300);
        return text(`Done with ${credential}`);
      });
    },
  );
  server.registerTool(
    'wait_forever',
    { description: 'Waits until it is cancelled', inputSchema: z.object({}) },
    (_args, ctx) =>
      taskOr(ctx, 'wait_forever', async (task) => {
        update(task, { statusMessage: 'Waiting' });
        await new Promise<void>((resolve) => (task.wake = resolve));
        return text('woke up');
      }),
  );
  server.registerTool('vanish', { description: 'A task the server forgets', inputSchema: z.object({}) }, (_args, ctx) =>
    taskOr(ctx, 'vanish', async () => {
      await new Promise(() => {});
      return text('never');
    }),
  );
  server.registerTool(
    'count',
    {
      description: 'Counts slowly, reporting progress',
      inputSchema: z.object({
        steps: z.number().int().min(1).default(4),
        stepMs: z.number().int().min(0).default(100),
      }),
    },
    async ({ steps, stepMs }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(stepMs);
        if (progressToken !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: steps, message: `Counted ${i}` },
          });
      }
      return text(`Counted to ${steps}.`);
    },
  );

  // The extension's methods: not spec methods of the SDK, so registered with their params schema (3-argument form).
  server.server.setRequestHandler('tasks/get', { params: z.looseObject({ taskId: z.string() }) }, ({ taskId }) => {
    const task = find(taskId);
    task.polls++;
    if (task.tool === 'vanish' && task.polls > 1) {
      tasks.delete(taskId);
      throw new ProtocolError(-32602, 'Failed to retrieve task: Task not found');
    }
    return view(task) as never;
  });
  server.server.setRequestHandler(
    'tasks/update',
    { params: z.looseObject({ taskId: z.string() }) },
    ({ taskId }, ctx) => {
      const task = find(taskId);
      // The SDK lifts params.inputResponses into ctx.mcpReq.inputResponses.
      const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, TaskRecord['answer']>;
      const answer = responses[task.inputKey ?? 'name'];
      if (task.status === 'input_required' && answer) {
        task.answer = answer;
        task.wake?.();
      }
      return {} as never;
    },
  );
  server.server.setRequestHandler('tasks/cancel', { params: z.looseObject({ taskId: z.string() }) }, ({ taskId }) => {
    const task = find(taskId);
    task.cancelRequested = true;
    update(task, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
    task.wake?.();
    return {} as never;
  });
  return server;
}

async function face(handler: ReturnType<typeof createMcpHandler>, request: Request): Promise<Response> {
  const method = request.headers.get('mcp-method');
  if (method) methods[method] = (methods[method] ?? 0) + 1;
  return caller.run(request.headers.get('authorization') ?? '(none)', () => handler.fetch(request));
}

function control(action: string, res: ServerResponse): void {
  const reply = (body: unknown) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (action === 'state') {
    reply({
      methods,
      tasks: [...tasks.values()].map((t) => ({
        taskId: t.taskId,
        tool: t.tool,
        status: t.status,
        polls: t.polls,
        cancelRequested: t.cancelRequested,
      })),
    });
    return;
  }
  if (action === 'reset') {
    for (const task of tasks.values()) task.wake?.();
    tasks.clear();
    for (const key of Object.keys(methods)) delete methods[key];
    reply({ ok: true });
    return;
  }
  res.writeHead(404).end();
}

export async function startTaskServers(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(buildServer, { legacy: 'reject', onerror: () => {} });
  const node = toNodeHandler({ fetch: (request: Request) => face(handler, request) }, { onerror: () => {} });
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const [, first, second] = (req.url ?? '/').split('?')[0]!.split('/');
    if (first === '__control') return control(second ?? '', res);
    if (first === 'mcp') return void node(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const task of tasks.values()) task.wake?.();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
