import { PendingStep } from './pending-step';
import { assembleTurn, authRequiredNotices, compactionOf, stepsTaken } from './assembly';
import type { ClientTool, TurnHost, TurnRequest, TurnTerms } from './host';
import type { UIMessage } from 'ai';
import { ApiError } from '../errors';
import type { LiveStream } from './live-stream';
import { streamTurn } from './stream';
import type { ServerState } from '../mcp/catalog/catalog';
import { errorFields } from '../observability/log';
import type { McpSessions } from '../mcp/sessions';
import { toolCallIdsOf } from '../tools/large-results';
import { askedInProgram } from '../tools/program-api';
import type { ElicitationAnswer } from './elicitations';
import { TurnWriter } from './turn-writer';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import { type ApprovalAnswer, clientApprovals, recordAnswer, recordApprovals, type ToolCallAnswer } from './messages';
import { TurnEvents } from './turn-events';
import { endOf, type TurnReport, turnReport } from './turn-report';

/** A second turn while one runs: 409. */
const turnInProgress = () =>
  new ApiError(
    409,
    'turn_in_progress',
    'A turn is already running in this conversation; wait for it to finish, or stop it',
  );

/**
 * Where the conversation's one turn is. `starting`: claimed before the first await (a second request sees the turn
 * taken) while it is set up; `streaming` until its stream is done — readable after that, for clients that resume,
 * until the next turn starts.
 */
type TurnState =
  | { kind: 'idle'; last?: LiveStream | undefined }
  | { kind: 'starting'; controller: AbortController; setUp: Promise<LiveStream>; last?: LiveStream | undefined }
  | { kind: 'streaming'; controller: AbortController; stream: LiveStream; continuation: boolean };

/**
 * The turns of one conversation, as a state machine: one at a time (a second is refused with 409), each stoppable;
 * it alone decides to continue an answer, and publishes what happens on one stream (`events`: turn-events.ts) — the
 * WebSocket broadcasts it, HTTP answers with the stream it started. What a turn needs is assembled by assembly.ts.
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

  /** A turn with new input, or a regeneration (an answer goes on only through `continueIfReady`). */
  start(request: Exclude<TurnRequest, { kind: 'continue' }>): Promise<LiveStream> {
    return this.begin(request);
  }

  private async begin(request: TurnRequest): Promise<LiveStream> {
    if (this.busy) throw turnInProgress();
    this.writer = undefined;
    const last = this.state.kind === 'streaming' ? this.state.stream : this.state.last;
    // Made now: a stop that comes while the turn is still being set up stops it too.
    const controller = new AbortController();
    let terms: TurnTerms;
    try {
      terms = this.host.terms(); // a conversation deleted meanwhile: 404, reported as every refused turn is
    } catch (error) {
      turnReport(request.kind, 'unknown')(errorFields(error), 'warn');
      throw error;
    }
    const report = turnReport(request.kind, terms.model.spec);
    const setUp = this.host.withMcp((sessions) => this.startWith(sessions, request, terms, controller.signal, report));
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
   * result, a task's end): nothing of it waits any more (pending-step.ts: no decision, client result, task or task's
   * question), and no turn is running. Undefined while it may not go on.
   */
  async continueIfReady(): Promise<LiveStream | undefined> {
    if (this.busy || !PendingStep.of(this.host.store.load()).ready()) return undefined;
    return this.begin({ kind: 'continue' });
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
   * A server needs the user (again) during the running turn: a Connect card in its stream (turn-writer.ts). Without a
   * running turn, the next turn's start carries it.
   */
  async authRequired(state: ServerState): Promise<void> {
    if (this.running) await this.writer?.authRequired(state);
  }

  /** A server asks the user something: a form in the running turn's stream. With no turn running, nobody can answer: cancelled. */
  async elicit(
    server: string,
    params: ElicitRequestFormParams,
    signal: AbortSignal | undefined,
  ): Promise<ElicitResult> {
    // Nobody is asked from inside a program (its tool call is refused: tools/program-api.ts).
    if (!this.running || !this.writer || askedInProgram()) return { action: 'cancel' };
    return this.writer.ask(server, params, signal);
  }

  /** The user's answer to a server's question (404 when none waits with that id; 400 when it does not fit the schema). */
  answerElicitation(id: string, answer: ElicitationAnswer): void {
    if (!this.writer) throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    this.writer.answer(id, answer);
  }

  /** For `remove()`: the running turn is stopped and nothing of it is kept in memory. */
  forget(): void {
    if (this.state.kind !== 'idle') this.state.controller.abort();
    this.state = { kind: 'idle' };
  }

  private async startWith(
    sessions: McpSessions,
    request: TurnRequest,
    terms: TurnTerms,
    abortSignal: AbortSignal,
    report: TurnReport,
  ): Promise<LiveStream> {
    const { store, largeResults } = this.host;
    const { model } = terms;
    const { stored, base, newMessages, replaceFrom, owner, settings, meter, turn } = await assembleTurn(
      this.host,
      sessions,
      request,
      terms,
      { clientTools: this.clientTools, write: (chunk) => this.writer?.send(chunk) },
    );
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
    const compaction = model.promptCache
      ? compactionOf(this.host.compaction, sent, request.kind === 'message', settings)
      : undefined;
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
          this.writer = new TurnWriter(write, this.host.env, owner, settings.ELICITATION_TIMEOUT_MS, abortSignal);
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
