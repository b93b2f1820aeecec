import type { UIMessage } from 'ai';

/** Why a message carries `metadata.interrupted`: shown to users, kept out of the model's input. */
export const INTERRUPTED_REASON = 'The conversation restarted before this turn finished; it was not answered. Send it again to retry.';
const INTERRUPTED_TOOL = 'The conversation restarted while this approved tool call was running; whether it ran is unknown. Check before running it again.';

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
export class History {
  constructor(private readonly storage: DurableObjectStorage) {
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, message TEXT NOT NULL)`);
    // Messages of the turn in progress: the new user message(s), or the assistant message an approval continues.
    storage.sql.exec(`CREATE TABLE IF NOT EXISTS turn_pending (id TEXT PRIMARY KEY, kind TEXT NOT NULL)`);
  }

  load(): UIMessage[] {
    return this.storage.sql
      .exec<{ message: string }>(`SELECT message FROM messages ORDER BY seq`)
      .toArray()
      .map((row) => JSON.parse(row.message) as UIMessage);
  }

  /** The history as the model gets it: without messages of interrupted turns. */
  forModel(): UIMessage[] {
    return this.load().filter((message) => !(message.metadata as { interrupted?: unknown } | undefined)?.interrupted);
  }

  /** Forgets every message (the chat protocol's "clear"). */
  clear(): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec(`DELETE FROM messages`);
      this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  /**
   * A turn starts: its new messages are written now and marked pending; for
   * an approval's continuation (`continues`), the assistant message is marked.
   */
  begin(newMessages: UIMessage[], continues?: UIMessage): void {
    this.storage.transactionSync(() => {
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
    this.storage.transactionSync(() => {
      this.storage.sql.exec(`DELETE FROM messages WHERE id IN (SELECT id FROM turn_pending WHERE kind = 'new')`);
      this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  /**
   * On a new instance: a turn still marked pending was cut by an abort. Its
   * user messages are kept, marked interrupted; an approved tool call whose
   * continuation was cut gets an error result saying so (the history must
   * stay valid for the next turn, and the tool is not run again blindly).
   */
  recoverInterrupted(): void {
    const marks = this.storage.sql.exec<{ id: string; kind: string }>(`SELECT id, kind FROM turn_pending`).toArray();
    if (!marks.length) return;
    const byId = new Map(this.load().map((message) => [message.id, message]));
    const changed: UIMessage[] = [];
    for (const { id, kind } of marks) {
      const message = byId.get(id);
      if (!message) continue;
      if (kind === 'new') changed.push({ ...message, metadata: { ...(message.metadata as object | undefined), interrupted: INTERRUPTED_REASON } });
      else changed.push({ ...message, parts: message.parts.map(settleInterruptedApproval) });
    }
    this.storage.transactionSync(() => {
      this.save(changed, false);
      this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  /**
   * Saves the conversation after a turn: new messages appended, changed ones
   * (same id) updated, unchanged ones not rewritten.
   */
  save(messages: UIMessage[], completesTurn = true): void {
    const stored = new Map(
      this.storage.sql.exec<{ id: string; message: string }>(`SELECT id, message FROM messages`).toArray().map((row) => [row.id, row.message]),
    );
    const changed = messages.filter((message) => stored.get(message.id) !== JSON.stringify(message));
    this.storage.transactionSync(() => {
      for (const message of changed) this.upsert(message);
      if (completesTurn) this.storage.sql.exec(`DELETE FROM turn_pending`);
    });
  }

  private upsert(message: UIMessage): void {
    this.storage.sql.exec(`INSERT INTO messages (id, message) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message`, message.id, JSON.stringify(message));
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

/**
 * The message holding the tool call `toolCallId` waits on, with the user's
 * answer recorded in it; undefined if no such call is waiting.
 */
export function answerApproval(messages: UIMessage[], answer: { toolCallId: string; approved: boolean; reason?: string | undefined }): UIMessage | undefined {
  const pending = pendingApprovals(messages).find((p) => p.toolCallId === answer.toolCallId);
  if (!pending) return undefined;
  const message = messages[pending.messageIndex]!;
  message.parts = message.parts.map((part) =>
    'toolCallId' in part && part.toolCallId === answer.toolCallId && part.state === 'approval-requested'
      ? ({ ...part, state: 'approval-responded', approval: { ...part.approval, approved: answer.approved, ...(answer.reason ? { reason: answer.reason } : {}) } } as unknown as typeof part)
      : part,
  );
  return message;
}

/** An approved call whose run was cut becomes an error result; a denied one, the denial it already was. */
function settleInterruptedApproval(part: UIMessage['parts'][number]): UIMessage['parts'][number] {
  if (!('toolCallId' in part) || part.state !== 'approval-responded') return part;
  if (!part.approval.approved) return { ...part, state: 'output-denied' } as unknown as typeof part;
  return { ...part, state: 'output-error', errorText: INTERRUPTED_TOOL } as unknown as typeof part;
}
