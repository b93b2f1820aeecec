import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { UIMessage } from 'ai';
import type { McpSessions, StartedTask } from '../../mcp/sessions';
import type { ToolTaskStarted } from '../../tools/mcp-tools';
import type { ElicitationAnswer } from '../elicitations';
import { LegacyTaskQuestions } from './legacy-task-questions';
import type { PollOutcome, TaskFollowerHost } from './task-follower-host';
import { withTaskWait } from './task-messages';
import { TaskPlaces } from './task-places';
import { TaskQuestions } from './task-questions';
import { TaskSettlement } from './task-settlement';
import type { TaskRow } from './task-store';

export type { PollOutcome, TaskAnswer, TaskConversation, TaskFollowerHost } from './task-follower-host';

/**
 * The tasks a conversation's tool calls became (MCP Tasks), followed from
 * the Durable Object's alarm — no request or socket is held while they run:
 *
 * - `started` (from the running turn's tool call): counted against
 *   TASKS_PER_CONVERSATION and TASKS_PER_USER (past either, cancelled: the
 *   model is told), written to SQLite, polled from the alarm (task-places.ts);
 * - `poll` (the alarm): `tasks/get` for each task due, its `data-task` part
 *   updated, a task past TASK_MAX_MS cancelled (task-settlement.ts); a question
 *   (`input_required`) put to the user as a `data-elicitation` part
 *   (task-questions.ts). When a task ends its result (or error) becomes the
 *   tool call's output — a settled call of the answer's pending step
 *   (turn/pending-step.ts), and the alarm's poll (task-poll.ts) asks the runner
 *   whether the answer goes on;
 * - `stop`: every task is cancelled and its step settled as stopped; its
 *   place among the user's tasks is given back, and the ledger told, before
 *   `stop` returns (the operator's count drops with the user's Stop, not at
 *   the conversation's next turn).
 *
 * Its parts reach the host through it, at each call (HostOf in task-follower-host.ts).
 */
export class TaskFollower {
  /** 2025 tasks' questions, which come on their `tasks/result` stream. */
  private readonly legacyQuestions: LegacyTaskQuestions;
  private readonly places: TaskPlaces;
  private readonly questions: TaskQuestions;
  private readonly settlement: TaskSettlement;
  /** The running poll settled a call of the last answer. */
  private answerSettled = false;
  /** Stops so far: a poll that a Stop overlapped does not report the answer settled (see `poll`). */
  private stops = 0;

  constructor(private readonly host: TaskFollowerHost) {
    const save = (message: UIMessage) => this.save(message);
    this.legacyQuestions = new LegacyTaskQuestions({
      history: host.answer,
      save,
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
    this.places = new TaskPlaces(() => this.host);
    this.questions = new TaskQuestions({ host: () => this.host, legacy: this.legacyQuestions, save });
    this.settlement = new TaskSettlement({
      host: () => this.host,
      questions: this.questions,
      save,
      ended: (row, lastAnswer) => {
        if (lastAnswer) this.answerSettled = true;
        this.places.release(row);
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
  async started(task: ToolTaskStarted, sessions: McpSessions): Promise<void> {
    await this.places.start(task, sessions);
    await this.schedule();
  }

  /**
   * Polls every task that is due and settles those that ended (task-poll.ts calls it from the alarm, with no turn
   * running: a turn's save would overwrite what a poll writes).
   */
  async poll(): Promise<PollOutcome> {
    const stops = this.stops;
    const now = Date.now();
    const due = this.running().filter((row) => row.nextPollAt <= now + 20);
    this.answerSettled = false;
    if (due.length) {
      const settings = this.host.conversation.settings();
      await this.host.withMcp(async (sessions) => {
        for (const row of due) await this.settlement.poll(sessions, row, settings);
      });
    }
    // A Stop while it polled settled the answer's calls as stopped: that answer does not go on.
    return { ended: this.places.releasing, answerSettled: this.answerSettled && stops === this.stops };
  }

  /**
   * After a poll: the places of the tasks that ended are given back, and — unless a turn went on, whose end tells it
   * — the ledger hears what the conversation holds now; the next poll is scheduled.
   */
  async afterPoll(turnRan: boolean): Promise<void> {
    if (this.places.releasing && !turnRan) await this.places.letGo();
    else await this.places.released();
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
    this.stops++;
    await this.host
      .withMcp(async (sessions) => {
        await Promise.all(rows.map((row) => sessions.cancelTask(row.server, row.taskId).catch(() => undefined)));
      })
      .catch(() => undefined);
    for (const row of rows)
      this.settlement.settle(
        row,
        { kind: 'error', errorText: 'Stopped by the user.' },
        'cancelled',
        'Stopped by the user',
      );
    const last = this.host.answer.load().at(-1);
    if (last?.role === 'assistant') this.save({ ...last, metadata: { ...(last.metadata as object), stopped: true } });
    await this.schedule();
    await this.places.letGo();
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
    await this.places.releaseAll();
  }

  /** The user's answer to a task's question (`data-elicitation` id `task:<toolCallId>:<key>`, a pending call of the answer). */
  async answer(question: { toolCallId: string; questionId: string }, answer: ElicitationAnswer): Promise<void> {
    const row = this.running().find((r) => r.toolCallId === question.toolCallId);
    await this.questions.answer(row, question.questionId, answer);
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

export type { StartedTask };
