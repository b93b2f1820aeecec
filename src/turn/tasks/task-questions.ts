import type { UIMessage } from 'ai';
import type { ElicitationNotice } from '../../../shared/api/stream';
import { ApiError } from '../../errors';
import type { McpSessions, TaskSnapshot } from '../../mcp/sessions';
import { checkedAnswer, type ElicitationAnswer } from '../elicitations';
import type { HostOf } from './task-follower-host';
import type { LegacyTaskQuestions } from './legacy-task-questions';
import { elicitationOf, messageWithToolCall, withElicitation } from './task-messages';
import type { TaskRow } from './task-store';

/** What the questions need besides the follower's host. */
export interface TaskQuestionsParts {
  host: HostOf<'store' | 'conversation' | 'withMcp' | 'answer'>;
  /** 2025 tasks' questions, which come on their `tasks/result` stream. */
  legacy: LegacyTaskQuestions;
  /** Saves a changed answer as the follower saves it (task-follower.ts). */
  save(message: UIMessage): void;
}

/**
 * The questions a task asks the user, and their answers, in either era. A 2026 task asks in `tasks/get`'s
 * `inputRequests` and is answered with `tasks/update` (here); a 2025 task asks on its `tasks/result` stream
 * (legacy-task-questions.ts). Either becomes a `data-elicitation` part of the answer, id `task:<toolCallId>:<key>`.
 */
export class TaskQuestions {
  constructor(private readonly parts: TaskQuestionsParts) {}

  /**
   * What a poll saw of the task's questions (`row` is the task as it now is): a 2025 task waiting for input has its
   * stream opened, one that stopped waiting has its questions expired; a 2026 task's new ones are asked. Resolves
   * with the keys of every question the task has asked.
   */
  async polled(sessions: McpSessions, row: TaskRow, snapshot: TaskSnapshot): Promise<string[]> {
    if (snapshot.status === 'input_required' && row.era === 'legacy') this.parts.legacy.listen(row);
    else if (snapshot.status === 'input_required') return this.ask(sessions, row, snapshot);
    else if (row.era === 'legacy') this.parts.legacy.expire(row.toolCallId);
    return row.asked;
  }

  /** The task ended: its questions still waiting are expired. */
  ended(toolCallId: string): void {
    this.parts.legacy.expire(toolCallId);
  }

  /**
   * The user's answer to question `id` of the task `row` (none: no task of the conversation has the call). The task
   * is looked at again soon; 404 `elicitation_not_found` when no such question waits.
   */
  async answer(row: TaskRow | undefined, id: string, answer: ElicitationAnswer): Promise<void> {
    const host = this.parts.host();
    if (row?.era === 'legacy') {
      this.parts.legacy.answer(row, id, answer);
      host.store.reschedule(row.toolCallId, Date.now() + host.conversation.settings().TASK_POLL_MIN_MS);
      return;
    }
    const key = row && id.slice(`task:${row.toolCallId}:`.length);
    const found = row && messageWithToolCall(host.answer.load(), row.toolCallId);
    const notice = found && elicitationOf(found.message, id);
    if (!row || !key || !found || notice?.status !== 'pending')
      throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    const checked = checkedAnswer(notice.requestedSchema, answer);
    await host.withMcp((sessions) =>
      sessions.updateTask(row.server, row.taskId, {
        [key]:
          checked.action === 'accept' ? { action: 'accept', content: checked.content } : { action: checked.action },
      }),
    );
    this.parts.save(
      withElicitation(found.message, {
        ...notice,
        status: checked.action,
        ...(checked.content ? { content: checked.content } : {}),
      }),
    );
    // The server takes the answer eventually (tasks/update is an acknowledgement): look again soon.
    host.store.put({ ...row, nextPollAt: Date.now() + host.conversation.settings().TASK_POLL_MIN_MS });
  }

  /**
   * A 2026 task's new questions (keys never asked before: they are unique for
   * the task's life): a form (`elicitation/create`) becomes a `data-elicitation`
   * part the user answers (`answer`); what a chat cannot answer (sampling,
   * roots, a URL to open) is declined at once, so the task is not left waiting.
   */
  private async ask(sessions: McpSessions, row: TaskRow, snapshot: TaskSnapshot): Promise<string[]> {
    const asked = new Set(row.asked);
    const declined: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(snapshot.inputRequests ?? {})) {
      if (asked.has(key)) continue;
      asked.add(key);
      const params = (request.params ?? {}) as {
        mode?: string;
        message?: string;
        requestedSchema?: ElicitationNotice['requestedSchema'];
      };
      if (
        request.method !== 'elicitation/create' ||
        (params.mode !== undefined && params.mode !== 'form') ||
        !params.requestedSchema
      ) {
        declined[key] = { action: 'decline' };
        continue;
      }
      const found = messageWithToolCall(this.parts.host().answer.load(), row.toolCallId);
      if (!found) continue;
      const notice: ElicitationNotice = {
        id: `task:${row.toolCallId}:${key}`,
        server: row.server,
        message: params.message ?? 'The tool needs an answer',
        requestedSchema: params.requestedSchema,
        status: 'pending',
      };
      this.parts.save(withElicitation(found.message, notice));
    }
    if (Object.keys(declined).length)
      await sessions.updateTask(row.server, row.taskId, declined).catch(() => undefined);
    return [...asked];
  }
}
