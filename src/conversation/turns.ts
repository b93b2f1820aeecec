import { jsonSchema, tool, type ToolSet, type UIMessage, type UIMessageChunk } from 'ai';
import { connectLinks } from '../auth/connect-links';
import { loadConfig, type Settings } from '../config';
import { ApiError } from '../errors';
import { takeTurn } from '../limits/turn-limits';
import type { LiveStream } from '../loop/live-stream';
import type { ResolvedModel } from '../models/resolve';
import { runTurn, type TurnMetadata } from '../loop/turn';
import { prepareTurnContext } from '../loop/turn-context';
import type { ServerState } from '../mcp/catalog';
import { errorFields, logEvent, type LogFields, type LogLevel } from '../observability/log';
import type { McpSessions } from '../mcp/sessions';
import { toolCallIdsOf, type LargeResultStore } from '../tools/large-results';
import { TurnElicitations, type ElicitationAnswer } from '../loop/elicitations';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import { type ApprovalAnswer, type History, pendingApprovals, regenerationCut, settleOpenToolCalls, type ToolCallAnswer } from './history';
import type { Owner } from './record';
import type { AppToolCall } from '../../shared/api/views';

/**
 * What starts a turn:
 * - `message`: new input (a user message, or a prompt's messages);
 * - `continue`: the conversation goes on after the user answered an
 *   approval (no new input, and not a new turn for the rate limiter);
 * - `regenerate`: a new answer replaces `messageId` (or the last answer) once it completes.
 */
export type TurnRequest = { kind: 'message'; newMessages: UIMessage[] } | { kind: 'continue' } | { kind: 'regenerate'; messageId?: string | undefined };

/** A tool the chat client runs itself (`useAgentChat`'s tools with `execute`): the model may call it; the client sends the result. */
export interface ClientTool {
  name: string;
  description?: string | undefined;
  parameters?: unknown;
}

export interface TurnHost {
  env: Env;
  /** The conversation id (its requests share one provider prompt cache). */
  conversation: string;
  history: History;
  largeResults: LargeResultStore;
  owner(): Owner;
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /** The turn ended (saved, stopped or failed): the sessions' idle clock restarts. */
  ended(): void;
  /** The turn's messages were saved (completed or stopped). */
  saved(messages: UIMessage[]): void;
  /** A turn started streaming (`continuation`: it goes on from the last assistant message). */
  started(stream: LiveStream, continuation: boolean): void;
}

/**
 * The turns of one conversation: one at a time (a second is refused with
 * 409), each stoppable. The running turn's stream stays readable until the
 * next starts, for clients that resume.
 */
export class TurnRunner {
  private live: LiveStream | undefined;
  /** Set while a turn is being started: claimed before the first await, so a second request sees the turn as taken. */
  private starting = false;
  private controller: AbortController | undefined;
  /** The client tools of the latest chat request: a continuation after their results offers them again. */
  private clientTools: ClientTool[] = [];
  /** The questions servers ask the user during the running turn (none while a turn is set up or after it ended). */
  private elicitations: TurnElicitations | undefined;
  /** Adds chunks of our own to the running turn's stream (none while no turn streams). */
  private write: ((chunk: UIMessageChunk) => void) | undefined;
  /** The turn being set up, if one is. */
  private setUp: Promise<unknown> | undefined;
  /** The turn being streamed continues the last assistant message (after an approval). */
  private continuing = false;

  constructor(private readonly host: TurnHost) {}

  /** A turn is being started or streamed. */
  get busy(): boolean {
    return this.starting || (this.live !== undefined && !this.live.done);
  }

  /** The turn being streamed, if one is. */
  get running(): LiveStream | undefined {
    return this.live && !this.live.done ? this.live : undefined;
  }

  get runningTurn(): { stream: LiveStream; continuation: boolean } | undefined {
    const stream = this.running;
    return stream ? { stream, continuation: this.continuing } : undefined;
  }

  /** The client tools a chat request declared (kept for the continuations of its turn). */
  offerClientTools(tools: ClientTool[]): void {
    this.clientTools = tools;
  }

