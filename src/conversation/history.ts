import type { UIMessage } from 'ai';
import type { PendingApproval as ApiPendingApproval } from '../../shared/api/conversations';
import { ensureTables } from '../sql-schema';
import { pendingApprovals, settleInterruptedApproval } from '../turn/messages';
import type { TurnStore } from '../turn/store';
import { rowPieces } from './large-result-store';
import { transcriptWindow } from './transcript';

/** Why a message carries `metadata.interrupted`: shown to users, kept out of the model's input. */
export const INTERRUPTED_REASON =
  'The conversation restarted before this turn finished; it was not answered. Send it again to retry.';

export const HISTORY_TABLES = [
  `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, message TEXT NOT NULL)`,
  // A message longer than a row holds goes on in row-sized pieces here (SQLite values are limited to 2 MB in production).
  `CREATE TABLE IF NOT EXISTS message_overflow (id TEXT NOT NULL, n INTEGER NOT NULL, text TEXT NOT NULL, PRIMARY KEY (id, n))`,
  // Messages of the turn in progress: the new user message(s), or the assistant message an approval continues.
  `CREATE TABLE IF NOT EXISTS turn_pending (id TEXT PRIMARY KEY, kind TEXT NOT NULL)`,
].join(';\n');

/**
 * The conversation's messages (AI SDK `UIMessage[]`) in DO SQLite, one row
 * per message. A turn's messages are saved in one transaction when the turn
 * completes, so a failed turn leaves the history exactly as it was.
 *
 * A turn's user message is also written when the turn starts, marked in
 * `turn_pending`: if the Durable Object is aborted mid-turn (a deploy, an
 * eviction, a crash) no code runs to save or roll back, and the user's
 * message would otherwise vanish without a word. The next instance finds the
 * mark (`recoverInterrupted`, in the constructor) and keeps the message with
 * `metadata.interrupted`: the user sees it was not answered, and the model
 * never sees it (it is not answered twice if the user sends it again).
 */
export class History implements TurnStore {
  constructor(private readonly storage: DurableObjectStorage) {
    ensureTables(storage.sql, HISTORY_TABLES);
  }

  /**
   * The messages as last read from storage (JSON, pieces joined), by id, in
   * order: a turn reads the history four or five times, and only this class
   * writes it. Dropped by every write (`transaction`).
   */
  private rows: Map<string, string> | undefined;

  load(): UIMessage[] {
    return [...this.stored().values()].map((json) => JSON.parse(json) as UIMessage);
  }

  /** Every message as stored (JSON, pieces joined), by id, in order. */
  private stored(): Map<string, string> {
    this.rows ??= this.readRows();
    return this.rows;
  }

  /** Every write goes through here: the copy of the rows read before is dropped when it ends, committed or not. */
  private transaction<T>(work: () => T): T {
    try {
      return this.storage.transactionSync(work);
    } finally {
      this.rows = undefined;
    }
  }

  private readRows(): Map<string, string> {
    const overflow = new Map<string, string[]>();
    for (const row of this.storage.sql.exec<{ id: string; text: string }>(
      `SELECT id, text FROM message_overflow ORDER BY id, n`,
    )) {
      const pieces = overflow.get(row.id) ?? [];
      pieces.push(row.text);
      overflow.set(row.id, pieces);
    }
    const rows = this.storage.sql
      .exec<{ id: string; message: string }>(`SELECT id, message FROM messages ORDER BY seq`)
      .toArray();
    return new Map(rows.map((row) => [row.id, row.message + (overflow.get(row.id)?.join('') ?? '')]));
  }

  /** Removes the messages `ids` names (a chat client removed them with `setMessages`). */
  remove(ids: string[]): void {
    const stored = this.stored();
    const gone = ids.filter((id) => stored.has(id));
    if (!gone.length) return;
    this.transaction(() => {
      for (const id of gone) {
        this.storage.sql.exec(`DELETE FROM messages WHERE id = ?`, id);
        this.storage.sql.exec(`DELETE FROM message_overflow WHERE id = ?`, id);
      }
    });
  }

