import type { UIMessage } from 'ai';
import type { AppConfig, Settings } from '../config';
import type { McpSessions } from '../mcp/sessions';
import type { ResolvedModel } from '../models/resolve';
import type { Owner } from '../owner';
import type { LargeResultStore } from '../tools/large-results';
import type { ToolTaskStarted } from '../tools/mcp-tools';
import type { Spent } from '../usage/ledger';
import type { UsageSink } from '../usage/meter';
import type { SkillRef } from '../../shared/api/conversations';
import type { TurnStore } from './store';

/*
 * What a turn is asked to do, and what it needs of the conversation it runs in (conversation/ wires it; turn/ never
 * imports conversation/): the types the runner (runner.ts) and the assembly of a turn (assembly.ts) share.
 */

/**
 * What starts a turn:
 * - `message`: new input (a user message, or a prompt's messages);
 * - `continue`: the conversation goes on after the user answered an
 *   approval (no new input, and not a new turn for the rate limiter);
 * - `regenerate`: a new answer replaces `messageId` (or the last answer) once it completes.
 */
export type TurnRequest =
  | { kind: 'message'; newMessages: UIMessage[] }
  | { kind: 'continue' }
  | { kind: 'regenerate'; messageId?: string | undefined };

/** A tool the chat client runs itself (`useAgentChat`'s tools with `execute`): the model may call it; the client sends the result. */
export interface ClientTool {
  name: string;
  description?: string | undefined;
  parameters?: unknown;
}

/** What the runner needs of the conversation it runs turns for (conversation/ wires it; turn/ never imports conversation/). */
export interface TurnHost {
  env: Env;
  /** The conversation id (its requests share one provider prompt cache). */
  conversation: string;
  store: TurnStore;
  largeResults: LargeResultStore;
  /** What the turn runs on, read from the conversation once when it starts (conversation/terms.ts). */
  terms(): TurnTerms;
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /** The tasks the conversation's tool calls became (MCP Tasks): a call that becomes one is recorded there. */
  tasks: TurnTasks;
  /**
   * When the conversation's turns started: the cost planner's pace (conversation/pace.ts). `mark` records a turn a
   * person asked for (`at`; none for a continuation) and says the gaps between the turns so far.
   */
  pace: { mark(at: number | undefined): number[] };
  /** Where the turn's usage goes, and what the ledger says was spent (conversation/usage-outbox.ts). */
  usage: UsageSink & { spent(user: string): Promise<Spent> };
  /** The user message before which earlier reads are notes (conversation/compaction.ts). */
  compaction: { get(): string | undefined; set(messageId: string | undefined): void };
}

/**
 * What a turn needs of the conversation's tasks (turn/tasks/task-follower.ts). Whether tasks run is not asked:
 * the answer's pending step says it (pending-step.ts, a `task` call).
 */
export interface TurnTasks {
  /** Records a tool call that became a task (throws, having cancelled it, when one more cannot run). */
  started(started: ToolTaskStarted, sessions: McpSessions): Promise<void>;
}

/** The conversation's model, settings and owner, as the entry points of a turn read them (requests.ts). */
export interface TurnSettings {
  model(): ResolvedModel;
  settings(): Settings;
  config(): AppConfig;
  owner(): Owner;
}

/**
 * What one turn runs on, read from the conversation once when it starts (one crossing, not one per field): its model,
 * settings, configuration, owner, and the skills the conversation pins (loaded into every turn).
 */
export interface TurnTerms {
  model: ResolvedModel;
  settings: Settings;
  config: AppConfig;
  owner: Owner;
  pinnedSkills: SkillRef[];
}
