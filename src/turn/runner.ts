import { programMode, programsFor } from '../sandbox/programs';
import { PendingStep } from './pending-step';
import { jsonSchema, tool, type ToolSet, type UIMessage, type UIMessageChunk } from 'ai';
import { connectLinks } from '../auth/connect-links';
import type { AppConfig, Settings } from '../config';
import { ApiError } from '../errors';
import { takeTurn } from '../limits/turn-limits';
import type { LiveStream } from './live-stream';
import type { ResolvedModel } from '../models/resolve';
import { streamTurn, type TurnMetadata } from './stream';
import { turnContext } from './context';
import type { ServerState } from '../mcp/catalog/catalog';
import { errorFields, logEvent, type LogFields, type LogLevel } from '../observability/log';
import type { McpSessions } from '../mcp/sessions';
import { toolCallIdsOf, type LargeResultStore } from '../tools/large-results';
import { openingText } from '../tools/tool-offer';
import { askedInProgram } from '../tools/program-api';
import { TurnElicitations, type ElicitationAnswer } from './elicitations';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { Owner } from '../owner';
import {
  type ApprovalAnswer,
  clientApprovals,
  pendingApprovals,
  recordAnswer,
  recordApprovals,
  regenerationCut,
  settleOpenToolCalls,
  type ToolCallAnswer,
} from './messages';
import type { TurnStore } from './store';
import { TurnEvents } from './turn-events';
import type { Spent } from '../usage/ledger';
import { startMeter, type UsageSink } from '../usage/meter';
import type { AppToolCall } from '../../shared/api/views';
import type { SkillRef } from '../../shared/api/conversations';
import type { ToolTaskStarted } from '../tools/mcp-tools';
import { CHARS_PER_TOKEN, estimateTokens } from '../prompt/tokens';

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

/**
 * A new message (or a regeneration) while tool calls of the answer run as
 * tasks: 409 naming them. Not queued: the model's next step must see the
 * tasks' results right after its calls (providers refuse a tool call
 * without its result), and a queued message would wait unseen for as long
 * as the task takes; Stop cancels them.
 */
function tasksRunning(tasks: Array<{ tool: string; server: string; startedAt: number }>): ApiError {
  const names = tasks
    .map(
      (t) => `"${t.tool}" of MCP server "${t.server}" (running for ${Math.round((Date.now() - t.startedAt) / 1000)} s)`,
    )
    .join(', ');
  return new ApiError(
    409,
    'task_running',
    `A tool call is still running as a task: ${names}. Wait for it to finish (the answer goes on by itself), or stop it.`,
  );
}

/** A second turn while one runs: 409. */
const turnInProgress = () =>
  new ApiError(
    409,
    'turn_in_progress',
    'A turn is already running in this conversation; wait for it to finish, or stop it',
  );

/** What the runner needs of the conversation it runs turns for (conversation/ wires it; turn/ never imports conversation/). */
export interface TurnHost {
  env: Env;
  /** The conversation id (its requests share one provider prompt cache). */
  conversation: string;
  store: TurnStore;
  largeResults: LargeResultStore;
  /** The model, the settings and the owner of this conversation, resolved once (conversation/context.ts). */
  context: TurnSettings;
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /** The skills the conversation pins (loaded into every turn). */
  pinnedSkills(): SkillRef[];
  /** The tasks the conversation's tool calls became (MCP Tasks): a call that becomes one is recorded there. */
  tasks: TurnTasks;
  /** When the conversation's turns started: the cost planner's pace (conversation/pace.ts). */
  pace: { started(at: number): void; gaps(): number[] };
  /** Where the turn's usage goes, and what the ledger says was spent (conversation/usage-outbox.ts). */
  usage: UsageSink & { spent(user: string): Promise<Spent> };
  /** The user message before which earlier reads are notes (conversation/compaction.ts). */
  compaction: { get(): string | undefined; set(messageId: string | undefined): void };
}

