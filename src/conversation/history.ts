import type { UIMessage } from 'ai';
import type { ApprovalBody, PendingApproval as ApiPendingApproval } from '../../shared/api/conversations';
import { ApiError } from '../errors';
import { rowPieces } from './large-result-store';
import { transcriptWindow } from './transcript';
import { ensureTables } from '../sql-schema';

/** Why a message carries `metadata.interrupted`: shown to users, kept out of the model's input. */
export const INTERRUPTED_REASON = 'The conversation restarted before this turn finished; it was not answered. Send it again to retry.';
const INTERRUPTED_TOOL = 'The conversation restarted while this approved tool call was running; whether it ran is unknown. Check before running it again.';

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
export class History {
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
    for (const row of this.storage.sql.exec<{ id: string; text: string }>(`SELECT id, text FROM message_overflow ORDER BY id, n`)) {
      const pieces = overflow.get(row.id) ?? [];
      pieces.push(row.text);
      overflow.set(row.id, pieces);
    }
    const rows = this.storage.sql.exec<{ id: string; message: string }>(`SELECT id, message FROM messages ORDER BY seq`).toArray();
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
      this.storage.sql.exec(`DELETE FROM message_overflow WHERE id IN (SELECT id FROM turn_pending WHERE kind = 'new')`);
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
      if (kind === 'new') changed.push({ ...message, metadata: { ...(message.metadata as object | undefined), interrupted: INTERRUPTED_REASON } });
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
      this.storage.sql.exec(`DELETE FROM message_overflow WHERE id IN (SELECT id FROM messages WHERE seq >= (SELECT seq FROM messages WHERE id = ?))`, fromId);
      this.storage.sql.exec(`DELETE FROM messages WHERE seq >= (SELECT seq FROM messages WHERE id = ?)`, fromId);
      this.write(messages, true);
    });
  }

  /** Tool calls waiting for the user's decision, as clients see them. */
  waitingApprovals(): ApiPendingApproval[] {
    return pendingApprovals(this.load()).map(({ messageIndex: _, ...approval }) => approval);
  }

  /**
   * Records the user's decisions on calls waiting for approval (saved at
   * once: the decision is the user's and must survive a failure of what
   * follows). `continue` when nothing of the step waits any more — or when
   * every answer was already recorded and the turn did not go on (answered
   * over the WebSocket without automatic continuation, or the continuation
   * failed); `waiting` while other calls of the step still wait. 404 when
   * none of them waits.
   */
  recordApprovals(answers: ApprovalAnswer[]): 'continue' | 'waiting' {
    let messages = this.load();
    const waiting = new Set(pendingApprovals(messages).map((p) => p.toolCallId));
    const fresh = answers.filter((a) => waiting.has(a.toolCallId));
    if (!fresh.length) {
      if (answers.length && answeredAndReady(messages) && answers.every((a) => answeredIn(messages.at(-1)!, a.toolCallId))) return 'continue';
      throw new ApiError(
        404,
        'approval_not_found',
        answers.length ? `No tool call ${answers[0]!.toolCallId} is waiting for approval` : 'None of the answered tool calls is waiting for approval',
      );
    }
    let message: UIMessage | undefined;
    for (const answer of fresh) {
      message = answerApproval(messages, answer)!;
      messages = [...messages.slice(0, -1), message];
    }
    this.save([message!]);
    return pendingApprovals(messages).length ? 'waiting' : 'continue';
  }

  /**
   * Approval answers as a chat client sends them: its copy of the assistant
   * message, which may also carry answers of earlier steps the server already
   * acted on — only calls still waiting, or answered and not yet continued, count.
   */
  clientApprovals(answers: ApprovalAnswer[]): ApprovalAnswer[] {
    const messages = this.load();
    const waiting = new Set(pendingApprovals(messages).map((p) => p.toolCallId));
    const last = messages.at(-1);
    return answers.filter((a) => waiting.has(a.toolCallId) || (last !== undefined && answeredIn(last, a.toolCallId)));
  }

  /**
   * Records a decision or a client tool's result without continuing. `ready`
   * when nothing in the step waits any more; 404 when the call does not wait.
   */
  recordAnswer(answer: ToolCallAnswer): { message: UIMessage; ready: boolean } {
    const messages = this.load();
    const message = answer.kind === 'approval' ? answerApproval(messages, answer) : answerToolCall(messages, answer);
    if (!message) throw new ApiError(404, 'not_waiting', `No tool call ${answer.toolCallId} is waiting for this answer`);
    this.save([message], false);
    const after = [...messages.slice(0, -1), message];
    return { message, ready: !pendingApprovals(after).length && !openToolCalls(after).length };
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
    this.storage.sql.exec(`INSERT INTO messages (id, message) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET message = excluded.message`, message.id, first!);
    this.storage.sql.exec(`DELETE FROM message_overflow WHERE id = ?`, message.id);
    rest.forEach((piece, n) => {
      this.storage.sql.exec(`INSERT INTO message_overflow (id, n, text) VALUES (?, ?, ?)`, message.id, n, piece);
    });
  }
}

