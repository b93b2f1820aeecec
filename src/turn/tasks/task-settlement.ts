import type { UIMessage } from 'ai';
import type { TaskNotice } from '../../../shared/api/stream';
import type { Settings } from '../../config';
import { pollDelay as nextPoll } from '../../mcp/extensions';
import type { McpSessions, TaskSnapshot } from '../../mcp/sessions';
import { TaskGoneError } from '../../mcp/sessions';
import { errorFields, logEvent } from '../../observability/log';
import { embeddedDocuments } from '../../prompt/embedded-documents';
import { callOutcome } from '../../tools/model-output';
import { ToolFailure } from '../../tools/tool-failure';
import { type CallOutcome, PendingStep, withOutcome } from '../pending-step';
import type { HostOf } from './task-follower-host';
import { messageWithToolCall, taskNoticeOf, withoutEmptyLastStep, withTaskNotice } from './task-messages';
import type { TaskQuestions } from './task-questions';
import type { TaskRow } from './task-store';

/** Polls in a row that could not reach the server before the step says so. */
const QUIET_FAILURES = 2;

/** What settling tasks needs besides the follower's host. */
export interface TaskSettlementParts {
  host: HostOf<'store' | 'conversation' | 'answer'>;
  /** The questions a task asks (asked as a poll finds them, expired when it ends). */
  questions: TaskQuestions;
  /** Saves a changed answer as the follower saves it (task-follower.ts). */
  save(message: UIMessage): void;
  /** The task ended and is followed no more; `lastAnswer`: the call it settled is the last answer's (it may go on). */
  ended(row: TaskRow, lastAnswer: boolean): void;
}

/**
 * One task polled and, when it ended, settled: `tasks/get` at the server's
 * `pollIntervalMs` clamped to TASK_POLL_MIN_MS..TASK_POLL_MAX_MS, backing off
 * while the server is out of reach; its `data-task` part updated as it moves;
 * a task past TASK_MAX_MS cancelled; a task the server forgot is an error,
 * never a wait. When a task ends its result (or error) becomes the tool call's
 * output — a settled call of the answer's pending step (turn/pending-step.ts).
 */
export class TaskSettlement {
  constructor(private readonly parts: TaskSettlementParts) {}

  /** Polls the task `row` (it is due) in `sessions`; settles it when it ended. */
  async poll(sessions: McpSessions, row: TaskRow, settings: Settings): Promise<void> {
    if (Date.now() > row.deadlineAt) {
      await sessions.cancelTask(row.server, row.taskId).catch(() => undefined);
      if (!this.followed(row)) return;
      logEvent('task.timeout', { server: row.server, tool: row.tool, ms: settings.TASK_MAX_MS }, 'warn');
      const minutes = Math.round(settings.TASK_MAX_MS / 60_000);
      const limit = minutes >= 1 ? `${minutes} min` : `${Math.round(settings.TASK_MAX_MS / 1000)} s`;
      return this.settle(
        row,
        {
          kind: 'error',
          errorText: ToolFailure.mcpRequest(
            row.server,
            row.tool,
            new Error(`the task ran longer than ${limit} (TASK_MAX_MS) and was cancelled`),
          ).message,
        },
        'cancelled',
        `Cancelled after ${limit}`,
      );
    }
    let snapshot: TaskSnapshot;
    try {
      snapshot = await sessions.getTask(row.server, row);
    } catch (error) {
      if (!this.followed(row)) return;
      if (error instanceof TaskGoneError) {
        logEvent('task.gone', { server: row.server, tool: row.tool }, 'warn');
        return this.settle(
          row,
          { kind: 'error', errorText: ToolFailure.mcpRequest(row.server, row.tool, error).message },
          'failed',
          'The server no longer knows this task',
        );
      }
      // The server is out of reach: try again, backing off; the deadline still holds.
      const failures = row.failures + 1;
      logEvent('task.poll', { server: row.server, tool: row.tool, failures, ...errorFields(error) }, 'warn');
      const backoff = Math.min(settings.TASK_POLL_MAX_MS, pollDelay(row, settings) * 2 ** failures);
      this.parts.host().store.put({ ...row, failures, nextPollAt: Date.now() + backoff });
      if (failures >= QUIET_FAILURES)
        this.notify({ ...row, failures }, `Cannot reach the server (${failures} tries): trying again`);
      return;
    }
    // Stopped (or ended otherwise) while the server answered: what the stop wrote stays.
    if (!this.followed(row)) return;
    if (snapshot.status === 'completed') {
      const outcome = await this.outcomeOf(sessions, row, snapshot.result, settings);
      if (!this.followed(row)) return;
      return this.settle(row, outcome, 'completed', snapshot.statusMessage);
    }
    if (snapshot.status === 'failed') {
      const why = snapshot.error?.message ?? snapshot.statusMessage ?? 'the task failed';
      return this.settle(
        row,
        { kind: 'error', errorText: ToolFailure.mcpRequest(row.server, row.tool, new Error(why)).message },
        'failed',
        snapshot.statusMessage,
      );
    }
    if (snapshot.status === 'cancelled') {
      const why = `the server cancelled the task${snapshot.statusMessage ? `: ${snapshot.statusMessage}` : ''}`;
      return this.settle(
        row,
        { kind: 'error', errorText: ToolFailure.mcpRequest(row.server, row.tool, new Error(why)).message },
        'cancelled',
        snapshot.statusMessage,
      );
    }
    const next: TaskRow = {
      ...row,
      status: snapshot.status,
      statusMessage: snapshot.statusMessage,
      pollIntervalMs: snapshot.pollIntervalMs ?? row.pollIntervalMs,
      failures: 0,
      nextPollAt: Date.now() + pollDelay(snapshot, settings),
    };
    next.asked = await this.parts.questions.polled(sessions, next, snapshot);
    if (!this.followed(row)) return;
    const moved = next.status !== row.status || next.statusMessage !== row.statusMessage || row.failures > 0;
    const { store } = this.parts.host();
    if (moved || next.pollIntervalMs !== row.pollIntervalMs || next.asked.length !== row.asked.length) store.put(next);
    else store.reschedule(next.toolCallId, next.nextPollAt);
    if (moved) this.notify(next);
  }