/** What a turn needs of the conversation's tasks (conversation/tasks/task-follower.ts). */
export interface TurnTasks {
  /** Tasks are running: the answer they belong to is not done; a new message waits. */
  readonly pending: boolean;
  running(): Array<{ tool: string; server: string; startedAt: number }>;
  /** Records a tool call that became a task (throws, having cancelled it, when one more cannot run). */
  started(started: ToolTaskStarted, sessions: McpSessions): Promise<void>;
}

/** The conversation's model, settings and owner, as a turn reads them. */
export interface TurnSettings {
  model(): ResolvedModel;
  settings(): Settings;
  config(): AppConfig;
  owner(): Owner;
}

/**
 * Where the conversation's one turn is. `starting`: claimed before the first
 * await (a second request sees the turn taken) while it is set up;
 * `streaming` until its stream is done — the stream stays readable after
 * that, for clients that resume, until the next turn starts.
 */
type TurnState =
  | { kind: 'idle'; last?: LiveStream | undefined }
  | { kind: 'starting'; controller: AbortController; setUp: Promise<LiveStream>; last?: LiveStream | undefined }
  | { kind: 'streaming'; controller: AbortController; stream: LiveStream; continuation: boolean };

/** The running turn's own chunks (a server's question, a Connect card) and the questions asked through them. */
interface TurnWriter {
  write(chunk: UIMessageChunk): void;
  elicitations: TurnElicitations;
}

/**
 * The turns of one conversation: one at a time (a second is refused with
 * 409), each stoppable. It alone decides to continue an answer, and it
 * publishes what happens on one stream (`events`: turn-events.ts): the
 * WebSocket broadcasts it, HTTP answers with the stream it started.
 */
export class TurnRunner {
  private state: TurnState = { kind: 'idle' };
  /** The client tools of the latest chat request: a continuation after their results offers them again. */
  private clientTools: ClientTool[] = [];
  private writer: TurnWriter | undefined;
  /** turnStarted, messageUpdated, turnEnded: the one event stream of this conversation's answer. */
  readonly events = new TurnEvents();

  constructor(private readonly host: TurnHost) {}

  /** idle, starting, or streaming (until its stream is done). */
  get phase(): 'idle' | 'starting' | 'streaming' {
    const { state } = this;
    if (state.kind === 'streaming' && state.stream.done) return 'idle';
    return state.kind;
  }

  /** A turn is being started or streamed. */
  get busy(): boolean {
    return this.phase !== 'idle';
  }

  /** The turn being streamed, if one is. */
  get running(): LiveStream | undefined {
    return this.state.kind === 'streaming' && !this.state.stream.done ? this.state.stream : undefined;
  }

  /** The turn being streamed — or, while one is being set up, its stream once it has one (undefined if it fails). */
  async streamSoon(): Promise<LiveStream | undefined> {
    if (this.state.kind === 'starting') return this.state.setUp.catch(() => undefined);
    return this.running;
  }

  get runningTurn(): { stream: LiveStream; continuation: boolean } | undefined {
    const { state } = this;
    return state.kind === 'streaming' && !state.stream.done
      ? { stream: state.stream, continuation: state.continuation }
      : undefined;
  }

  /** The client tools a chat request declared (kept for the continuations of its turn). */
  offerClientTools(tools: ClientTool[]): void {
    this.clientTools = tools;
  }

  async start(request: TurnRequest): Promise<LiveStream> {
    if (this.busy) throw turnInProgress();
    this.writer = undefined;
    const last = this.state.kind === 'streaming' ? this.state.stream : this.state.last;
    // Made now: a stop that comes while the turn is still being set up stops it too.
    const controller = new AbortController();
    const model = this.host.context.model();
    const report = turnReport(request.kind, model.spec);
    const setUp = this.host.withMcp((sessions) => this.startWith(sessions, request, model, controller.signal, report));
    this.state = { kind: 'starting', controller, setUp, last };
    try {
      const stream = await setUp;
      this.state = { kind: 'streaming', controller, stream, continuation: request.kind === 'continue' };
      this.events.emit({ type: 'turnStarted', stream, continuation: request.kind === 'continue' });
      return stream;
    } catch (error) {
      report(errorFields(error), 'warn'); // refused (409, 429) or failed before it streamed
      if (this.state.kind === 'starting' && this.state.setUp === setUp) this.state = { kind: 'idle', last };
      throw error;
    }
  }

