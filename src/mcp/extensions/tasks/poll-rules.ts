import { TERMINAL_STATUSES, type TaskStatus } from './task-schemas';

/*
 * How a task is followed, whoever follows it: the conversation's alarm for a turn's calls
 * (turn/tasks/task-follower.ts) and McpSessions.callToolToEnd for a caller that waits (an MCP Apps view's
 * call). One rule for when to look again and one for when to stop looking.
 */

/** How long until a task is polled again: the server's `pollIntervalMs` (or `fallback`), kept within [min, max]. */
export function pollDelay(
  pollIntervalMs: number | undefined,
  { min, max, fallback = min }: { min: number; max: number; fallback?: number },
): number {
  return Math.min(max, Math.max(min, pollIntervalMs ?? fallback));
}

/** The task has ended (completed, failed or cancelled): polling it again tells nothing new. */
export function taskEnded(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}
