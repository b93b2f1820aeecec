import type { Message } from '../../shared/api/common';
import {
  ChatRequestBody,
  type CompleteBody,
  type CompleteResponse,
  type ConversationSnapshot,
  type MessagesPage,
  type TitleSet,
} from '../../shared/api/conversations';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { createUIMessageStreamResponse, type UIMessage } from 'ai';
import { formatIssues, loadConfig, serversOf, type Settings } from '../config';
import { endOrphanedSessions } from '../mcp/orphaned-sessions';
import { ServerStateStore } from '../mcp/state-store';
import { ApiError, notFound } from '../errors';
import type { LiveStream } from '../loop/live-stream';
import { takeViewCall } from '../limits/turn-limits';
import { tenantAcceptsImages, tenantModel, type ResolvedModel } from '../models/resolve';
import { prepareTurn, type PreparedTurn, type TurnInputRequest } from '../loop/prepare-turn';
import type { McpSessions } from '../mcp/sessions';
import { newRequestId, type RequestMeta, withRequest } from '../observability/context';
import { errorFields, logEvent } from '../observability/log';
import { toolCallIdsOf } from '../tools/large-results';
import { readForDisplay } from '../context/resource-view';
import { chatAction, type ChatAction } from './chat-request';
import { type ChatConnection, ChatSocket } from './chat-socket';
import { directoryOf } from './directory';
import { type ApprovalAnswer, History } from './history';
import { SqlLargeResultStore } from './large-result-store';
import { LiveSessions } from './live-sessions';
import { liveConversationsOf } from '../limits/live-conversations';
import { ConversationRecordStore, isOwnedBy, type ConversationRecord, type Owner } from './record';
import { messagesBefore, transcriptWindow } from './transcript';
import { TurnRunner } from './turns';
import { SqlViewLinks } from './view-links';
import { answerView, type ViewAnswer, type ViewRequest } from './views';
import type { Attachment } from './user-message';

/** Who calls: an end user of a tenant, and the servers their browser token limits them to (if it does). */
export type Caller = Owner & { servers?: string[] | undefined };

/** What `GET /v1/conversations/:id` returns. */
export type { ConversationSnapshot } from '../../shared/api/conversations';

/** What the services need of the Durable Object they serve (the `Agent`'s own facilities). */
export interface ServicesHost {
  env: Env;
  storage: DurableObjectStorage;
  /** The conversation id. */
  name(): string;
  waitUntil(promise: Promise<unknown>): void;
  connections(): Iterable<ChatConnection>;
  /** Calls `releaseIdleSessions(lease)` in about `delayMs` (a Durable Object alarm). */
  scheduleIdleCheck(delayMs: number, lease: string): Promise<void>;
  /** Asks another conversation of the same end user to release its MCP sessions; false if it is busy. */
  yieldPeer(other: string, owner: { tenant: string; user: string }): Promise<boolean>;
}

/**
 * The parts of one conversation, wired together: the existence record, the
 * history, long tool results, the turns, the MCP sessions over time, the
 * WebSocket chat protocol, and model choice. The Durable Object's RPC
 * methods are small calls over these; tests reach them through
 * `runInDurableObject` (instance fields are not on the RPC surface).
 */
export class ConversationServices {
  readonly record: ConversationRecordStore;
  readonly history: History;
  readonly largeResults: SqlLargeResultStore;
  /** The capability links to MCP Apps views (views.ts). */
  readonly viewLinks: SqlViewLinks;
  /** The turns: one at a time (a second is refused with 409), each stoppable. */
  readonly turns: TurnRunner;
  readonly sockets: ChatSocket;
  /** The MCP sessions: built on first use, released when idle (see live-sessions.ts). */
  live: LiveSessions | undefined;
  /** Set by `remove()`: storage is gone, and this instance is about to be aborted. */
  deleted = false;