/** A user's decision on a tool call waiting for approval (the body of `POST …/approvals`). */
export type ApprovalAnswer = ApprovalBody;

/** What answers a waiting tool call: the user's decision, or the result of a tool the client runs. */
export type ToolCallAnswer =
  | ({ kind: 'approval' } & ApprovalAnswer)
  | { kind: 'tool-result'; toolCallId: string; output: unknown; errorText?: string | undefined };

/** A tool call waiting for the user's decision (as the API lists it), and the index of the assistant message holding it. */
export type PendingApproval = ApiPendingApproval & { messageIndex: number };

/** Tool calls in the last assistant message that wait for approval (they pause the turn). */
export function pendingApprovals(messages: UIMessage[]): PendingApproval[] {
  const index = messages.length - 1;
  const last = messages[index];
  if (last?.role !== 'assistant') return [];
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
export function answerApproval(messages: UIMessage[], answer: ApprovalAnswer): UIMessage | undefined {
  const pending = pendingApprovals(messages).find((p) => p.toolCallId === answer.toolCallId);
  if (!pending) return undefined;
  const message = messages[pending.messageIndex]!;
  message.parts = message.parts.map((part) =>
    'toolCallId' in part && part.toolCallId === answer.toolCallId && part.state === 'approval-requested'
      ? { ...part, state: 'approval-responded', approval: { ...part.approval, approved: answer.approved, ...(answer.reason ? { reason: answer.reason } : {}) } }
      : part,
  );
  return message;
}

/** An approved call whose run was cut becomes an error result; a denied one, the denial it already was. */
function settleInterruptedApproval(part: UIMessage['parts'][number]): UIMessage['parts'][number] {
  if (!('toolCallId' in part) || part.state !== 'approval-responded') return part;
  if (!part.approval.approved) return { ...part, state: 'output-denied', approval: { ...part.approval, approved: false } };
  return { ...part, state: 'output-error', errorText: INTERRUPTED_TOOL, approval: { ...part.approval, approved: true } };
}

/**
 * Where a regeneration cuts the history, as `useChat`'s `regenerate()` does
 * on the client: at the assistant message `messageId` (or the last message),
 * or just after it when it is a user message. What stays must end with the
 * user message to answer again.
 */
export function regenerationCut(messages: UIMessage[], messageId?: string): { keep: number; replaceFrom: string | undefined } | undefined {
  const index = messageId === undefined ? messages.length - 1 : messages.findIndex((m) => m.id === messageId);
  const target = messages[index];
  if (!target) return undefined;
  const keep = target.role === 'assistant' ? index : index + 1;
  if (messages[keep - 1]?.role !== 'user') return undefined;
  return { keep, replaceFrom: messages[keep]?.id };
}

/** Tool calls in the last assistant message still waiting for a client's result (tools the client runs: `useAgentChat`'s client tools). */
export function openToolCalls(messages: UIMessage[]): string[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  return last.parts.flatMap((part) => ('toolCallId' in part && part.state === 'input-available' && !part.providerExecuted ? [part.toolCallId] : []));
}

/** The last message with a client tool's result recorded in it; undefined if no such call is waiting. */
export function answerToolCall(messages: UIMessage[], answer: { toolCallId: string; output: unknown; errorText?: string | undefined }): UIMessage | undefined {
  if (!openToolCalls(messages).includes(answer.toolCallId)) return undefined;
  const message = messages.at(-1)!;
  return {
    ...message,
    parts: message.parts.map((part) =>
      'toolCallId' in part && part.toolCallId === answer.toolCallId && part.state === 'input-available'
        ? answer.errorText !== undefined
          ? { ...part, state: 'output-error', errorText: answer.errorText }
          : { ...part, state: 'output-available', output: answer.output ?? null }
        : part,
    ),
  };
}

/** A new message while client tool calls still wait: they get an error result, so the history stays valid for the model. */
export function settleOpenToolCalls(messages: UIMessage[]): UIMessage | undefined {
  const open = openToolCalls(messages);
  if (!open.length) return undefined;
  let message = messages.at(-1)!;
  for (const toolCallId of open)
    message = answerToolCall([...messages.slice(0, -1), message], {
      toolCallId,
      output: undefined,
      errorText: 'The client gave no result for this call before the next message.',
    })!;
  return message;
}

/** The last assistant message has answered calls and nothing waits: the turn can go on. */
export function answeredAndReady(messages: UIMessage[]): boolean {
  const last = messages.at(-1);
  if (last?.role !== 'assistant' || pendingApprovals(messages).length || openToolCalls(messages).length) return false;
  return last.parts.some((part) => 'toolCallId' in part && part.state === 'approval-responded');
}

/** The message holds an answered approval for `toolCallId`. */
function answeredIn(message: UIMessage, toolCallId: string): boolean {
  return message.parts.some((part) => 'toolCallId' in part && part.toolCallId === toolCallId && part.state === 'approval-responded');
}
