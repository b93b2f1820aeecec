import { DurableObject } from 'cloudflare:workers';

import type { ThreadList, ThreadSummary } from '../../shared/api/conversations';
import { TITLE_MAX_CHARS } from '../../shared/api/conversations';

export type { ThreadSummary } from '../../shared/api/conversations';

/** The directory of an end user's conversations (one object per tenant and user). */
export const directoryOf = (env: Env, owner: { tenant: string; user: string }) =>
  env.CONVERSATION_DIRECTORY.getByName(`${owner.tenant}:${owner.user}`);

/** Most words a title made from the first message keeps (and TITLE_MAX_CHARS, most characters any title has). */
const AUTO_TITLE_WORDS = 8;

/** A title from the first words of the first message (with "…" when there were more). */
export function autoTitle(text: string): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const title = words.slice(0, AUTO_TITLE_WORDS).join(' ').slice(0, TITLE_MAX_CHARS);
  return words.length > AUTO_TITLE_WORDS || title.length < words.join(' ').length ? `${title}…` : title;
}

/**
 * The threads list of one end user, kept by their conversations as they
 * change (created, a turn saved, a title set, deleted), so listing reads one
 * small table and never wakes a conversation's Durable Object. Ordered by
 * last activity; pages are keyed by (last activity, id), so a conversation
 * that moves to the top while someone pages is not listed twice on later pages.
 */
export class ConversationDirectory extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS threads (
      id TEXT PRIMARY KEY,
      title TEXT NOT NULL DEFAULT '',
      title_set INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      last_activity_at INTEGER NOT NULL,
      servers TEXT
    )`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS threads_by_activity ON threads (last_activity_at DESC, id DESC)`);
  }

  async created(id: string, createdAt: number, servers: string[] | undefined): Promise<void> {
    this.sql.exec(
      `INSERT OR IGNORE INTO threads (id, created_at, last_activity_at, servers) VALUES (?, ?, ?, ?)`,
      id,
      createdAt,
      createdAt,
      servers ? JSON.stringify(servers) : null,
    );
  }

  /** A turn was saved: the thread moves up; it gets a title from `firstText` unless it has one. */
  async active(id: string, at: number, firstText: string | undefined): Promise<void> {
    this.sql.exec(`UPDATE threads SET last_activity_at = MAX(last_activity_at, ?) WHERE id = ?`, at, id);
    if (firstText)
      this.sql.exec(
        `UPDATE threads SET title = ? WHERE id = ? AND title_set = 0 AND title = ''`,
        autoTitle(firstText),
        id,
      );
  }

  /** A title the user chose (an empty one goes back to the first words of the first message, at the next turn). */
  async titled(id: string, title: string): Promise<void> {
    this.sql.exec(`UPDATE threads SET title = ?, title_set = ? WHERE id = ?`, title, title ? 1 : 0, id);
  }

  async removed(id: string): Promise<void> {
    this.sql.exec(`DELETE FROM threads WHERE id = ?`, id);
  }

  /**
   * A page of threads, newest activity first. `servers`: a caller limited to
   * some servers sees only conversations limited to (a subset of) them, as
   * it may use no others.
   */
  async list(limit: number, cursor: string | undefined, servers: string[] | undefined): Promise<ThreadList> {
    const after = cursor ? decodeCursor(cursor) : undefined;
    const allowed = servers ? new Set(servers) : undefined;
    // Filtered callers read on until a page is full; the others need one row past the page to know there is more.
    const bound = allowed ? '' : ` LIMIT ${limit + 1}`;
    const rows = this.sql
      .exec<{ id: string; title: string; created_at: number; last_activity_at: number; servers: string | null }>(
        after
          ? `SELECT * FROM threads WHERE (last_activity_at, id) < (?, ?) ORDER BY last_activity_at DESC, id DESC${bound}`
          : `SELECT * FROM threads ORDER BY last_activity_at DESC, id DESC${bound}`,
        ...(after ? [after.at, after.id] : []),
      )
      .toArray();
    const page: ThreadSummary[] = [];
    let last: { at: number; id: string } | undefined;
    for (const row of rows) {
      if (allowed && !(row.servers && (JSON.parse(row.servers) as string[]).every((s) => allowed.has(s)))) continue;
      if (page.length === limit) return { conversations: page, nextCursor: encodeCursor(last!) };
      page.push({
        id: row.id,
        title: row.title,
        createdAt: new Date(row.created_at).toISOString(),
        lastActivityAt: new Date(row.last_activity_at).toISOString(),
      });
      last = { at: row.last_activity_at, id: row.id };
    }
    return { conversations: page, nextCursor: null };
  }
}

const encodeCursor = (at: { at: number; id: string }) => btoa(JSON.stringify([at.at, at.id])).replace(/=+$/, '');

export function decodeCursor(cursor: string): { at: number; id: string } | undefined {
  try {
    const [at, id] = JSON.parse(atob(cursor)) as [unknown, unknown];
    if (typeof at === 'number' && typeof id === 'string') return { at, id };
  } catch {
    // fall through
  }
  return undefined;
}
