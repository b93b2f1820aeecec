import { z } from 'zod';

/*
 * The task shapes a server sends, in both eras, read into one: MCP Tasks
 * (io.modelcontextprotocol/tasks, SEP-2663) on 2026-07-28 — flat
 * `resultType: "task"` results, `ttlMs`, `pollIntervalMs`, `tasks/get`
 * embedding the outcome — and the 2025-11-25 experimental tasks — a nested
 * `{task}`, `ttl`, `pollInterval`, the outcome from `tasks/result`. The SDK
 * v2 has no task runtime and its task schemas are 2025's, so these are ours.
 * Loose objects: a server's extra fields are kept, never a reason to fail.
 */

export const TaskStatus = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

const ms = z.number().int().nonnegative();

/**
 * How much of a server's status message (or a failed task's error message) is kept: it is stored with the task,
 * re-sent with every poll's update and shown on the card, so a server's megabytes are cut as upstream error text is
 * (mcp/connection/errors.ts), saying how much was left out.
 */
export const TASK_TEXT_MAX_CHARS = 300;
const cut = (text: string) =>
  text.length > TASK_TEXT_MAX_CHARS
    ? `${text.slice(0, TASK_TEXT_MAX_CHARS)}… [${text.length - TASK_TEXT_MAX_CHARS} more characters]`
    : text;
const TaskText = z.string().transform(cut);

/** A 2026 task (CreateTaskResult, tasks/get, notifications/tasks): the fields both eras share, under 2026 names. */
const ModernTask = z.looseObject({
  taskId: z.string().min(1).max(512),
  status: TaskStatus,
  statusMessage: TaskText.optional(),
  createdAt: z.string().optional(),
  lastUpdatedAt: z.string().optional(),
  ttlMs: ms.nullable().optional(),
  pollIntervalMs: ms.optional(),
  /** `completed`: the tool's result. */
  result: z.unknown().optional(),
  /** `failed`: the JSON-RPC error. */
  error: z.looseObject({ code: z.number(), message: TaskText, data: z.unknown().optional() }).optional(),
  /** `input_required`: requests to the client by key (`elicitation/create`, …). */
  inputRequests: z.record(z.string(), z.looseObject({ method: z.string(), params: z.unknown().optional() })).optional(),
});

/** A 2025-11-25 task (the nested `task` of a CreateTaskResult, and tasks/get): `ttl`, `pollInterval`. */
const LegacyTask = z.looseObject({
  taskId: z.string().min(1).max(512),
  status: TaskStatus,
  statusMessage: TaskText.optional(),
  ttl: ms.nullable().optional(),
  pollInterval: ms.optional(),
});

/** What we keep of a task, whichever era it came from. */
export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string | undefined;
  /** How often the server asks to be polled. */
  pollIntervalMs?: number | undefined;
  /** How long the server keeps the task (null: unlimited). */
  ttlMs?: number | null | undefined;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown } | undefined;
  inputRequests?: Record<string, { method: string; params?: unknown }> | undefined;
}

/** A 2026 task object (a CreateTaskResult without its resultType, a tasks/get result, a notifications/tasks' params); undefined when it is not one. */
export function modernTask(value: unknown): TaskSnapshot | undefined {
  const parsed = ModernTask.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** A 2025 task object (`result.task` of a task-augmented tools/call, or a tasks/get result). */
export function legacyTask(value: unknown): TaskSnapshot | undefined {
  const parsed = LegacyTask.safeParse(value);
  if (!parsed.success) return undefined;
  const { ttl, pollInterval, ...rest } = parsed.data;
  return {
    ...rest,
    ...(ttl !== undefined ? { ttlMs: ttl } : {}),
    ...(pollInterval !== undefined ? { pollIntervalMs: pollInterval } : {}),
  };
}

/** The acknowledgement of tasks/update and tasks/cancel (2026): nothing we read. */
export const TaskAck = z.looseObject({});
