import type { UIMessage } from 'ai';
import type { ElicitationNotice, TaskNotice } from '../../../shared/api/stream';
import type { Settings } from '../../config';
import { ApiError } from '../../errors';
import { liveConversationsOf } from '../../limits/live-conversations';
import type { McpSessions, StartedTask, TaskSnapshot } from '../../mcp/sessions';
import { TaskGoneError } from '../../mcp/sessions';
import { pollDelay as nextPoll } from '../../mcp/extensions';
import { errorFields, logEvent } from '../../observability/log';
import type { Owner } from '../../owner';
import type { LargeResultStore } from '../../tools/large-results';
import type { ToolTaskStarted } from '../../tools/mcp-tools';
import { callOutcome } from '../../tools/model-output';
import { embeddedDocuments } from '../../prompt/embedded-documents';
import { ToolFailure } from '../../tools/tool-failure';
import { checkedAnswer, type ElicitationAnswer } from '../elicitations';
import {
  elicitationOf,
  messageWithToolCall,
  taskNoticeOf,
  withElicitation,
  withoutEmptyLastStep,
  withTaskNotice,
  withTaskWait,
} from './task-messages';
import { type CallOutcome, PendingStep, withOutcome } from '../pending-step';
import type { TaskRow, TaskStore } from './task-store';
import { LegacyTaskQuestions } from './legacy-task-questions';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';

/**
 * What the follower works with (conversation/wiring.ts gives it): where its tasks are kept, the MCP sessions they run
 * in, the clock that wakes it (the object's alarm), and the answer they belong to. It never starts or continues a
 * turn: the alarm's poll (task-poll.ts) asks the runner once the answer may go on.
 */
export interface TaskFollowerHost {
  store: TaskStore;
  /** Whose conversation it is, and what it runs with (conversation/terms.ts). */
  conversation: TaskConversation;
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /** The alarm's `tasks` job: when the follower is to poll next (none: nothing to poll). */
  clock: { schedule(at: number): Promise<void>; cancel(): Promise<void> };
  /** The answer the tasks belong to: the only way the follower reads or edits it. */
  answer: TaskAnswer;
  /**
   * Tasks ended with no turn after them (a turn's end tells the ledger anyway): the tenant's ledger hears what the
   * conversation holds now (usage-outbox.ts); resolves once it was sent, or once the send that failed is left to
   * the alarm to try again.
   */
  activityChanged(): Promise<void>;
}

/** The conversation a follower works for. */
export interface TaskConversation {
  env: Env;
  /** The conversation id. */
  name: string;
  settings(): Settings;
  owner(): Owner;
  acceptsImages(): boolean;
}

/** The conversation's answer as the follower sees it. */
export interface TaskAnswer {
  load(): UIMessage[];
  /** Where the answer's long tool results are kept (a task's result may be one). */
  largeResults: LargeResultStore;
  /** Saves a message changed outside a turn; every open tab gets it. */
  save(message: UIMessage): void;
}

/** What a poll did: whether a task ended, and whether one of the last answer's calls was settled (it may go on). */
export interface PollOutcome {
  ended: boolean;
  answerSettled: boolean;
}

/** Polls in a row that could not reach the server before the step says so. */
const QUIET_FAILURES = 2;
/** Tries to give back an ended task's TASKS_PER_USER place before leaving it to expire (TASK_MAX_MS and a minute). */
const RELEASE_TRIES = 2;

/**
 * The tasks a conversation's tool calls became (MCP Tasks), followed from
 * the Durable Object's alarm — no request or socket is held while they run:
 *
 * - `started` (from the running turn's tool call): counted against
 *   TASKS_PER_CONVERSATION and TASKS_PER_USER (past either, cancelled: the
 *   model is told), written to SQLite, polled from the alarm;
 * - `poll` (the alarm): `tasks/get` for each task due, at the server's
 *   `pollIntervalMs` clamped to TASK_POLL_MIN_MS..TASK_POLL_MAX_MS; the
 *   `data-task` part of the answer updated; a question (`input_required`)
 *   put to the user as a `data-elicitation` part; a task past TASK_MAX_MS
 *   cancelled; a task the server forgot is an error, never a wait. When a
 *   task ends its result (or error) becomes the tool call's output — a
 *   settled call of the answer's pending step (turn/pending-step.ts), and the
 *   alarm's poll (task-poll.ts) asks the runner whether the answer goes on;
 * - `stop`: every task is cancelled and its step settled as stopped; its
 *   place among the user's tasks is given back, and the ledger told, before
 *   `stop` returns (the operator's count drops with the user's Stop, not at
 *   the conversation's next turn).
 */
