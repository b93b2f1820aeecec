import { specTypeSchemas, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { ServerCapabilities } from '../../../../shared/api/catalog';
import type { McpConnection, Progress } from '../../connection/connection';
import { TASK_RESULT_KEY, TASKS_EXTENSION } from './task-results';
import { legacyTask, modernTask, type TaskSnapshot } from './task-schemas';

/*
 * Tool calls that run as tasks (MCP Tasks), in both eras, on one connection:
 * starting one, polling it, answering its questions, cancelling it. The SDK
 * v2 has no task runtime, so these are plain requests with our own schemas
 * (task-schemas.ts); the SDK still frames them, names them (`Mcp-Name`) and
 * applies our time limits.
 */

export type TaskEra = 'modern' | 'legacy';

/** A tool call the server runs as a task: what the conversation keeps to follow it. */
export interface StartedTask {
  kind: 'task';
  taskId: string;
  era: TaskEra;
  snapshot: TaskSnapshot;
}

/** A tool call's outcome is a task (a CallToolResult has an open index signature: `in` does not narrow it). */
export function isStartedTask(outcome: CallToolResult | StartedTask): outcome is StartedTask {
  return (
    (outcome as StartedTask).kind === 'task' &&
    typeof (outcome as StartedTask).taskId === 'string' &&
    'snapshot' in outcome
  );
}

/**
 * Whether `tools/call` may come back as a task from this server: 2026, it
 * announced the extension; 2025, it announced task-augmented tool calls
 * (`tasks.requests.tools.call`, a server capability).
 */
export function runsToolTasks(capabilities: ServerCapabilities | undefined, era: TaskEra | undefined): boolean {
  if (era === 'modern') return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

/** A 2025 tool's `execution.taskSupport` (absent: forbidden). 2026 servers strip it: the server decides per call. */
export function taskSupportOf(tool: Pick<Tool, 'execution'> | undefined): 'required' | 'optional' | 'forbidden' {
  const support = (tool?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'required' || support === 'optional' ? support : 'forbidden';
}

/** The era a server's state was spoken in (its protocolVersion). */
export const eraOf = (protocolVersion: string | undefined): TaskEra =>
  protocolVersion !== undefined && protocolVersion >= '2026' ? 'modern' : 'legacy';

/**
 * Tools that must run as a task (`taskSupport: "required"`) on a server whose
 * task-augmented calls we cannot make (it does not announce them): such a
 * tool is never called without a task, so it is kept from the model.
 */
export function unusableTaskTools(state: {
  tools: Tool[];
  capabilities?: ServerCapabilities | undefined;
  protocolVersion?: string | undefined;
}): string[] {
  if (runsToolTasks(state.capabilities, eraOf(state.protocolVersion))) return [];
  return state.tools.filter((tool) => taskSupportOf(tool) === 'required').map((tool) => tool.name);
}

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** Our catalog's definition (the SDK checks the output against its schema). */
  definition?: Tool | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: Progress) => void) | undefined;
  /** What a 2025 task may live for, asked of the server (it may answer otherwise). */
  ttlMs: number;
}

/**
 * `tools/call`: the server's result, or the task it started. On 2026 the
 * server decides (task-results.ts hands its task over); on 2025 a tool
 * whose `taskSupport` allows it is called task-augmented when the server
 * runs tool tasks — a `required` one can be called no other way.
 */
export async function callTool(
  connection: McpConnection,
  capabilities: ServerCapabilities | undefined,
  call: ToolCall,
): Promise<CallToolResult | StartedTask> {
  const era = connection.era;
  if (era === 'legacy' && taskSupportOf(call.definition) !== 'forbidden' && runsToolTasks(capabilities, era)) {
    const created = await connection.call(
      (client, options) =>
        client.request(
          {
            method: 'tools/call',
            params: { name: call.name, arguments: call.arguments, task: { ttl: call.ttlMs } },
          } as never,
          specTypeSchemas.CreateTaskResult,
          options,
        ),
      { idempotent: false, signal: call.signal, method: 'tools/call' },
    );
    const snapshot = legacyTask((created as { task?: unknown }).task);
    if (!snapshot) throw new Error('the server answered the task-augmented call without a valid task');
    return { kind: 'task', taskId: snapshot.taskId, era: 'legacy', snapshot };
  }
  const result = (await connection.call(
    (client, options) =>
      client.callTool(
        { name: call.name, arguments: call.arguments },
        { ...options, ...(call.definition ? { toolDefinition: call.definition } : {}) },
      ),
    { idempotent: false, signal: call.signal, method: 'tools/call', onProgress: call.onProgress },
  )) as CallToolResult;
  const task = result._meta?.[TASK_RESULT_KEY];
  if (task === undefined) return result;
  const snapshot = modernTask(task);
  if (!snapshot) throw new Error('the server answered with a task the Tasks extension does not allow');
  return { kind: 'task', taskId: snapshot.taskId, era: 'modern', snapshot };
}

const Loose = z.looseObject({});

/**
 * `tasks/get`: where the task is now. A 2025 task that completed gets its
 * result from `tasks/result` (2025 `tasks/get` does not embed it; it answers
 * at once for a finished task).
 */
export async function getTask(
  connection: McpConnection,
  task: { taskId: string; era: TaskEra },
  signal?: AbortSignal,
): Promise<TaskSnapshot> {
  const answer = await connection.call(
    (client, options) =>
      client.request({ method: 'tasks/get', params: { taskId: task.taskId } } as never, Loose, options),
    {
      signal,
      method: 'tasks/get',
    },
  );
  const snapshot = task.era === 'modern' ? modernTask(answer) : legacyTask(answer);
  if (!snapshot) throw new Error('tasks/get answered without a valid task');
  if (task.era === 'legacy' && snapshot.status === 'completed')
    return { ...snapshot, result: await taskResult(connection, task.taskId, { signal }) };
  return snapshot;
}

/**
 * `tasks/result` (2025): the task's result once it has ended — and, while it has not, the server holds the request and
 * delivers the task's questions (`elicitation/create` with the related-task meta) on its stream, then answers when the
 * task ends. So a task in `input_required` is asked with the whole time it may still run (`timeoutMs`): a 2025 request
 * the SDK gives up on keeps its stream open until the session ends.
 */
export async function taskResult(
  connection: McpConnection,
  taskId: string,
  { signal, timeoutMs }: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } = {},
): Promise<CallToolResult> {
  return connection.call(
    (client, options) =>
      client.request({ method: 'tasks/result', params: { taskId } } as never, specTypeSchemas.CallToolResult, options),
    { signal, method: 'tasks/result', timeoutMs },
  ) as Promise<CallToolResult>;
}

/** `tasks/update` (2026): the user's answers to the task's questions, by key. The server takes them eventually: poll again. */
export async function updateTask(
  connection: McpConnection,
  taskId: string,
  inputResponses: Record<string, unknown>,
): Promise<void> {
  await connection.call(
    (client, options) =>
      client.request({ method: 'tasks/update', params: { taskId, inputResponses } } as never, Loose, options),
    {
      method: 'tasks/update',
      idempotent: false,
    },
  );
}

/** `tasks/cancel`: cooperative — the server may still finish it; we stop following it either way. */
export async function cancelTask(connection: McpConnection, taskId: string): Promise<void> {
  await connection.call(
    (client, options) => client.request({ method: 'tasks/cancel', params: { taskId } } as never, Loose, options),
    {
      method: 'tasks/cancel',
      idempotent: false,
    },
  );
}
