import type { TaskEra, TaskSnapshot } from '../../mcp/sessions';
import { ensureTables } from '../../sql-schema';

/** One tool call that became a task, as the conversation follows it (until its result is in the history). */
export interface TaskRow {
  toolCallId: string;
  server: string;
  tool: string;
  taskId: string;
  era: TaskEra;
  startedAt: number;
  /** Past this (TASK_MAX_MS after the start) the task is cancelled. */
  deadlineAt: number;
  nextPollAt: number;
  status: TaskSnapshot['status'];
  statusMessage?: string | undefined;
  pollIntervalMs?: number | undefined;
  /** Polls in a row that could not reach the server (backs off; the deadline still holds). */
  failures: number;
  /** Keys of the task's input requests already put to the user (asked once each, for the task's life). */
  asked: string[];
}

export const TASK_TABLES = `CREATE TABLE IF NOT EXISTS tool_tasks (
  tool_call_id TEXT PRIMARY KEY,
  row TEXT NOT NULL
)`;

/**
 * The running tasks of one conversation, in its SQLite: written when a tool
 * call becomes a task (before the turn's answer is saved), so an eviction,
 * restart or redeploy loses none; removed when the task's result (or its
 * end) is in the history. One JSON row each: they are few (TASKS_PER_CONVERSATION)
 * and always read whole.
 */
export class TaskStore {
  private cache: Map<string, TaskRow> | undefined;

  constructor(private readonly storage: DurableObjectStorage) {
    ensureTables(storage.sql, TASK_TABLES);
  }

  all(): TaskRow[] {
    this.cache ??= new Map(
      this.storage.sql
        .exec<{ tool_call_id: string; row: string }>(`SELECT tool_call_id, row FROM tool_tasks`)
        .toArray()
        .map((r) => [r.tool_call_id, JSON.parse(r.row) as TaskRow]),
    );
    return [...this.cache.values()];
  }

  get(toolCallId: string): TaskRow | undefined {
    this.all();
    return this.cache!.get(toolCallId);
  }

  put(row: TaskRow): void {
    this.all();
    this.storage.sql.exec(
      `INSERT OR REPLACE INTO tool_tasks (tool_call_id, row) VALUES (?, ?)`,
      row.toolCallId,
      JSON.stringify(row),
    );
    this.cache!.set(row.toolCallId, row);
  }

  /**
   * Only the time of the next poll changed (the task's usual poll: still working, nothing new): kept in memory, not
   * written — every poll would otherwise commit the row again (measured in bench:tasks). The stored time is then
   * in the past, so a new instance after an eviction polls at once, which is what it should do anyway.
   */
  reschedule(toolCallId: string, nextPollAt: number): void {
    const row = this.get(toolCallId);
    if (row) this.cache!.set(toolCallId, { ...row, nextPollAt });
  }

  remove(toolCallId: string): void {
    this.all();
    this.storage.sql.exec(`DELETE FROM tool_tasks WHERE tool_call_id = ?`, toolCallId);
    this.cache!.delete(toolCallId);
  }

  /** The earliest next poll, if any task runs. */
  nextPollAt(): number | undefined {
    const times = this.all().map((row) => row.nextPollAt);
    return times.length ? Math.min(...times) : undefined;
  }
}
