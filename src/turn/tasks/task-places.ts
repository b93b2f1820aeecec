import { liveConversationsOf } from '../../limits/live-conversations';
import type { McpSessions } from '../../mcp/sessions';
import { errorFields, logEvent } from '../../observability/log';
import type { ToolTaskStarted } from '../../tools/mcp-tools';
import { ToolFailure } from '../../tools/tool-failure';
import type { HostOf } from './task-follower-host';
import { pollDelay } from './task-settlement';
import type { TaskRow } from './task-store';

/** Tries to give back an ended task's TASKS_PER_USER place before leaving it to expire (TASK_MAX_MS and a minute). */
const RELEASE_TRIES = 2;

/**
 * The places a task holds while it runs: one of its conversation's TASKS_PER_CONVERSATION (its row) and one of its
 * user's TASKS_PER_USER (limits/live-conversations.ts). A task is started only with both, and gives the user's back
 * when it ends; the follower (task-follower.ts) awaits what is being given back before the ledger hears of it.
 */
export class TaskPlaces {
  /** Tasks of the running step between their limit check and their row (see `start`). */
  private starting = 0;
  /** Ended tasks' places being given back (TASKS_PER_USER): awaited by `released` and `letGo`. */
  private releases: Promise<void>[] = [];

  constructor(private readonly host: HostOf<'store' | 'conversation' | 'activityChanged'>) {}

  /** A tool call of the running turn became a task: its row is written. Throws (after cancelling it) when one more cannot run. */
  async start({ toolCallId, server, tool, task }: ToolTaskStarted, sessions: McpSessions): Promise<void> {
    const settings = this.host().conversation.settings();
    const refuse = async (why: string): Promise<never> => {
      await sessions.cancelTask(server, task.taskId).catch(() => undefined);
      logEvent('task.refused', { server, tool, reason: why }, 'warn');
      throw ToolFailure.mcpRequest(server, tool, new Error(why));
    };
    // Calls of one step start their tasks concurrently: a place is taken before the first await, so two of them
    // cannot both see the last free one.
    if (this.host().store.all().length + this.starting >= settings.TASKS_PER_CONVERSATION) {
      await refuse(
        `${settings.TASKS_PER_CONVERSATION} tasks are already running in this conversation (TASKS_PER_CONVERSATION); this one was cancelled. Try again when they have finished.`,
      );
    }
    this.starting++;
    let taken: boolean;
    try {
      const { conversation } = this.host();
      taken = await liveConversationsOf(conversation.env, conversation.owner()).takeTask(
        conversation.name,
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
    this.host().store.put({
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
  }

  /** The task ended: its place among the user's is being given back. */
  release(row: TaskRow): void {
    this.releases.push(this.releasePlace(row));
  }

  /** Places are being given back (a task ended since they were last awaited). */
  get releasing(): boolean {
    return this.releases.length > 0;
  }

  /** Resolves once the places being given back are. */
  async released(): Promise<void> {
    await Promise.all(this.releases.splice(0));
  }

  /**
   * Tasks ended outside a turn: awaited until their places are given back and the ledger has heard (so a count read
   * after `stop` answered, by the user or the operator, no longer has them).
   */
  async letGo(): Promise<void> {
    await this.released();
    await this.host().activityChanged();
  }

  /** The conversation is being deleted: every place its tasks held among the user's is freed. */
  async releaseAll(): Promise<void> {
    const { conversation } = this.host();
    await liveConversationsOf(conversation.env, conversation.owner())
      .releaseTask(conversation.name)
      .catch((error) => logEvent('task.ended', { status: 'abandoned', ...errorFields(error) }, 'warn'));
  }

  /** The task's place among the user's TASKS_PER_USER given back; tried again once, then left to expire (logged). */
  private async releasePlace(row: TaskRow): Promise<void> {
    const { conversation } = this.host();
    const places = liveConversationsOf(conversation.env, conversation.owner());
    for (let tries = 1; ; tries++) {
      try {
        return await places.releaseTask(conversation.name, row.toolCallId);
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
}
