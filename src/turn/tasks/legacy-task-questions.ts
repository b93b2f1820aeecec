import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { UIMessage } from 'ai';
import type { ElicitationNotice } from '../../../shared/api/stream';
import { ApiError } from '../../errors';
import type { McpSessions } from '../../mcp/sessions';
import { errorFields, logEvent } from '../../observability/log';
import { checkedAnswer, type ElicitationAnswer } from '../elicitations';
import { elicitationOf, messageWithToolCall, withElicitation } from './task-messages';
import type { TaskRow } from './task-store';

/*
 * The questions of 2025-11-25 tasks. A 2025 task that needs the user says `input_required` on `tasks/get`, but its
 * question travels only on the task's `tasks/result` stream: the server holds that request until the task ends and
 * sends its queued `elicitation/create` (with the related-task meta) on it. So a task in `input_required` gets one
 * `tasks/result` of its own, left open in the background (the alarm never waits on it), and each question that
 * arrives becomes a `data-elicitation` part of the answer, like a 2026 task's. The SDK's handler waits for the user;
 * their answer resolves it, and the SDK sends it back as the JSON-RPC response. (2026 tasks ask through `tasks/get`'s
 * `inputRequests` and are answered with `tasks/update`: task-follower.ts.)
 *
 * The server may stop waiting on its own (server-everything gives up after 60 s and goes on with a default) and says
 * nothing but the status leaving `input_required`: a question still pending then is marked expired, as it is when the
 * stream ends, when the task ends, or after ELICITATION_TIMEOUT_MS. A question is held in memory only: the 2025 task
 * lives in the server's session, which a restart of this object ends anyway.
 */

/** What the questions need of the conversation (the task follower). */
export interface LegacyTaskQuestionsHost {
  history: { load(): UIMessage[] };
  /** Saves a changed answer and sends it to every tab. */
  save(message: UIMessage): void;
  rows(): TaskRow[];
  elicitationTimeoutMs(): number;
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /** The task's `tasks/result` returned: look at the task again now (it has ended, or the server let go of it). */
  pollSoon(toolCallId: string): void;
}

interface Waiting {
  toolCallId: string;
  settle(answer: ElicitationAnswer, status: ElicitationNotice['status']): void;
}

export class LegacyTaskQuestions {
  /** Tool calls whose task has a `tasks/result` open (one each). */
  private readonly listening = new Set<string>();
  /** Questions waiting for the user, by notice id. */
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly host: LegacyTaskQuestionsHost) {}

  /** The task waits for input: its `tasks/result` is opened (once), so that its questions arrive. */
  listen(row: TaskRow): void {
    if (this.listening.has(row.toolCallId)) return;
    this.listening.add(row.toolCallId);
    // Held by the server until the task ends: given all the time the task may still run.
    const timeoutMs = Math.max(1_000, row.deadlineAt - Date.now());
    void this.host
      .withMcp((sessions) => sessions.awaitTaskResult(row.server, row.taskId, timeoutMs))
      .catch((error) => logEvent('task.result', { server: row.server, tool: row.tool, ...errorFields(error) }, 'warn'))
      .finally(() => {
        this.listening.delete(row.toolCallId);
        this.expire(row.toolCallId);
        this.host.pollSoon(row.toolCallId);
      });
  }

  /** A question that came on a task's `tasks/result` stream: shown in the task's step; resolves with the user's answer. */
  async ask(
    server: string,
    taskId: string,
    params: ElicitRequestFormParams,
    signal: AbortSignal | undefined,
  ): Promise<ElicitResult> {
    const row = this.host.rows().find((r) => r.server === server && r.taskId === taskId);
    const found = row && messageWithToolCall(this.host.history.load(), row.toolCallId);
    if (!row || !found) return { action: 'cancel' }; // a task this conversation no longer follows
    if (!params.requestedSchema) return { action: 'decline' };
    const notice: ElicitationNotice = {
      id: `task:${row.toolCallId}:${crypto.randomUUID()}`,
      server,
      message: params.message || 'The tool needs an answer',
      requestedSchema: params.requestedSchema,
      status: 'pending',
    };
    this.show(row.toolCallId, notice);
    logEvent('task.question', { server, tool: row.tool });
    const answer = await new Promise<ElicitationAnswer>((resolve) => {
      const timer = setTimeout(() => settle({ action: 'cancel' }, 'expired'), this.host.elicitationTimeoutMs());
      const onAbort = () => settle({ action: 'cancel' }, 'expired');
      const settle = (answer: ElicitationAnswer, status: ElicitationNotice['status']) => {
        if (!this.waiting.delete(notice.id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.show(row.toolCallId, { ...notice, status, ...(answer.content ? { content: answer.content } : {}) });
        resolve(answer);
      };
      this.waiting.set(notice.id, { toolCallId: row.toolCallId, settle });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    return answer.action === 'accept'
      ? { action: 'accept', content: answer.content as ElicitResult['content'] }
      : { action: answer.action };
  }

  /** The user's answer to question `id` of `row`'s task: checked against the server's schema, then sent back. */
  answer(row: TaskRow, id: string, answer: ElicitationAnswer): void {
    const waiting = this.waiting.get(id);
    if (!waiting) {
      const found = messageWithToolCall(this.host.history.load(), row.toolCallId);
      const notice = found && elicitationOf(found.message, id);
      if (notice?.status === 'pending') this.show(row.toolCallId, { ...notice, status: 'expired' });
      throw new ApiError(
        404,
        'elicitation_not_found',
        `Question ${id} is no longer waiting for an answer: the server stopped waiting for it`,
      );
    }
    const found = messageWithToolCall(this.host.history.load(), row.toolCallId);
    const notice = found && elicitationOf(found.message, id);
    const checked = notice ? checkedAnswer(notice.requestedSchema, answer) : answer;
    waiting.settle(checked, checked.action);
  }

  /** The task's questions still pending are expired (it ended, its stream closed, or the server went on without them). */
  expire(toolCallId: string): void {
    for (const waiting of [...this.waiting.values()])
      if (waiting.toolCallId === toolCallId) waiting.settle({ action: 'cancel' }, 'expired');
  }

  private show(toolCallId: string, notice: ElicitationNotice): void {
    const found = messageWithToolCall(this.host.history.load(), toolCallId);
    if (found) this.host.save(withElicitation(found.message, notice));
  }
}
