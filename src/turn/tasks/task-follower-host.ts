import type { UIMessage } from 'ai';
import type { Settings } from '../../config';
import type { McpSessions } from '../../mcp/sessions';
import type { Owner } from '../../owner';
import type { LargeResultStore } from '../../tools/large-results';
import type { TaskStore } from './task-store';

/*
 * What the task follower (task-follower.ts) is given by its conversation, and what a poll tells the alarm: the
 * contract, apart from how the follower and its parts keep it.
 */

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

/**
 * The follower's host as its parts reach it: through the follower, at each call, never kept — the host is the
 * follower's field, and what replaces it (test/task-poll-crossings.test.ts counts every call of it) holds for them too.
 */
export type HostOf<K extends keyof TaskFollowerHost> = () => Pick<TaskFollowerHost, K>;

/** What a poll did: whether a task ended, and whether one of the last answer's calls was settled (it may go on). */
export interface PollOutcome {
  ended: boolean;
  answerSettled: boolean;
}