  /**
   * The one decision to go on with the last answer, whoever brings what it waited for (an approval, a client tool's
   * result, a task's end): nothing of it waits any more (pending-step.ts), no task of the conversation runs, and no
   * turn is running. Undefined while it may not go on.
   */
  async continueIfReady(): Promise<LiveStream | undefined> {
    if (this.busy || this.host.tasks.pending || !PendingStep.of(this.host.store.load()).ready()) return undefined;
    return this.start({ kind: 'continue' });
  }

  /** Resolves when no turn is being set up or streamed (its save done). */
  async whenIdle(): Promise<void> {
    if (this.state.kind === 'starting') await this.state.setUp.catch(() => undefined);
    const { state } = this;
    await (state.kind === 'streaming' ? state.stream.ended : state.last?.ended);
  }

  /** Stops the running turn (its partial answer is kept, marked stopped). False when none is running. */
  stop(): boolean {
    const { state } = this;
    if (!this.busy || state.kind === 'idle' || state.controller.signal.aborted) return false;
    state.controller.abort(new DOMException('Stopped by the user', 'AbortError'));
    return true;
  }

  /**
   * The user's decisions on tool calls waiting for approval (saved at once);
   * the turn goes on once every call of the step is answered — until then,
   * undefined. `fromClient`: the answers as a chat client sends them (see turn/messages.ts `clientApprovals`).
   */
  async approve(answers: ApprovalAnswer[], fromClient = false): Promise<LiveStream | undefined> {
    await this.askingTurnClosed(answers.map((a) => a.toolCallId));
    if (this.busy) throw turnInProgress();
    const stored = this.host.store.load();
    const { save, next } = recordApprovals(stored, fromClient ? clientApprovals(stored, answers) : answers);
    if (save) this.host.store.save([save]);
    // A call of the same step still runs as a task: the answer goes on when it ends (the task follower asks again).
    return next === 'waiting' ? undefined : this.continueIfReady();
  }

  /**
   * Records a decision or a client tool's result without continuing (the
   * WebSocket continues separately, under its own request id). `ready` when
   * nothing in the step waits any more.
   */
  async record(answer: ToolCallAnswer): Promise<{ message: UIMessage; ready: boolean }> {
    await this.askingTurnClosed([answer.toolCallId]);
    // A turn's own save would overwrite the answer: another turn running refuses it (the client is sent the transcript).
    if (this.busy) throw new ApiError(409, 'turn_in_progress', 'A turn is running; answer once it has finished');
    const recorded = recordAnswer(this.host.store.load(), answer);
    this.saveAnswer(recorded.message);
    return recorded;
  }

  /**
   * An answer to a call the turn still being streamed asked about waits for that turn to end and be saved. The request for it
   * reaches the client before the model's step has ended — by the length of the provider's last chunks, longer on a
   * loaded service — and a quick click, or useAgentChat (which answers the moment the request shows), lands in that
   * gap. Refusing it lost the answer: the client waits for a continuation that never comes.
   */
  private async askingTurnClosed(toolCallIds: string[]): Promise<void> {
    const { state } = this;
    if (state.kind !== 'streaming' || state.stream.done) return;
    if (toolCallIds.some((id) => state.stream.asked(id))) await state.stream.ended;
  }

  /** A message of the saved answer changed outside a turn: saved, and told (unless `tell` is false: a flag only the service reads). */
  saveAnswer(message: UIMessage, tell = true): void {
    this.host.store.save([message], false);
    this.events.emit({ type: 'messageUpdated', message, tell });
  }

