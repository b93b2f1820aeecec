import { DurableObject } from 'cloudflare:workers';

/** How long a place taken before places expired (no expiry recorded) is kept: TASK_MAX_MS's default, 2 h. */
const LEGACY_PLACE_MS = 2 * 60 * 60_000;

/** The one object per tenant and end user that counts their conversations holding live MCP sessions. */
export const liveConversationsOf = (env: Pick<Env, 'LIVE_CONVERSATIONS'>, owner: { tenant: string; user: string }) =>
  env.LIVE_CONVERSATIONS.getByName(`${owner.tenant}:${owner.user}`);

/**
 * The conversations of one end user that hold live MCP sessions (one object
 * per tenant and end user), least recently used first. A conversation asks
 * before it connects (`acquire`); past the limit it is told which others to
 * ask to release theirs. Kept in SQLite, so a restart of this object does
 * not forget who holds sessions.
 */
export class LiveConversations extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS live (id TEXT PRIMARY KEY, last_used INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS task_places (conversation TEXT NOT NULL, tool_call_id TEXT NOT NULL,
        expires_at INTEGER NOT NULL, PRIMARY KEY (conversation, tool_call_id))`);
    // The places of an older version (no expiry): kept, with the longest life a task may have had by default.
    const old = ctx.storage.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'tasks'`)
      .one().n;
    if (old)
      ctx.storage.sql.exec(
        `INSERT OR IGNORE INTO task_places SELECT conversation, tool_call_id, ? FROM tasks; DROP TABLE tasks`,
        Date.now() + LEGACY_PLACE_MS,
      );
  }

  /**
   * Counts one more running task of this end user (MCP Tasks) if there is room (TASKS_PER_USER). A place lasts
   * `ttlMs` at most (TASK_MAX_MS: the longest a task is followed), so none outlives its task, whatever happened to
   * its conversation.
   */
  async takeTask(conversation: string, toolCallId: string, limit: number, ttlMs: number): Promise<boolean> {
    const sql = this.ctx.storage.sql;
    const now = Date.now();
    sql.exec(`DELETE FROM task_places WHERE expires_at <= ?`, now);
    if (
      sql
        .exec<{ n: number }>(
          `SELECT COUNT(*) AS n FROM task_places WHERE conversation = ? AND tool_call_id = ?`,
          conversation,
          toolCallId,
        )
        .one().n
    )
      return true;
    if (sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM task_places`).one().n >= limit) return false;
    sql.exec(
      `INSERT INTO task_places (conversation, tool_call_id, expires_at) VALUES (?, ?, ?)`,
      conversation,
      toolCallId,
      now + ttlMs,
    );
    return true;
  }

  /** A task ended (or its conversation went: no `toolCallId`, all of them). */
  async releaseTask(conversation: string, toolCallId?: string): Promise<void> {
    if (toolCallId === undefined)
      this.ctx.storage.sql.exec(`DELETE FROM task_places WHERE conversation = ?`, conversation);
    else
      this.ctx.storage.sql.exec(
        `DELETE FROM task_places WHERE conversation = ? AND tool_call_id = ?`,
        conversation,
        toolCallId,
      );
  }

  /** How many tasks the end user has running (tests, operators). */
  async taskCount(): Promise<number> {
    return this.ctx.storage.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM task_places WHERE expires_at > ?`, Date.now())
      .one().n;
  }

  /** Counts `id` as live if there is room; otherwise names the others, least recently used first. */
  async acquire(id: string, limit: number): Promise<{ ok: true } | { ok: false; others: string[] }> {
    const sql = this.ctx.storage.sql;
    const now = Date.now();
    if (sql.exec(`UPDATE live SET last_used = ? WHERE id = ?`, now, id).rowsWritten) return { ok: true };
    const count = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM live`).one().n;
    if (count < limit) {
      sql.exec(`INSERT INTO live (id, last_used) VALUES (?, ?)`, id, now);
      return { ok: true };
    }
    return {
      ok: false,
      others: sql
        .exec<{ id: string }>(`SELECT id FROM live ORDER BY last_used`)
        .toArray()
        .map((r) => r.id),
    };
  }

  /** `id` was used (sent at most once a minute per conversation). */
  async touch(id: string): Promise<void> {
    this.ctx.storage.sql.exec(`UPDATE live SET last_used = ? WHERE id = ?`, Date.now(), id);
  }

  /** `id` released its sessions. */
  async release(id: string): Promise<void> {
    this.ctx.storage.sql.exec(`DELETE FROM live WHERE id = ?`, id);
  }

  /** The conversations holding live MCP sessions (told when the user connects or disconnects an account). */
  async ids(): Promise<string[]> {
    return this.ctx.storage.sql
      .exec<{ id: string }>(`SELECT id FROM live`)
      .toArray()
      .map((r) => r.id);
  }

  /** How many conversations hold live sessions (tests, operators). */
  async count(): Promise<number> {
    return this.ctx.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM live`).one().n;
  }
}