export class TaskFollower {
  /** Tasks of the running step between their limit check and their row (see `started`). */
  private starting = 0;
  /** 2025 tasks' questions, which come on their `tasks/result` stream. */
  private readonly legacyQuestions: LegacyTaskQuestions;
  /** Ended tasks' places being given back (TASKS_PER_USER): awaited by `letGo`. */
  private releases: Promise<void>[] = [];
  /** The running poll settled a call of the last answer. */
  private answerSettled = false;

  constructor(private readonly host: TaskFollowerHost) {
    this.legacyQuestions = new LegacyTaskQuestions({
      history: host.answer,
      save: (message) => this.save(message),
      rows: () => this.running(),
      elicitationTimeoutMs: () => host.conversation.settings().ELICITATION_TIMEOUT_MS,
      withMcp: (work) => host.withMcp(work),
      pollSoon: (toolCallId) => {
        const row = host.store.get(toolCallId);
        if (!row) return;
        host.store.reschedule(toolCallId, Date.now());
        void this.schedule().catch(() => undefined);
      },
    });
  }

  /** Tasks are running (a new message waits: 409 `task_running`). */
  get pending(): boolean {
    return this.host.store.all().length > 0;
  }

  running(): TaskRow[] {
    return this.host.store.all();
  }

  /** A tool call of the running turn became a task. Throws (after cancelling it) when one more cannot run. */
  async started({ toolCallId, server, tool, task }: ToolTaskStarted, sessions: McpSessions): Promise<void> {
    const settings = this.host.conversation.settings();
    const refuse = async (why: string): Promise<never> => {
      await sessions.cancelTask(server, task.taskId).catch(() => undefined);
      logEvent('task.refused', { server, tool, reason: why }, 'warn');
      throw ToolFailure.mcpRequest(server, tool, new Error(why));
    };
    // Calls of one step start their tasks concurrently: a place is taken before the first await, so two of them
    // cannot both see the last free one.
    if (this.running().length + this.starting >= settings.TASKS_PER_CONVERSATION) {
      await refuse(
        `${settings.TASKS_PER_CONVERSATION} tasks are already running in this conversation (TASKS_PER_CONVERSATION); this one was cancelled. Try again when they have finished.`,
      );
    }
    this.starting++;
    let taken: boolean;
    try {
      taken = await liveConversationsOf(this.host.conversation.env, this.host.conversation.owner()).takeTask(
        this.host.conversation.name,
        toolCallId,
        settings.TASKS_PER_USER,
        // A little past TASK_MAX_MS, when the follower cancels the task and frees the place itself.
        settings.TASK_MAX_MS + 60_000,
      );
    } finally {
      this.starting--;
    }
    if (!taken) {
      await refuse(
        `the user already has ${settings.TASKS_PER_USER} tasks running (TASKS_PER_USER); this one was cancelled. Try again when one has finished.`,
      );
    }
    const now = Date.now();
    this.host.store.put({
      toolCallId,
      server,
      tool,
      taskId: task.taskId,
      era: task.era,
      startedAt: now,
      deadlineAt: now + settings.TASK_MAX_MS,
      nextPollAt: now + pollDelay(task.snapshot, settings),
      status: task.snapshot.status,
      statusMessage: task.snapshot.statusMessage,
      pollIntervalMs: task.snapshot.pollIntervalMs,
      failures: 0,
      asked: [],
    });
    logEvent('task.started', { server, tool, era: task.era });
    await this.schedule();
  }

  /**
   * Polls every task that is due and settles those that ended (task-poll.ts calls it from the alarm, with no turn
   * running: a turn's save would overwrite what a poll writes).
   */
  async poll(): Promise<PollOutcome> {
    const now = Date.now();
    const due = this.running().filter((row) => row.nextPollAt <= now + 20);
    this.answerSettled = false;
    if (due.length) {
      const settings = this.host.conversation.settings();
      await this.host.withMcp(async (sessions) => {
        for (const row of due) await this.pollOne(sessions, row, settings);
      });
    }
    return { ended: this.releases.length > 0, answerSettled: this.answerSettled };
  }

  /**
   * After a poll: the places of the tasks that ended are given back, and — unless a turn went on, whose end tells it
   * — the ledger hears what the conversation holds now; the next poll is scheduled.
   */
  async afterPoll(turnRan: boolean): Promise<void> {
    if (this.releases.length && !turnRan) await this.letGo();
    else await Promise.all(this.releases.splice(0));
    await this.schedule();
  }

  /** Polls again in `ms` (a turn is still saving the answer the tasks belong to). */
  pollIn(ms: number): Promise<void> {
    return this.host.clock.schedule(Date.now() + ms);
  }

