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

  /** Forgets every message (the chat protocol's "clear"). */
  clear(): void {
    this.storage.sql.exec(`DELETE FROM messages`);
  }

  /**
   * Saves the conversation after a turn: new messages appended, changed ones
   * (same id) updated, unchanged ones not rewritten.
   */
  save(messages: UIMessage[]): void {
    const stored = new Map(
      this.storage.sql.exec<{ id: string; message: string }>(`SELECT id, message FROM messages`).toArray().map((row) => [row.id, row.message]),
    );
    const changed = messages.filter((message) => stored.get(message.id) !== JSON.stringify(message));
    if (!changed.length) return;
    this.storage.transactionSync(() => {
      for (const message of changed) {
        this.storage.sql.exec(
          `INSERT INTO messages (id, message) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message`,
          message.id,
          JSON.stringify(message),
        );
      }
    });
  }
}

/** A tool call waiting for the user's decision. */
export interface PendingApproval {
  toolCallId: string;
  toolName: string;
  input: unknown;
  approvalId: string;
  /** Index of the assistant message holding it. */
  messageIndex: number;
}

/** Tool calls in the last assistant message that wait for approval (they pause the turn). */
export function pendingApprovals(messages: UIMessage[]): PendingApproval[] {
  const index = messages.length - 1;
  const last = messages[index];
  if (!last || last.role !== 'assistant') return [];
  return last.parts.flatMap((part) => {
    if (!('toolCallId' in part) || part.state !== 'approval-requested') return [];
    const toolName = part.type === 'dynamic-tool' ? part.toolName : part.type.replace(/^tool-/, '');
    return [{ toolCallId: part.toolCallId, toolName, input: part.input, approvalId: part.approval.id, messageIndex: index }];
  });
}