  constructor(private readonly host: ServicesHost) {
    // Synchronous SQLite: the schemas exist before any RPC method runs.
    this.record = new ConversationRecordStore(host.storage);
    this.history = new History(host.storage);
    this.largeResults = new SqlLargeResultStore(host.storage);
    this.viewLinks = new SqlViewLinks(host.storage);
    this.turns = new TurnRunner({
      env: host.env,
      conversation: host.name(),
      history: this.history,
      largeResults: this.largeResults,
      owner: () => this.row()!.owner,
      withMcp: (work) => this.withMcp(work),
      ended: () => this.live?.touch(),
      saved: (messages) => host.waitUntil(this.listActivity(messages)),
      started: (stream, continuation) => this.sockets.observe(stream, continuation),
    });
    this.sockets = new ChatSocket({
      connections: () => host.connections(),
      transcript: () => transcriptWindow(this.history.load()).messages,
      request: async (body) => {
        const parsed = ChatRequestBody.safeParse(body);
        if (!parsed.success) throw new ApiError(400, 'invalid_body', `Send {"messages": [...]} with a user message last: ${formatIssues(parsed.error)}`);
        if (parsed.data.clientTools) this.turns.offerClientTools(parsed.data.clientTools);
        return this.chat(chatAction(parsed.data), this.model());
      },
      answer: (answer) => this.turns.record(answer),
      continueTurn: () => this.turns.start({ kind: 'continue' }, this.model()),
      busy: () => this.turns.busy,
      whenIdle: () => this.turns.whenIdle(),
      running: () => this.turns.runningTurn,
      stop: () => this.turns.stop(),
      answerElicitation: (id, answer) => this.turns.answerElicitation(id, answer),
      clear: () => this.clearAll(),
      keepOnly: (ids) => {
        if (!ids.length) return this.clearAll(); // an empty list clears
        this.history.keepOnly(ids);
        this.largeResults.keepOnly(toolCallIdsOf(this.history.load()));
      },
    });
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort (and what its
    // tool calls kept belongs to an answer that was never saved).
    if (this.history.recoverInterrupted()) this.largeResults.keepOnly(toolCallIdsOf(this.history.load()));
  }

  /** Writes the existence row unless it exists (the first owner stays) and tells the owner's threads list. */
  async create(owner: Owner, servers: string[] | undefined): Promise<void> {
    this.record.create(this.host.name(), owner, servers);
    const row = this.row()!;
    await directoryOf(this.host.env, row.owner).created(row.id, row.createdAt, row.servers);
  }

  /** What `GET /v1/conversations/:id` returns (404 without the row). */
  snapshot(): ConversationSnapshot {
    const { id, createdAt, title } = this.existing();
    return {
      id,
      createdAt: new Date(createdAt).toISOString(),
      ...(title ? { title } : {}),
      messages: apiMessages(this.history.load()),
      pendingApprovals: this.history.waitingApprovals(),
    };
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(title: string): Promise<TitleSet> {
    const row = this.existing();
    this.record.setTitle(title);
    await directoryOf(this.host.env, row.owner).titled(row.id, title);
    return { id: row.id, title };
  }

  /** Older messages, a page at a time (404 for an unknown `before`). */
  messagesPage(before: string | undefined, limit: number): MessagesPage {
    this.existing();
    const page = messagesBefore(this.history.load(), before, limit);
    if (!page) throw new ApiError(404, 'message_not_found', `No message ${before} in this conversation`);
    return { messages: apiMessages(page.messages), hasMore: page.hasMore };
  }

  /** A WebSocket opened: the transcript first. An error here would reach the agents framework, which sends its stack in a frame: closed instead. */
  connectSocket(connection: ChatConnection & { close(code?: number, reason?: string): void }): void {
    try {
      if (this.row()) this.sockets.connected(connection);
      else connection.close(4004, 'conversation not found');
    } catch (error) {
      logEvent('ws.error', { conversation: this.host.name(), ...errorFields(error, { stack: true }) }, 'error');
      connection.close(1011, 'internal error');
    }
  }

  /** A WebSocket frame: each is a request of its own (a turn it starts gets a request id of its own). */
  async socketMessage(connection: ChatConnection, message: unknown): Promise<void> {
    if (this.row() && typeof message === 'string') await this.inScope(undefined, () => this.sockets.received(connection, message));
  }

  /**
   * Runs `work` in a request's scope (observability/context.ts): its log
   * lines and MCP requests carry `meta.requestId` — a fresh id for work no
   * Worker request started (a WebSocket frame, an alarm, another object's call).
   */
  inScope<T>(meta: RequestMeta | undefined, work: () => T): T {
    const tenant = meta?.tenant ?? this.row()?.owner.tenant;
    return withRequest({ requestId: meta?.requestId ?? newRequestId(), tenant, conversation: this.host.name() }, work);
  }

  /** Whether `caller` may use this conversation (anyone else gets 404, as if it did not exist). */
  ownedBy(caller: Caller): boolean {
    const row = this.row();
    return row !== undefined && isOwnedBy(row, caller, caller.servers);
  }

  /** The existence record, or undefined (never created, or deleted). */
  row(): ConversationRecord | undefined {
    return this.deleted ? undefined : this.record.read();
  }

  /** The existence record, or 404. */
  existing(): ConversationRecord {
    const row = this.row();
    if (!row) throw notFound(`Conversation ${this.host.name()}`);
    return row;
  }

  /** The model of this conversation's tenant (src/models/resolve.ts). */
  model(): ResolvedModel {
    return tenantModel(this.host.env, this.row()?.owner.tenant);
  }

  acceptsImages(): boolean {
    return tenantAcceptsImages(this.host.env, this.row()?.owner.tenant);
  }

  /** A message's turn: ownership (else 404) and the turn. */
  sendMessageAs(caller: Caller, message: UIMessage, attachments: Attachment[]): Promise<Response> {
    if (!this.ownedBy(caller)) return Promise.resolve(this.notFoundResponse());
    return this.streamResponse(() => this.inputTurn({ kind: 'message', message, attachments }, this.model()));
  }

  /** `POST /v1/chat` (`useChat`'s body); `absent` when the conversation does not exist yet (the route creates it). */
  async chatAs(caller: Caller, body: ChatRequestBody): Promise<Response | 'absent'> {
    const row = this.row();
    if (!row) return this.deleted ? this.notFoundResponse() : 'absent'; // a deleted id is never handed out again
    if (!isOwnedBy(row, caller, caller.servers)) return this.notFoundResponse();
    return this.streamResponse(() => this.chat(chatAction(body), this.model()));
  }

  /** A resource read for display (resource-view.ts). */
  readResource(request: ReadResourceBody): Promise<ResourceView> {
    const { settings } = loadConfig(this.host.env);
    return this.withMcp((sessions) => readForDisplay(sessions, request, settings, this.acceptsImages()));
  }

  /** MCP Apps (views.ts): a view's link, its document (by nonce; no owner check: the nonce is the capability), a view's tool call. */
  async view<R extends ViewRequest>(request: R): Promise<ViewAnswer<R>> {
    if (request.kind === 'call') await takeViewCall(this.host.env, loadConfig(this.host.env), this.existing().owner);
    return this.withMcp((sessions) => answerView(sessions, this.viewLinks, request) as Promise<ViewAnswer<R>>);
  }

  /** `completion/complete` for a prompt or resource-template argument (the sessions check the reference). */
  complete({ server, ...params }: CompleteBody): Promise<CompleteResponse> {
    return this.withMcp(async (sessions) => ({ server, completion: await sessions.complete(server, params) }));
  }

  /**
   * A turn's input assembled (src/loop/prepare-turn.ts), reading through the
   * MCP sessions only when it needs them (attachments, a prompt).
   */
  prepare(request: TurnInputRequest, acceptsImages: boolean, overrides: Partial<Settings> = {}): Promise<PreparedTurn> {
    if (request.kind === 'message' && !request.attachments.length) return Promise.resolve({ newMessages: [request.message] });
    const settings = { ...loadConfig(this.host.env).settings, ...overrides };
    return this.withMcp((sessions) => prepareTurn(sessions, request, { settings, acceptsImages }));
  }

  /** A turn on new input (a user message with its attachments, or a prompt's messages): assembled, then started. */
  async inputTurn(request: TurnInputRequest, model: ResolvedModel): Promise<LiveStream> {
    return this.startTurn((await this.prepare(request, model.acceptsImages)).newMessages, model);
  }

  /** The user's decisions on waiting calls; the turn goes on once nothing of the step waits (until then, undefined). */
  approve(answers: ApprovalAnswer[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream | undefined> {
    this.existing();
    return this.turns.approve(answers, model, overrides);
  }

  /** A prompt's messages as a turn would get them, without running it (no model needed: a preview). */
  async promptPreview(prompt: Extract<TurnInputRequest, { kind: 'prompt' }>): Promise<Response> {
    const { description, newMessages } = await this.prepare(prompt, this.acceptsImages());
    return Response.json({ server: prompt.server, name: prompt.name, description, messages: newMessages });
  }

  /** The turn being streamed, from its first chunk (204 when none is running). */
  resumeResponse(): Response {
    const running = this.turns.running;
    return running ? createUIMessageStreamResponse({ stream: running.reader() }) : new Response(null, { status: 204 });
  }

  /** Starts a turn on new messages (none: the conversation continues, after an approval). */
  startTurn(newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    return this.turns.start(newMessages.length ? { kind: 'message', newMessages } : { kind: 'continue' }, model, overrides);
  }

  /** Runs what a chat request asks for (HTTP and WebSocket alike). */
  async chat(action: ChatAction, model: ResolvedModel): Promise<LiveStream | undefined> {
    switch (action.kind) {
      case 'message':
        return this.inputTurn(action, model);
      case 'regenerate':
        this.existing();
        return this.turns.start({ kind: 'regenerate', messageId: action.messageId }, model);
      case 'approvals':
        return this.turns.approveFromClient(action.answers, model);
    }
  }

  /** Runs `work` with the MCP sessions (built on first use after each start, leased, not released while it runs). */
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T> {
    const row = this.row();
    if (!row) return Promise.reject(notFound(`Conversation ${this.host.name()}`));
    const { owner } = row;
    this.live ??= new LiveSessions({
      env: this.host.env,
      name: this.host.name(),
      storage: this.host.storage,
      owner: { ...owner, servers: row.servers },
      turnRunning: () => this.turns.busy,
      scheduleIdleCheck: (delayMs, lease) => this.host.scheduleIdleCheck(delayMs, lease),
      yieldSessions: (other) => this.host.yieldPeer(other, owner),
      waitUntil: (promise) => this.host.waitUntil(promise),
      elicit: (server, params, signal) => this.turns.elicit(server, params, signal),
      authRequired: (state) => void this.turns.authRequired(state).catch((error) => logEvent('auth.link', { server: state.id, ...errorFields(error) }, 'warn')),
    });
    return this.live.use(work);
  }

  /** For `remove()`: the MCP sessions end (or a restarted instance leaves the live count), the running turn stops, the threads list forgets it. */
  async remove(row: ConversationRecord): Promise<void> {
    this.deleted = true;
    // Nothing of this conversation outlives it, even if the runtime keeps the instance a while.
    await (this.live ? this.live.close() : liveConversationsOf(this.host.env, row.owner).release(this.host.name()));
    this.live = undefined;
    this.turns.forget();
    await directoryOf(this.host.env, row.owner).removed(row.id);
  }

  /**
   * Leaves the end user's live count: the sessions yield (false while in use)
   * or, held by no instance (restarted, deleted), just the count is left.
   */
  async yieldSessions(owner: { tenant: string; user: string }): Promise<boolean> {
    if (this.live) return this.live.yield();
    await this.endOrphanedSessions(owner.tenant);
    await liveConversationsOf(this.host.env, owner).release(this.host.name());
    return true;
  }

  /** The idle alarm: the sessions are released if unused for MCP_IDLE_MS (a restarted instance holds none, but may still be counted). */
  async releaseIdle(lease: string): Promise<void> {
    if (this.live) return this.live.releaseIdle(lease);
    const row = this.row();
    if (!row) return;
    await this.endOrphanedSessions(row.owner.tenant);
    await liveConversationsOf(this.host.env, row.owner).release(this.host.name());
  }

  /** This instance holds no sessions: the 2025 sessions its evicted predecessor left open are ended (orphaned-sessions.ts). */
  private async endOrphanedSessions(tenant: string): Promise<void> {
    const config = loadConfig(this.host.env);
    await endOrphanedSessions(new ServerStateStore(this.host.storage.sql), serversOf(config, tenant), this.host.env, config.settings);
  }

  /**
   * A turn's stream as an SSE response (or a response as it is; no turn: 202
   * with the calls still waiting for approval); an ApiError becomes its JSON
   * error response. The convention for RPC methods that answer a stream.
   */
  async streamResponse(start: () => Promise<LiveStream | Response | undefined>): Promise<Response> {
    try {
      const result = await start();
      if (result instanceof Response) return result;
      if (!result) return Response.json({ pendingApprovals: this.history.waitingApprovals() }, { status: 202 });
      return createUIMessageStreamResponse({ stream: result.reader() });
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      throw error;
    }
  }

  /** The 404 a route would answer for this conversation, as a response (for methods that answer a stream). */
  notFoundResponse(): Response {
    return notFound(`Conversation ${this.host.name()}`).toResponse();
  }

  clearAll(): void {
    this.history.clear();
    this.largeResults.clear();
  }

  /** The threads list hears of every saved turn (its order, and a title from the first message). */
  private async listActivity(messages: UIMessage[]): Promise<void> {
    const row = this.row();
    if (!row) return;
    const first = messages.find((m) => m.role === 'user');
    const firstText = first?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
    await directoryOf(this.host.env, row.owner).active(row.id, Date.now(), firstText);
  }
}

/**
 * The history as the API describes it (shared/api's `Message`). The one
 * place the two types meet: the AI SDK types a message's metadata `unknown`;
 * ours is always the object turns write.
 */
export function apiMessages(messages: UIMessage[]): Message[] {
  return messages as Message[];
}