  async start(request: TurnRequest, model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    if (this.busy) throw new ApiError(409, 'turn_in_progress', 'A turn is already running in this conversation; wait for it to finish, or stop it');
    this.starting = true;
    this.elicitations = undefined;
    // Made now: a stop that comes while the turn is still being set up stops it too.
    const controller = (this.controller = new AbortController());
    const report = turnReport(request.kind, model.spec);
    const setUp = this.host.withMcp((sessions) => this.startWith(sessions, request, model, overrides, controller.signal, report));
    this.setUp = setUp;
    try {
      return await setUp;
    } catch (error) {
      report(errorFields(error), 'warn'); // refused (409, 429) or failed before it streamed
      throw error;
    } finally {
      this.starting = false;
      this.setUp = undefined;
    }
  }

  /** Resolves when no turn is being set up or streamed (its save done). */
  async whenIdle(): Promise<void> {
    await this.setUp?.catch(() => undefined);
    await this.live?.ended;
  }

  /** Stops the running turn (its partial answer is kept, marked stopped). False when none is running. */
  stop(): boolean {
    if (!this.busy || !this.controller || this.controller.signal.aborted) return false;
    this.controller.abort(new DOMException('Stopped by the user', 'AbortError'));
    return true;
  }

  /**
   * The user's decisions on tool calls waiting for approval (recorded by
   * History); the turn goes on once every call of the step is answered —
   * until then, undefined.
   */
  async approve(answers: ApprovalAnswer[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream | undefined> {
    if (this.busy) throw new ApiError(409, 'turn_in_progress', 'A turn is already running in this conversation; wait for it to finish, or stop it');
    if (this.host.history.recordApprovals(answers) === 'waiting') return undefined;
    return this.start({ kind: 'continue' }, model, overrides);
  }

  /** Approval answers as a chat client sends them (see `History.clientApprovals`). */
  async approveFromClient(answers: ApprovalAnswer[], model: ResolvedModel): Promise<LiveStream | undefined> {
    return this.approve(this.host.history.clientApprovals(answers), model);
  }

  /**
   * Records a decision or a client tool's result without continuing (the
   * WebSocket continues separately, under its own request id). `ready` when
   * nothing in the step waits any more.
   */
  record(answer: ToolCallAnswer): { message: UIMessage; ready: boolean } {
    // A turn's own save would overwrite the answer: it waits for the turn (the client is sent the transcript).
    if (this.busy) throw new ApiError(409, 'turn_in_progress', 'A turn is running; answer once it has finished');
    return this.host.history.recordAnswer(answer);
  }

  /**
   * A server needs the user (again) during the running turn — its grant
   * ended, or a tool needs more access: the Connect card goes into the
   * stream now, not at the next turn. (Without a running turn, the next
   * turn's start carries it.)
   */
  async authRequired(state: ServerState): Promise<void> {
    const write = this.write;
    if (!this.running || !write) return;
    for (const chunk of await authRequiredNotices(this.host.env, this.host.owner(), [state])) write(chunk);
  }

  /** A server asks the user something: a form in the running turn's stream. With no turn running, nobody can answer: cancelled. */
  async elicit(server: string, params: ElicitRequestFormParams, signal: AbortSignal | undefined): Promise<ElicitResult> {
    if (!this.running || !this.elicitations) return { action: 'cancel' };
    return this.elicitations.ask(server, params, signal);
  }

  /** The user's answer to a server's question (404 when none waits with that id; 400 when it does not fit the schema). */
  answerElicitation(id: string, answer: ElicitationAnswer): void {
    if (!this.elicitations) throw new ApiError(404, 'elicitation_not_found', `No question ${id} is waiting for an answer`);
    this.elicitations.answer(id, answer);
  }

  /** For `remove()`: the running turn is stopped and nothing of it is kept in memory. */
  forget(): void {
    this.controller?.abort();
    this.live = undefined;
  }

  private async startWith(
    sessions: McpSessions,
    request: TurnRequest,
    model: ResolvedModel,
    overrides: Partial<Settings>,
    abortSignal: AbortSignal,
    report: TurnReport,
  ): Promise<LiveStream> {
    const { history } = this.host;
    const stored = history.load();
    let base = stored;
    let newMessages: UIMessage[] = [];
    let replaceFrom: string | undefined;
    if (request.kind === 'message') {
      newMessages = request.newMessages;
      if (pendingApprovals(stored).length) {
        throw new ApiError(409, 'approval_pending', 'A tool call is waiting for approval: answer it with POST /approvals before sending a new message');
      }
      const settled = settleOpenToolCalls(stored);
      if (settled) {
        history.save([settled], false);
        base = [...stored.slice(0, -1), settled];
      }
    } else if (request.kind === 'regenerate') {
      const cut = regenerationCut(stored, request.messageId);
      if (!cut)
        throw new ApiError(404, 'message_not_found', request.messageId ? `No message ${request.messageId} to regenerate` : 'There is no answer to regenerate');
      base = stored.slice(0, cut.keep);
      replaceFrom = cut.replaceFrom;
    }
    const config = loadConfig(this.host.env);
    if (request.kind !== 'continue') await takeTurn(this.host.env, config, this.host.owner());
    const settings = { ...config.settings, ...overrides };
    const context = await prepareTurnContext(sessions, settings, model.acceptsImages, Date.now(), this.host.largeResults, (call) =>
      this.write?.(appCallPart(call)),
    );
    context.tools = { ...clientToolSet(this.clientTools, context.tools), ...context.tools };
    // Written now, so that an abort mid-turn cannot make the user's message vanish (see History).
    history.begin(newMessages, request.kind === 'continue' ? stored.at(-1) : undefined);
    const save = (messages: UIMessage[]) => {
      this.elicitations = undefined;
      this.write = undefined;
      if (replaceFrom) {
        history.replaceFrom(replaceFrom, messages);
        // The replaced answer's long tool results go with it.
        this.host.largeResults.keepOnly(toolCallIdsOf(messages));
      } else history.save(messages);
      this.host.saved(messages);
      this.host.ended();
      report(endOf(messages));
    };
    const authNotices = await authRequiredNotices(this.host.env, this.host.owner(), context.states);
    try {
      this.live = await runTurn({
        ...context,
        notices: authNotices,
        // Interrupted turns' messages are shown to users, never to the model.
        messages: [...base.filter((m) => !(m.metadata as { interrupted?: unknown } | undefined)?.interrupted), ...newMessages],
        model,
        conversation: this.host.conversation,
        settings,
        abortSignal,
        onWriter: (write) => {
          this.elicitations = new TurnElicitations(write, settings.ELICITATION_TIMEOUT_MS, abortSignal);
          this.write = write;
        },
        onComplete: save,
        onStopped: save,
        onFailed: (error) => {
          this.elicitations = undefined;
          this.write = undefined;
          history.rollback();
          // Long results its tool calls kept belong to a message that was never saved.
          this.host.largeResults.keepOnly(toolCallIdsOf(history.load()));
          this.host.ended();
          report(error === undefined ? { outcome: 'error' } : errorFields(error), 'warn');
        },
      });
    } catch (error) {
      history.rollback();
      throw error;
    }
    this.continuing = request.kind === 'continue';
    this.host.started(this.live, this.continuing);
    return this.live;
  }
}

/**
 * One `data-auth-required` part per server the user must connect (or grant
 * more access to), with their connect link: the frontend shows a Connect
 * card. Transient — links are short-lived capabilities, never stored in the history.
 */
async function authRequiredNotices(env: Env, owner: Owner, states: ServerState[]): Promise<UIMessageChunk[]> {
  const needing = states.filter((s) => s.status === 'auth_required' || s.authorization?.reason === 'insufficient_scope');
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
      inputSchema: jsonSchema((clientTool.parameters ?? { type: 'object', properties: {} }) as Parameters<typeof jsonSchema>[0]),
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

/** How a saved turn ended, from its answer's metadata (loop/turn.ts `TurnMetadata`). */
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