  /**
   * A server needs the user (again) during the running turn — its grant
   * ended, or a tool needs more access: the Connect card goes into the
   * stream now, not at the next turn. (Without a running turn, the next
   * turn's start carries it.) Never rejects: a card that cannot be made is a warning (`auth.link`), not the turn's end.
   */
  async authRequired(state: ServerState): Promise<void> {
    const writer = this.writer;
    if (!this.running || !writer) return;
    try {
      for (const chunk of await authRequiredNotices(this.host.env, this.host.context.owner(), [state]))
        writer.write(chunk);
    } catch (error) {
      logEvent('auth.link', { server: state.id, ...errorFields(error) }, 'warn');
    }
  }

  /** A server asks the user something: a form in the running turn's stream. With no turn running, nobody can answer: cancelled. */
  async elicit(
    server: string,
    params: ElicitRequestFormParams,
    signal: AbortSignal | undefined,
  ): Promise<ElicitResult> {
    // Nobody is asked from inside a program (its tool call is refused: tools/program-api.ts).
    if (!this.running || !this.writer || askedInProgram()) return { action: 'cancel' };
    return this.writer.elicitations.ask(server, params, signal);
  }

  /** The user's answer to a server's question (404 when none waits with that id; 400 when it does not fit the schema). */
  answerElicitation(id: string, answer: ElicitationAnswer): void {
    if (!this.writer) throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    this.writer.elicitations.answer(id, answer);
  }

  /** For `remove()`: the running turn is stopped and nothing of it is kept in memory. */
  forget(): void {
    if (this.state.kind !== 'idle') this.state.controller.abort();
    this.state = { kind: 'idle' };
  }

  /**
   * With a prompt cache, earlier reads are sent again as they were (every request extends the one before it). Once the
   * part of the conversation sent whole passes CONTEXT_BUDGET_TOKENS, a new turn compacts it: the reads of every turn
   * before it become one-line notes — one rewrite of the cached prefix, at a turn boundary, which later requests extend
   * — and the stream says so. Returns how many user turns are compacted.
   */
  private compaction(
    sent: UIMessage[],
    newTurn: boolean,
    settings: Settings,
  ): { turns: number; notice?: UIMessageChunk } | undefined {
    const users = sent.flatMap((m, i) => (m.role === 'user' ? [{ id: m.id, index: i }] : []));
    const stored = this.host.compaction.get();
    let point = users.findIndex((u) => u.id === stored);
    if (stored !== undefined && point < 0) this.host.compaction.set(undefined); // that message left the history
    const from = point < 0 ? 0 : users[point]!.index;
    const tokens = estimateTokens(JSON.stringify(sent.slice(from)));
    if (!newTurn || tokens <= settings.CONTEXT_BUDGET_TOKENS || users.length < 2)
      return point > 0 ? { turns: point } : undefined;
    point = users.length - 1;
    this.host.compaction.set(users[point]!.id);
    logEvent('turn.compacted', { turns: point, tokens, budget: settings.CONTEXT_BUDGET_TOKENS });
    return {
      turns: point,
      notice: {
        type: 'data-notice',
        data: {
          message: `This conversation passed its context budget (about ${tokens.toLocaleString('en-US')} tokens, CONTEXT_BUDGET_TOKENS ${settings.CONTEXT_BUDGET_TOKENS.toLocaleString('en-US')}): what was read in its ${point} earlier turn(s) is now a one-line note each for the model, which can read it again; the history keeps it all.`,
        },
      } as UIMessageChunk,
    };
  }

