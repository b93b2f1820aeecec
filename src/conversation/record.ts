import { ensureTables } from '../sql-schema';

import type { Owner } from '../owner';
import type { SkillRef } from '../../shared/api/conversations';

export type { Owner } from '../owner';

/** That a conversation exists, whose it is, and which servers it may use (all, when unset). */
export interface ConversationRecord {
  id: string;
  createdAt: number;
  owner: Owner;
  servers: string[] | undefined;
  /** A title the user set (`PATCH`); otherwise lists show the first words of the first message. */
  title: string | undefined;
}

export const RECORD_TABLES = `CREATE TABLE IF NOT EXISTS conversation (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  tenant TEXT NOT NULL DEFAULT 'default',
  user_id TEXT NOT NULL DEFAULT 'anonymous',
  servers TEXT,
  title TEXT
);
CREATE TABLE IF NOT EXISTS pinned_skill (
  position INTEGER PRIMARY KEY,
  server TEXT NOT NULL,
  name TEXT NOT NULL
)`;

/**
 * The conversation's existence row in DO SQLite. Every Durable Object id
 * "exists", so existence is explicit: written once by `create`, read by
 * every other method before it does anything.
 */
export class ConversationRecordStore {
  /** The row as last read or written (it is read by nearly every call; only this object writes it). Undefined: not read yet. */
  private known: ConversationRecord | null | undefined;
  /** The pinned skills as last read or written (read by every turn). */
  private pinned: SkillRef[] | undefined;

  constructor(private readonly storage: DurableObjectStorage) {
    ensureTables(storage.sql, RECORD_TABLES);
    // `title` came after the first release: objects created before have the table without it.
    try {
      storage.sql.exec(`SELECT title FROM conversation LIMIT 0`);
    } catch {
      storage.sql.exec(`ALTER TABLE conversation ADD COLUMN title TEXT`);
    }
  }

  setTitle(title: string): void {
    this.storage.sql.exec(`UPDATE conversation SET title = ?`, title || null);
    if (this.known) this.known = { ...this.known, title: title || undefined };
  }

  /** The skills pinned for every turn (PUT …/skills/pinned), in the order given. */
  pinnedSkills(): SkillRef[] {
    this.pinned ??= this.storage.sql
      .exec<SkillRef>(`SELECT server, name FROM pinned_skill ORDER BY position`)
      .toArray()
      .map(({ server, name }) => ({ server, name }));
    return this.pinned;
  }

  setPinnedSkills(skills: SkillRef[]): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec(`DELETE FROM pinned_skill`);
      for (const [position, { server, name }] of skills.entries()) {
        this.storage.sql.exec(
          `INSERT INTO pinned_skill (position, server, name) VALUES (?, ?, ?)`,
          position,
          server,
          name,
        );
      }
    });
    this.pinned = skills.map(({ server, name }) => ({ server, name }));
  }

  /** Writes the row unless it exists (idempotent: the first owner stays). */
  create(id: string, owner: Owner, servers: string[] | undefined): void {
    this.storage.sql.exec(
      `INSERT OR IGNORE INTO conversation (id, created_at, tenant, user_id, servers) VALUES (?, ?, ?, ?, ?)`,
      id,
      Date.now(),
      owner.tenant,
      owner.user,
      servers ? JSON.stringify(servers) : null,
    );
    this.known = undefined;
  }

  read(): ConversationRecord | undefined {
    if (this.known === undefined) this.known = this.readRow() ?? null;
    return this.known ?? undefined;
  }

  private readRow(): ConversationRecord | undefined {
    const row = this.storage.sql
      .exec<{
        id: string;
        created_at: number;
        tenant: string;
        user_id: string;
        servers: string | null;
        title: string | null;
      }>(`SELECT id, created_at, tenant, user_id, servers, title FROM conversation LIMIT 1`)
      .toArray()[0];
    if (!row) return undefined;
    return {
      id: row.id,
      createdAt: row.created_at,
      owner: { tenant: row.tenant, user: row.user_id },
      servers: row.servers === null ? undefined : (JSON.parse(row.servers) as string[]),
      title: row.title ?? undefined,
    };
  }
}

/**
 * Whether `owner` may use the conversation. A token limited to some servers
 * may only use conversations limited to (a subset of) them.
 */
export function isOwnedBy(record: ConversationRecord, owner: Owner, servers?: string[]): boolean {
  if (record.owner.tenant !== owner.tenant || record.owner.user !== owner.user) return false;
  if (!servers) return true;
  const allowed = new Set(servers);
  return record.servers?.every((id) => allowed.has(id)) ?? false;
}