  /** Forgets every message (the chat protocol's "clear"). */
  clear(): void {
    this.transaction(() => {
      this.storage.sql.exec(`DELETE FROM messages`);
      this.storage.sql.exec(`DELETE FROM message_overflow`);
      this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  /**
   * A turn starts: its new messages are written now and marked pending; for
   * an approval's continuation (`continues`), the assistant message is marked.
   */
  begin(newMessages: UIMessage[], continues?: UIMessage): void {
    this.transaction(() => {
      this.storage.sql.exec(`DELETE FROM turn_pending`);
      // Written directly (not through save(), which compares with every stored message): this runs on every turn.
      // Only messages not stored yet count as this turn's: a client may resend one (useChat's regenerate), and a
      // rollback must never delete what an earlier turn saved.
      for (const message of newMessages) {
        if (this.storage.sql.exec(`SELECT 1 FROM messages WHERE id = ?`, message.id).toArray().length) continue;
        this.upsert(message);
        this.storage.sql.exec(`INSERT INTO turn_pending (id, kind) VALUES (?, 'new')`, message.id);
      }
      if (continues) this.storage.sql.exec(`INSERT INTO turn_pending (id, kind) VALUES (?, 'continues')`, continues.id);
    });
  }

  /** The turn failed (the user saw the error): its new messages go, as if it never started. */
  rollback(): void {
    this.transaction(() => {
      this.storage.sql.exec(
        `DELETE FROM message_overflow WHERE id IN (SELECT id FROM turn_pending WHERE kind = 'new')`,
      );
      this.storage.sql.exec(`DELETE FROM messages WHERE id IN (SELECT id FROM turn_pending WHERE kind = 'new')`);
      this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  /**
   * On a new instance: a turn still marked pending was cut by an abort. Its
   * user messages are kept, marked interrupted; an approved tool call whose
   * continuation was cut gets an error result saying so (the history must
   * stay valid for the next turn, and the tool is not run again blindly).
   * True when there was such a turn.
   */
  recoverInterrupted(): boolean {
    const marks = this.storage.sql.exec<{ id: string; kind: string }>(`SELECT id, kind FROM turn_pending`).toArray();
    if (!marks.length) return false;
    const byId = new Map(this.load().map((message) => [message.id, message]));
    const changed: UIMessage[] = [];
    for (const { id, kind } of marks) {
      const message = byId.get(id);
      if (!message) continue;
      if (kind === 'new')
        changed.push({
          ...message,
          metadata: { ...(message.metadata as object | undefined), interrupted: INTERRUPTED_REASON },
        });
      else changed.push({ ...message, parts: message.parts.map(settleInterruptedApproval) });
    }
    this.transaction(() => this.write(changed, true));
    return true;
  }

  /**
   * Saves the conversation after a turn: new messages appended, changed ones
   * (same id) updated, unchanged ones not rewritten.
   */
  save(messages: UIMessage[], completesTurn = true): void {
    this.transaction(() => this.write(messages, completesTurn));
  }

  /**
   * A regenerated answer: the message `fromId` and every later one go, and
   * the turn's conversation is saved — in one transaction, so a failed
   * regeneration (which never gets here) leaves the old answer in place.
   */
  replaceFrom(fromId: string, messages: UIMessage[]): void {
    this.transaction(() => {
      this.storage.sql.exec(
        `DELETE FROM message_overflow WHERE id IN (SELECT id FROM messages WHERE seq >= (SELECT seq FROM messages WHERE id = ?))`,
        fromId,
      );
      this.storage.sql.exec(`DELETE FROM messages WHERE seq >= (SELECT seq FROM messages WHERE id = ?)`, fromId);
      this.write(messages, true);
    });
  }

  /** Tool calls waiting for the user's decision, as clients see them. */
  waitingApprovals(): ApiPendingApproval[] {
    return pendingApprovals(this.load()).map(({ messageIndex: _, ...approval }) => approval);
  }

  /** A chat client kept only `ids` (`setMessages`): only messages it was shown (the transcript window) can be removed by leaving them out. */
  keepOnly(ids: string[]): void {
    const keep = new Set(ids);
    this.remove(transcriptWindow(this.load()).messages.flatMap((m) => (keep.has(m.id) ? [] : [m.id])));
  }

  private write(messages: UIMessage[], completesTurn: boolean): void {
    const stored = this.stored();
    for (const message of messages) if (stored.get(message.id) !== JSON.stringify(message)) this.upsert(message);
    if (completesTurn) this.storage.sql.exec(`DELETE FROM turn_pending`);
  }

  private upsert(message: UIMessage): void {
    const [first, ...rest] = rowPieces(JSON.stringify(message));
    this.storage.sql.exec(
      `INSERT INTO messages (id, message) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message`,
      message.id,
      first!,
    );
    this.storage.sql.exec(`DELETE FROM message_overflow WHERE id = ?`, message.id);
    rest.forEach((piece, n) => {
      this.storage.sql.exec(`INSERT INTO message_overflow (id, n, text) VALUES (?, ?, ?)`, message.id, n, piece);
    });
  }
}