  private async startWith(
    sessions: McpSessions,
    request: TurnRequest,
    model: ResolvedModel,
    abortSignal: AbortSignal,
    report: TurnReport,
  ): Promise<LiveStream> {
    const { store, largeResults, context } = this.host;
    const stored = store.load();
    let base = stored;
    let newMessages: UIMessage[] = [];
    let replaceFrom: string | undefined;
    if (request.kind !== 'continue' && this.host.tasks.pending) throw tasksRunning(this.host.tasks.running());
    if (request.kind === 'message') {
      newMessages = request.newMessages;
      if (pendingApprovals(stored).length) {
        throw new ApiError(
          409,
          'approval_pending',
          'A tool call is waiting for approval: answer it with POST /approvals before sending a new message',
        );
      }
      const settled = settleOpenToolCalls(stored);
      if (settled) {
        store.save([settled], false);
        base = [...stored.slice(0, -1), settled];
      }
    } else if (request.kind === 'regenerate') {
      const cut = regenerationCut(stored, request.messageId);
      if (!cut)
        throw new ApiError(
          404,
          'message_not_found',
          request.messageId ? `No message ${request.messageId} to regenerate` : 'There is no answer to regenerate',
        );
      base = stored.slice(0, cut.keep);
      replaceFrom = cut.replaceFrom;
    }
    const owner = context.owner();
    const config = context.config();
    if (request.kind !== 'continue') await takeTurn(this.host.env, config, owner);
    // A new turn past a budget is refused here, before anything is written; a continuation finishes what was started.
    const meter = await startMeter(
      {
        owner,
        conversation: this.host.conversation,
        model,
        config,
        usage: this.host.usage,
        charsPerToken: CHARS_PER_TOKEN,
      },
      { refuse: request.kind !== 'continue' },
    );
    const settings = context.settings();
    const turnStartedAt = Date.now();
    // A turn a person asked for sets the pace; a continuation (after an approval, a task) is the same turn to them.
    if (request.kind === 'message') this.host.pace.started(turnStartedAt);
    const turn = await turnContext(sessions, {
      settings,
      acceptsImages: model.acceptsImages,
      turnStartedAt,
      model,
      gapsMs: this.host.pace.gaps(),
      openingText: openingText([...base, ...newMessages]),
      largeResults,
      onAppCall: (call) => this.writer?.write(appCallPart(call)),
      // A call's progress: a transient part in its step (never saved); a call that became a task: recorded, followed from the alarm.
      onProgress: (progress) =>
        this.writer?.write({
          type: 'data-progress',
          id: progress.toolCallId,
          data: progress,
          transient: true,
        } as UIMessageChunk),
      onTaskStarted: (started) => this.host.tasks.started(started, sessions),
      onProgramRun: (run) => meter.programRun(run),
      pinnedSkills: this.host.pinnedSkills(),
      programs: programsFor(
        this.host.env,
        programMode(
          settings,
          config.tenants?.find((t) => t.id === owner.tenant),
        ),
        settings,
      ),
    });
    turn.tools = { ...clientToolSet(this.clientTools, turn.tools), ...turn.tools };
    // Written now, so that an abort mid-turn cannot make the user's message vanish (see History).
    store.begin(newMessages, request.kind === 'continue' ? stored.at(-1) : undefined);
    const save = (messages: UIMessage[]) => {
      this.writer = undefined;
      if (replaceFrom) {
        store.replaceFrom(replaceFrom, messages);
        // The replaced answer's long tool results go with it.
        largeResults.keepOnly(toolCallIdsOf(messages));
      } else store.save(messages);
      this.events.emit({ type: 'turnEnded', messages });
      report(endOf(messages));
    };
    const authNotices = await authRequiredNotices(this.host.env, owner, turn.states);
    // Interrupted turns' messages are shown to users, never to the model.
    const sent = [
      ...base.filter((m) => !(m.metadata as { interrupted?: unknown } | undefined)?.interrupted),
      ...newMessages,
    ];
    const compaction = model.promptCache ? this.compaction(sent, request.kind === 'message', settings) : undefined;
    try {
      return await streamTurn({
        ...turn,
        notices: compaction?.notice ? [...authNotices, compaction.notice] : authNotices,
        compactedTurns: compaction?.turns,
        // A continuation is the same turn to the person: MAX_STEPS counts the steps its answer already took.
        priorSteps: request.kind === 'continue' ? stepsTaken(stored) : 0,
        messages: sent,
        model,
        conversation: this.host.conversation,
        settings,
        meter,
        abortSignal,
        onWriter: (write) => {
          this.writer = {
            write,
            elicitations: new TurnElicitations(write, settings.ELICITATION_TIMEOUT_MS, abortSignal),
          };
        },
        onComplete: save,
        onStopped: save,
        onFailed: (error) => {
          this.writer = undefined;
          store.rollback();
          // Long results its tool calls kept belong to a message that was never saved.
          largeResults.keepOnly(toolCallIdsOf(store.load()));
          this.events.emit({ type: 'turnEnded' });
          report(error === undefined ? { outcome: 'error' } : errorFields(error), 'warn');
        },
      });
    } catch (error) {
      store.rollback();
      throw error;
    }
  }
}