  /** The task is still followed: not settled meanwhile (a Stop while its poll waited on the server). */
  private followed(row: TaskRow): boolean {
    return this.parts.host().store.get(row.toolCallId) !== undefined;
  }

  /** The task ended: its outcome goes into the answer, its part says how it ended, and it is followed no more. */
  settle(row: TaskRow, outcome: CallOutcome, status: TaskNotice['status'], statusMessage: string | undefined): void {
    const messages = this.parts.host().answer.load();
    const found = messageWithToolCall(messages, row.toolCallId);
    if (found) {
      const notice = {
        ...this.noticeOf(row, found.message),
        status,
        ...(statusMessage ? { statusMessage } : {}),
        updatedAt: Date.now(),
      };
      const settled = withOutcome(withTaskNotice(found.message, notice), row.toolCallId, outcome);
      // Its last task ended: the answer is about to go on (or stops), its stand-in step goes (task-messages.ts).
      this.parts.save(PendingStep.of([settled]).ready() ? withoutEmptyLastStep(settled) : settled);
    }
    this.parts.questions.ended(row.toolCallId);
    this.parts.host().store.remove(row.toolCallId);
    this.parts.ended(row, found?.index === messages.length - 1);
    logEvent('task.ended', { server: row.server, tool: row.tool, status, ms: Date.now() - row.startedAt });
  }

  /** A completed task's result as the tool call's outcome: what a call that answered at once would show (tools/model-output.ts). */
  private async outcomeOf(
    sessions: McpSessions,
    row: TaskRow,
    result: unknown,
    settings: Settings,
  ): Promise<CallOutcome> {
    const { conversation, answer } = this.parts.host();
    // Its documents as their text, as for a call answered at once (prompt/embedded-documents.ts).
    const content = (result as { content?: unknown } | undefined)?.content;
    const documents = Array.isArray(content) ? await embeddedDocuments(content, sessions.documents) : undefined;
    return callOutcome(
      row.server,
      row.tool,
      result,
      row.toolCallId,
      {
        sessions,
        settings,
        acceptsImages: conversation.acceptsImages(),
        largeResults: answer.largeResults,
      },
      documents,
    );
  }

  /** The task moved: its part in the answer says so. */
  private notify(row: TaskRow, statusMessage = row.statusMessage): void {
    const found = messageWithToolCall(this.parts.host().answer.load(), row.toolCallId);
    if (!found) return;
    const notice: TaskNotice = { ...this.noticeOf(row, found.message), status: row.status, updatedAt: Date.now() };
    if (statusMessage) notice.statusMessage = statusMessage;
    else delete notice.statusMessage;
    this.parts.save(withTaskNotice(found.message, notice));
  }

  private noticeOf(row: TaskRow, message: UIMessage): TaskNotice {
    return (
      taskNoticeOf(message, row.toolCallId) ?? {
        toolCallId: row.toolCallId,
        server: row.server,
        tool: row.tool,
        taskId: row.taskId,
        status: row.status,
        startedAt: row.startedAt,
        updatedAt: row.startedAt,
      }
    );
  }
}

/** How long until a task is polled again: the server's pollIntervalMs within our settings (mcp/extensions/tasks/poll-rules.ts). */
export function pollDelay(
  task: Pick<TaskSnapshot, 'pollIntervalMs'>,
  settings: Pick<Settings, 'TASK_POLL_MIN_MS' | 'TASK_POLL_MAX_MS'>,
): number {
  return nextPoll(task.pollIntervalMs, { min: settings.TASK_POLL_MIN_MS, max: settings.TASK_POLL_MAX_MS });
}