  /**
   * The user stopped the conversation's work: each task is cancelled on its
   * server (best effort: cancelling is cooperative) and its step settled as
   * stopped; the answer does not go on. False when no task ran.
   */
  async stop(): Promise<boolean> {
    const rows = this.running();
    if (!rows.length) return false;
    await this.host
      .withMcp(async (sessions) => {
        await Promise.all(rows.map((row) => sessions.cancelTask(row.server, row.taskId).catch(() => undefined)));
      })
      .catch(() => undefined);
    for (const row of rows)
      this.settle(row, { kind: 'error', errorText: 'Stopped by the user.' }, 'cancelled', 'Stopped by the user');
    const last = this.host.answer.load().at(-1);
    if (last?.role === 'assistant') this.save({ ...last, metadata: { ...(last.metadata as object), stopped: true } });
    await this.schedule();
    await this.letGo();
    return true;
  }

  /**
   * The conversation is being deleted: each task is cancelled on its server (best effort) and every place it held
   * among the user's TASKS_PER_USER is freed. Nothing is written: the conversation's storage goes with it.
   */
  async abandon(): Promise<void> {
    const rows = this.running();
    if (rows.length)
      await this.host
        .withMcp((sessions) =>
          Promise.all(rows.map((row) => sessions.cancelTask(row.server, row.taskId).catch(() => undefined))),
        )
        .catch(() => undefined);
    await liveConversationsOf(this.host.conversation.env, this.host.conversation.owner())
      .releaseTask(this.host.conversation.name)
      .catch((error) => logEvent('task.ended', { status: 'abandoned', ...errorFields(error) }, 'warn'));
  }

  /** The user's answer to a task's question (`data-elicitation` id `task:<toolCallId>:<key>`, a pending call of the answer). */
  async answer(question: { toolCallId: string; questionId: string }, answer: ElicitationAnswer): Promise<void> {
    const id = question.questionId;
    const row = this.running().find((r) => r.toolCallId === question.toolCallId);
    if (row?.era === 'legacy') {
      this.legacyQuestions.answer(row, id, answer);
      this.host.store.reschedule(row.toolCallId, Date.now() + this.host.conversation.settings().TASK_POLL_MIN_MS);
      await this.schedule();
      return;
    }
    const key = row && id.slice(`task:${row.toolCallId}:`.length);
    const found = row && messageWithToolCall(this.host.answer.load(), row.toolCallId);
    const notice = found && elicitationOf(found.message, id);
    if (!row || !key || !found || notice?.status !== 'pending')
      throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    const checked = checkedAnswer(notice.requestedSchema, answer);
    await this.host.withMcp((sessions) =>
      sessions.updateTask(row.server, row.taskId, {
        [key]:
          checked.action === 'accept' ? { action: 'accept', content: checked.content } : { action: checked.action },
      }),
    );
    this.save(
      withElicitation(found.message, {
        ...notice,
        status: checked.action,
        ...(checked.content ? { content: checked.content } : {}),
      }),
    );
    // The server takes the answer eventually (tasks/update is an acknowledgement): look again soon.
    this.host.store.put({ ...row, nextPollAt: Date.now() + this.host.conversation.settings().TASK_POLL_MIN_MS });
    await this.schedule();
  }

  /** A 2025 task's question, come on its `tasks/result` stream (legacy-task-questions.ts): resolves with the answer. */
  elicit(
    server: string,
    taskId: string,
    params: ElicitRequestFormParams,
    signal: AbortSignal | undefined,
  ): Promise<ElicitResult> {
    return this.legacyQuestions.ask(server, taskId, params, signal);
  }

  private async pollOne(sessions: McpSessions, row: TaskRow, settings: Settings): Promise<void> {
    if (Date.now() > row.deadlineAt) {
      await sessions.cancelTask(row.server, row.taskId).catch(() => undefined);
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
      this.host.store.put({ ...row, failures, nextPollAt: Date.now() + backoff });
      if (failures >= QUIET_FAILURES)
        this.notify({ ...row, failures }, `Cannot reach the server (${failures} tries): trying again`);
      return;
    }
    if (snapshot.status === 'completed')
      return this.settle(
        row,
        await this.outcomeOf(sessions, row, snapshot.result, settings),
        'completed',
        snapshot.statusMessage,
      );
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
    // A 2025 task's question comes on its tasks/result stream; one it stopped waiting for is expired.
    if (snapshot.status === 'input_required' && row.era === 'legacy') this.legacyQuestions.listen(next);
    else if (snapshot.status === 'input_required') next.asked = await this.ask(sessions, next, snapshot);
    else if (row.era === 'legacy') this.legacyQuestions.expire(row.toolCallId);
    const moved = next.status !== row.status || next.statusMessage !== row.statusMessage || row.failures > 0;
    if (moved || next.pollIntervalMs !== row.pollIntervalMs || next.asked.length !== row.asked.length)
      this.host.store.put(next);
    else this.host.store.reschedule(next.toolCallId, next.nextPollAt);
    if (moved) this.notify(next);
  }