/**
 * One `data-auth-required` part per server the user must connect (or grant
 * more access to), with their connect link: the frontend shows a Connect
 * card. Transient — links are short-lived capabilities, never stored in the history.
 */
async function authRequiredNotices(env: Env, owner: Owner, states: ServerState[]): Promise<UIMessageChunk[]> {
  const needing = states.filter(
    (s) => s.status === 'auth_required' || s.authorization?.reason === 'insufficient_scope',
  );
  if (!needing.length) return [];
  const withLinks = await connectLinks(env, owner, needing);
  return withLinks.map(
    (state) =>
      ({
        type: 'data-auth-required',
        id: `auth-required-${state.id}`,
        transient: true,
        data: {
          server: state.id,
          reason: state.authorization?.reason ?? 'not_connected',
          ...(state.authorization?.scope ? { scope: state.authorization.scope } : {}),
          connectUrl: state.connectUrl,
        },
      }) as UIMessageChunk,
  );
}

/**
 * A call of a tool with a view (MCP Apps): the widget renders the view and
 * hands it the input, then the result (the same part id again). Not
 * transient: the history keeps it, so a reload shows the view again. The
 * model never sees data parts.
 */
function appCallPart(call: AppToolCall): UIMessageChunk {
  return { type: 'data-mcp-app', id: `mcp-app-${call.toolCallId}`, data: call } as UIMessageChunk;
}

/** Client tools as the model sees them: no `execute` (the turn ends at the call; the client answers). Names of ours win. */
function clientToolSet(tools: ClientTool[], ours: ToolSet): ToolSet {
  const set: ToolSet = {};
  for (const clientTool of tools) {
    if (ours[clientTool.name] || !/^[a-zA-Z0-9_-]{1,64}$/.test(clientTool.name)) continue;
    set[clientTool.name] = tool({
      description: `[runs in the user's app] ${clientTool.description ?? clientTool.name}`,
      inputSchema: jsonSchema(
        (clientTool.parameters ?? { type: 'object', properties: {} }) as Parameters<typeof jsonSchema>[0],
      ),
    });
  }
  return set;
}

type TurnReport = (fields: LogFields, level?: LogLevel) => void;

/** The one `turn.end` line of a turn (whichever way it ends first): kind, model, outcome, tokens, duration — never its messages. */
function turnReport(kind: TurnRequest['kind'], model: string): TurnReport {
  const started = Date.now();
  let reported = false;
  return (fields, level = 'info') => {
    if (reported) return;
    reported = true;
    logEvent('turn.end', { kind, model, ...fields, durationMs: Date.now() - started }, level);
  };
}

/** The steps the last answer took so far (0 for an answer saved before they were counted). */
function stepsTaken(messages: UIMessage[]): number {
  const last = messages.at(-1);
  return last?.role === 'assistant' ? ((last.metadata as TurnMetadata | undefined)?.steps ?? 0) : 0;
}

/** How a saved turn ended, from its answer's metadata (turn/stream.ts `TurnMetadata`). */
function endOf(messages: UIMessage[]): LogFields {
  const last = messages.at(-1);
  const metadata = last?.role === 'assistant' ? (last.metadata as TurnMetadata | undefined) : undefined;
  return {
    outcome: metadata?.stopped ? 'stopped' : 'ok',
    finishReason: metadata?.finishReason,
    stepLimitReached: metadata?.stepLimitReached,
    inputTokens: metadata?.usage?.inputTokens,
    outputTokens: metadata?.usage?.outputTokens,
  };
}
