import { Agent } from 'agents';

/** What `GET /v1/conversations/:id` returns. */
export interface ConversationSnapshot {
  id: string;
  createdAt: string;
  /** AI SDK `UIMessage[]`; filled by the tool loop. */
  messages: unknown[];
  /** Tool calls waiting for a user's decision. */
  pendingApprovals: unknown[];
}

/**
 * One Durable Object per conversation (SQLite-backed), built on `agents`'
 * `Agent`: it gives us the SQL helper, scheduling, WebSocket plumbing and the
 * chat protocol that later layers (MCP sessions, tool loop) build on.
 *
 * Every Durable Object id "exists", so existence is explicit: `create()`
 * writes a row, and every other method answers `null` when it is missing —
 * the route then answers 404 without writing anything.
 */
export class Conversation extends Agent<Env> {
  /** Set by `remove()`: storage is gone, and this instance is about to be aborted. */
  private deleted = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQLite: the schema exists before any RPC method runs.
    this.sql`CREATE TABLE IF NOT EXISTS conversation (
      id TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL
    )`;
  }

  /** Marks this conversation as created. Idempotent. */
  async create(): Promise<ConversationSnapshot> {
    if (this.deleted) throw new Error('conversation was deleted'); // ids are never reused
    this.sql`INSERT OR IGNORE INTO conversation (id, created_at) VALUES (${this.name}, ${Date.now()})`;
    return (await this.snapshot())!;
  }

  async snapshot(): Promise<ConversationSnapshot | null> {
    if (this.deleted) return null;
    const row = this.sql<{ id: string; created_at: number }>`SELECT id, created_at FROM conversation LIMIT 1`[0];
    if (!row) return null;
    return { id: row.id, createdAt: new Date(row.created_at).toISOString(), messages: [], pendingApprovals: [] };
  }

  /** Deletes all of this conversation's storage. Returns false if it did not exist. */
  async remove(): Promise<boolean> {
    if (!(await this.snapshot())) return false;
    this.deleted = true;
    await this.destroy();
    return true;
  }
}
