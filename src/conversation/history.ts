import type { UIMessage } from 'ai';

/**
 * The conversation's messages (AI SDK `UIMessage[]`) in DO SQLite, one row
 * per message. A turn's messages are saved in one transaction when the turn
 * completes, so a failed turn leaves the history exactly as it was.
 */
export class History {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, message TEXT NOT NULL)`);
  }

  load(): UIMessage[] {
    return this.storage.sql
      .exec<{ message: string }>(`SELECT message FROM messages ORDER BY seq`)
      .toArray()
      .map((row) => JSON.parse(row.message) as UIMessage);
  }

  /** Saves the whole conversation after a turn: new messages appended, changed ones (same id) updated. */
  save(messages: UIMessage[]): void {
    this.storage.transactionSync(() => {
      for (const message of messages) {
        this.storage.sql.exec(
          `INSERT INTO messages (id, message) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message`,
          message.id,
          JSON.stringify(message),
        );
      }
    });
  }
}