  /**
   * A task's new questions (keys never asked before: they are unique for the
   * task's life): a form (`elicitation/create`) becomes a `data-elicitation`
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
      const found = messageWithToolCall(this.host.answer.load(), row.toolCallId);
      if (!found) continue;
      const notice: ElicitationNotice = {
        id: `task:${row.toolCallId}:${key}`,
        server: row.server,
        message: params.message ?? 'The tool needs an answer',
        requestedSchema: params.requestedSchema,
        status: 'pending',
      };
      this.save(withElicitation(found.message, notice));
    }
    if (Object.keys(declined).length)
      await sessions.updateTask(row.server, row.taskId, declined).catch(() => undefined);
    return [...asked];
  }

  /** A completed task's result as the tool call's outcome: what a call that answered at once would show (tools/model-output.ts). */
  private async outcomeOf(
    sessions: McpSessions,
    row: TaskRow,
    result: unknown,
    settings: Settings,
  ): Promise<CallOutcome> {
    const { conversation, answer } = this.host;
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

  /** The task ended: its outcome goes into the answer, its part says how it ended, and it is followed no more. */
  private settle(
    row: TaskRow,
    outcome: CallOutcome,
    status: TaskNotice['status'],
    statusMessage: string | undefined,
  ): void {
    const messages = this.host.answer.load();
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
      this.save(PendingStep.of([settled]).ready() ? withoutEmptyLastStep(settled) : settled);
      if (found.index === messages.length - 1) this.answerSettled = true;
    }
    this.legacyQuestions.expire(row.toolCallId);
    this.host.store.remove(row.toolCallId);
    this.releases.push(this.releasePlace(row));
    logEvent('task.ended', { server: row.server, tool: row.tool, status, ms: Date.now() - row.startedAt });
  }

  /** The task's place among the user's TASKS_PER_USER given back; tried again once, then left to expire (logged). */
  private async releasePlace(row: TaskRow): Promise<void> {
    const places = liveConversationsOf(this.host.conversation.env, this.host.conversation.owner());
    for (let tries = 1; ; tries++) {
      try {
        return await places.releaseTask(this.host.conversation.name, row.toolCallId);
      } catch (error) {
        if (tries < RELEASE_TRIES) continue;
        logEvent(
          'task.ended',
          { server: row.server, tool: row.tool, status: 'not_released', ...errorFields(error) },
          'warn',
        );
        return;
      }
    }
  }

  /**
   * Tasks ended outside a turn: awaited until their places are given back and the ledger has heard (so a count read
   * after `stop` answered, by the user or the operator, no longer has them).
   */
  private async letGo(): Promise<void> {
    await Promise.all(this.releases.splice(0));
    await this.host.activityChanged();
  }

  /** The task moved: its part in the answer says so. */
  private notify(row: TaskRow, statusMessage = row.statusMessage): void {
    const found = messageWithToolCall(this.host.answer.load(), row.toolCallId);
    if (!found) return;
    const notice: TaskNotice = { ...this.noticeOf(row, found.message), status: row.status, updatedAt: Date.now() };
    if (statusMessage) notice.statusMessage = statusMessage;
    else delete notice.statusMessage;
    this.save(withTaskNotice(found.message, notice));
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

  /** A changed answer saved with its `waitingForTasks` flag as its pending step says (task-messages.ts). */
  private save(message: UIMessage): void {
    this.host.answer.save(withTaskWait(message));
  }

  private async schedule(): Promise<void> {
    const next = this.host.store.nextPollAt();
    if (next === undefined) await this.host.clock.cancel();
    else await this.host.clock.schedule(next);
  }
}

/** How long until a task is polled again: the server's pollIntervalMs within our settings (mcp/extensions/tasks/poll-rules.ts). */
function pollDelay(
  task: Pick<TaskSnapshot, 'pollIntervalMs'>,
  settings: Pick<Settings, 'TASK_POLL_MIN_MS' | 'TASK_POLL_MAX_MS'>,
): number {
  return nextPoll(task.pollIntervalMs, { min: settings.TASK_POLL_MIN_MS, max: settings.TASK_POLL_MAX_MS });
}

export type { StartedTask };
