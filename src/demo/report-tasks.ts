/**
 * The demo's `build_report` tasks (MCP Tasks), one row each in the demo
 * Durable Object's SQLite storage: what was asked and when, whether it was
 * cancelled, and the report once written. A task's status is computed from
 * its start time when someone asks (build-report.ts), so nothing runs in the
 * background and a task survives the object's eviction. The demo answers
 * anyone, so the table is bounded: a task is forgotten `ttlMs` after it
 * started (its ttl, as announced to the client), and past `maxTasks` the
 * oldest go first.
 */
export interface ReportTask {
  taskId: string;
  topic: string | null;
  /** How long the report takes, in ms. */
  durationMs: number;
  createdAt: number;
  cancelledAt: number | null;
  /** The report, written the first time the task was read after its time was up. */
  result: string | null;
  ttlMs: number;
}

export type ReportTaskStatus = 'working' | 'completed' | 'cancelled';

export interface ReportTaskLimits {
  /** Most tasks kept; past it the oldest are dropped. */
  maxTasks: number;
  /** How long a task is kept after it started (its `ttlMs`). */
  ttlMs: number;
}

export const REPORT_TASK_LIMITS: ReportTaskLimits = { maxTasks: 200, ttlMs: 60 * 60_000 };

type Row = {
  task_id: string;
  topic: string | null;
  duration_ms: number;
  created_at: number;
  cancelled_at: number | null;
  result: string | null;
  ttl_ms: number;
};

/** Where a task is at `now`: cancelled, completed once its time is up, working before. */
export function reportTaskStatus(task: ReportTask, now: number): ReportTaskStatus {
  if (task.cancelledAt !== null) return 'cancelled';
  return now - task.createdAt >= task.durationMs ? 'completed' : 'working';
}

export class ReportTasks {
  constructor(
    private readonly sql: SqlStorage,
    private readonly limits: ReportTaskLimits = REPORT_TASK_LIMITS,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS report_tasks (
      task_id TEXT PRIMARY KEY,
      topic TEXT,
      duration_ms INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      cancelled_at INTEGER,
      result TEXT,
      ttl_ms INTEGER NOT NULL
    )`);
  }

  get ttlMs(): number {
    return this.limits.ttlMs;
  }

  /** A new task, started at `now` (expired ones dropped first, then the oldest until it fits). */
  create(input: { topic?: string | undefined; durationMs: number }, now: number): ReportTask {
    this.dropExpired(now);
    const keep = Math.max(0, this.limits.maxTasks - 1);
    this.sql.exec(
      `DELETE FROM report_tasks WHERE task_id NOT IN (SELECT task_id FROM report_tasks ORDER BY created_at DESC LIMIT ?)`,
      keep,
    );
    const task: ReportTask = {
      taskId: crypto.randomUUID(),
      topic: input.topic ?? null,
      durationMs: input.durationMs,
      createdAt: now,
      cancelledAt: null,
      result: null,
      ttlMs: this.limits.ttlMs,
    };
    this.sql.exec(
      `INSERT INTO report_tasks (task_id, topic, duration_ms, created_at, ttl_ms) VALUES (?, ?, ?, ?, ?)`,
      task.taskId,
      task.topic,
      task.durationMs,
      task.createdAt,
      task.ttlMs,
    );
    return task;
  }

  /** The task, unless it is unknown or past its ttl at `now`. */
  get(taskId: string, now: number): ReportTask | undefined {
    this.dropExpired(now);
    const row = this.sql.exec<Row>(`SELECT * FROM report_tasks WHERE task_id = ?`, taskId).toArray()[0];
    return row && toTask(row);
  }

  /** Cancels a working task (a finished one stays as it ended). Returns the task as it is now. */
  cancel(taskId: string, now: number): ReportTask | undefined {
    const task = this.get(taskId, now);
    if (!task || reportTaskStatus(task, now) !== 'working') return task;
    this.sql.exec(`UPDATE report_tasks SET cancelled_at = ? WHERE task_id = ?`, now, taskId);
    return { ...task, cancelledAt: now };
  }

  /** Keeps the report of a completed task (the first one written wins, so every read gives the same). */
  complete(taskId: string, result: string): string {
    this.sql.exec(`UPDATE report_tasks SET result = COALESCE(result, ?) WHERE task_id = ?`, result, taskId);
    return (
      this.sql.exec<{ result: string | null }>(`SELECT result FROM report_tasks WHERE task_id = ?`, taskId).toArray()[0]
        ?.result ?? result
    );
  }

  /** How many tasks are kept (tests, operators). */
  count(): number {
    return this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM report_tasks`).one().n;
  }

  private dropExpired(now: number): void {
    this.sql.exec(`DELETE FROM report_tasks WHERE created_at + ttl_ms <= ?`, now);
  }
}

function toTask(row: Row): ReportTask {
  return {
    taskId: row.task_id,
    topic: row.topic,
    durationMs: row.duration_ms,
    createdAt: row.created_at,
    cancelledAt: row.cancelled_at,
    result: row.result,
    ttlMs: row.ttl_ms,
  };
}
