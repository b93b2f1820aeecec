import {
  type CallToolResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { reportPhase, reportText } from './report';
import { type ReportTask, type ReportTasks, reportTaskStatus } from './report-tasks';
import type { DemoStore } from './store';

/*
 * The demo's long-running tool, `build_report`: a report of the task board
 * that takes `seconds` to write. The SDK v2 has no task runtime, so the MCP
 * Tasks extension (io.modelcontextprotocol/tasks, SEP-2663, 2026-07-28) is
 * served here with low-level handlers, as a server written today would:
 *
 * - a client that declares the extension on the request gets
 *   `resultType: "task"` at once; `tasks/get` then says where the report is
 *   (a status message per step) and, once its time is up, gives the report;
 *   `tasks/cancel` cancels it; an unknown task is -32602. The task is a row in
 *   SQLite (report-tasks.ts) and its state is computed from its start time,
 *   so nothing runs between polls and an evicted object loses nothing;
 * - any other client (2025-11-25 sessions included) gets the report
 *   synchronously after the same wait, with `notifications/progress` each
 *   second when the request carries a progressToken (so a host's request
 *   timeout starts again at each one).
 */

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** `seconds` the tool accepts, and takes when not told. */
export const REPORT_SECONDS = { min: 2, max: 120, default: 20 } as const;

/** How often a client should ask (`pollIntervalMs`): the status message changes every quarter of the time. */
const POLL_INTERVAL_MS = 1_000;

export interface BuildReportHost {
  store: DemoStore;
  reports: ReportTasks;
  /** This instance serves 2026-07-28 requests: it may answer with a task and serves the extension's methods. */
  tasks: boolean;
}

export function registerBuildReport(server: McpServer, host: BuildReportHost): void {
  const tool = server.registerTool(
    'build_report',
    {
      title: 'Build report',
      description:
        'Writes a status report of the task board: open work and its estimates, what was done. It takes a while ' +
        `(\`seconds\`, ${REPORT_SECONDS.default} by default), so it runs as a task where the client supports MCP Tasks.`,
      inputSchema: z.object({
        topic: z.string().trim().max(200).optional().describe('What the report is for, e.g. "release 4.18"'),
        seconds: z
          .number()
          .int()
          .min(REPORT_SECONDS.min)
          .max(REPORT_SECONDS.max)
          .default(REPORT_SECONDS.default)
          .describe('How long writing it takes'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ topic, seconds }, ctx) => {
      if (!host.tasks || !declaresTasks(ctx)) return reportInline(host.store, { topic, seconds }, ctx);
      const now = Date.now();
      const task = host.reports.create({ topic, durationMs: seconds * 1000 }, now);
      return { resultType: 'task', ...taskView(host, task, now) } as never;
    },
  );
  // The SDK's config has no `execution`; its tools/list reads it from the registered tool (2026 results drop it).
  tool.execution = { taskSupport: 'optional' };
  if (!host.tasks) return;

  // The extension's methods: not spec methods of the SDK, so registered with their params schema (3-argument form).
  const TaskParams = { params: z.looseObject({ taskId: z.string() }) };
  const find = (taskId: string, now: number): ReportTask => {
    const task = host.reports.get(taskId, now);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return task;
  };
  server.server.setRequestHandler('tasks/get', TaskParams, ({ taskId }) => {
    const now = Date.now();
    return taskView(host, find(taskId, now), now) as never;
  });
  // build_report never asks the user anything: an answer is acknowledged and changes nothing.
  server.server.setRequestHandler('tasks/update', TaskParams, ({ taskId }) => {
    find(taskId, Date.now());
    return {} as never;
  });
  server.server.setRequestHandler('tasks/cancel', TaskParams, ({ taskId }) => {
    const now = Date.now();
    find(taskId, now);
    host.reports.cancel(taskId, now);
    return {} as never;
  });
}

/** Whether the request's client capabilities (2026: in its `_meta` envelope) declare the extension. */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as
    | Record<string, { extensions?: Record<string, unknown> } | undefined>
    | undefined;
  return Boolean(envelope?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION]);
}

/** The task as the extension shows it (a CreateTaskResult without its resultType; a tasks/get result). */
function taskView(host: BuildReportHost, task: ReportTask, now: number) {
  const status = reportTaskStatus(task, now);
  const phase = reportPhase(now - task.createdAt, task.durationMs);
  const base = {
    taskId: task.taskId,
    status,
    statusMessage: status === 'cancelled' ? 'Cancelled by the client' : phase.message,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.cancelledAt ?? task.createdAt + phase.stepStartedMs).toISOString(),
    ttlMs: task.ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  if (status !== 'completed') return base;
  const report =
    task.result ??
    host.reports.complete(task.taskId, writeReport(host.store, task.topic, task.createdAt + task.durationMs));
  return { ...base, result: text(report) };
}

const writeReport = (store: DemoStore, topic: string | null | undefined, at: number) =>
  reportText({
    topic: topic ?? undefined,
    tasks: store.listTasks('all'),
    guidelines: store.guidelines(),
    at: new Date(at),
  });

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** The report after the wait, for a client that cannot follow a task: progress each second if it asked for it. */
async function reportInline(
  store: DemoStore,
  { topic, seconds }: { topic?: string | undefined; seconds: number },
  ctx: ServerContext,
): Promise<CallToolResult> {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  const signal = ctx.mcpReq.signal;
  const durationMs = seconds * 1000;
  for (let second = 0; second <= seconds; second++) {
    if (second > 0) await sleep(1_000, signal);
    if (signal.aborted) return { isError: true, ...text('Cancelled before the report was written.') };
    if (progressToken === undefined) continue;
    await ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress: second,
          total: seconds,
          message: reportPhase(second * 1000, durationMs).message,
        },
      })
      .catch(() => undefined); // a client gone away stops nothing here: the signal does
  }
  return text(writeReport(store, topic, Date.now()));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
