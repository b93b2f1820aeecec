import type { CallToolResult } from '@modelcontextprotocol/client';
import { Agent, getAgentByName, type Connection, type WSMessage } from 'agents';
import { createUIMessageStreamResponse, type UIMessage } from 'ai';
import { formatIssues, loadConfig, type Settings } from '../config';
import { ApiError, notFound } from '../errors';
import type { LiveStream } from '../loop/live-stream';
import { resolveModel, type ResolvedModel } from '../loop/models';
import { attachmentParts } from '../tools/attachments';
import { promptMessages } from '../tools/prompt-messages';
import { viewResource, type ResourceView } from '../tools/resource-view';
import { ChatSocket } from './chat-socket';
import { type ApprovalAnswer, History, pendingApprovals } from './history';
import type { Attachment } from './user-message';
import { chatAction, type ChatAction, ChatRequestBody } from './chat-request';
import type { ServerState } from '../mcp/catalog';
import type { McpSessions } from '../mcp/sessions';
import { liveRegistry, LiveSessions } from './live-sessions';
import { TurnRunner } from './turns';
import type { ElicitationAnswer } from '../loop/elicitations';
import { messagesBefore, transcriptWindow } from './transcript';
import { SqlLargeResultStore } from './large-result-store';
import { directoryOf } from './directory';
import { ConversationRecordStore, isOwnedBy, type Owner } from './record';
import { toRpcResult, type RpcResult } from '../rpc';

/** Body of `POST /v1/conversations/:id/complete` (validated by the route). */
export interface CompleteRequestBody {
  server: string;
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> | undefined } | undefined;
}

/** What `GET /v1/conversations/:id` returns. */
export interface ConversationSnapshot {
  id: string;
  createdAt: string;
  /** The title the user set, if any. */
  title?: string;
  /** AI SDK `UIMessage[]`; filled by the tool loop. */
  messages: unknown[];
  /** Tool calls waiting for a user's decision. */
  pendingApprovals: unknown[];
}

/**
 * One Durable Object per conversation (SQLite-backed), built on `agents`'
 * `Agent`: it gives us the SQL helper, scheduling, WebSocket plumbing and the
 * chat protocol that later layers (the tool loop) build on.
 *
 * Every Durable Object id "exists", so existence is explicit: `create()`
 * writes a row, and every other method answers 404 (or `null`) when it is
 * missing, without connecting anywhere.
 */
export class Conversation extends Agent<Env> {
  /** Set by `remove()`: storage is gone, and this instance is about to be aborted. */
  private deleted = false;
  /** The MCP sessions: built on first use, released when idle (see live-sessions.ts). */
  private liveMcp: LiveSessions | undefined;
  private readonly history: History;
  private readonly largeResults: SqlLargeResultStore;
  private readonly record: ConversationRecordStore;
  /** The turns: one at a time (a second is refused with 409), each stoppable. */
  private readonly turns: TurnRunner;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQLite: the schemas exist before any RPC method runs.
    this.record = new ConversationRecordStore(ctx.storage);
    this.history = new History(ctx.storage);
    this.largeResults = new SqlLargeResultStore(ctx.storage);
    this.turns = new TurnRunner({
      env,
      history: this.history,
      largeResults: this.largeResults,
      owner: () => this.row()!.owner,
      withMcp: (work) => this.withMcp(work),
      ended: () => this.liveMcp?.touch(),
      saved: (messages) => this.ctx.waitUntil(this.listActivity(messages)),
      started: (stream, continuation) => this.sockets.observe(stream, continuation),
    });
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort.
    this.history.recoverInterrupted();
  }

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(owner: Owner = { tenant: 'default', user: 'anonymous' }, servers?: string[]): Promise<ConversationSnapshot> {
    // Called on a plain stub (one round trip, not getAgentByName's two): start the Agent here.
    await this.__unsafe_ensureInitialized();
    if (this.deleted) throw new Error('conversation was deleted'); // ids are never reused
    this.record.create(this.name, owner, servers);
    const row = this.row()!;
    await directoryOf(this.env, row.owner).created(row.id, row.createdAt, row.servers);
    return (await this.snapshot())!;
  }

  /**
   * Whether `owner` may use this conversation. Anyone else gets 404 from the
   * routes, as if it did not exist (its existence is not revealed).
   */
  async ownedBy(owner: Owner, servers?: string[]): Promise<boolean> {
    const record = this.row();
    return record !== undefined && isOwnedBy(record, owner, servers);
  }

  /** For `POST /v1/chat`, where the client names the conversation: does it exist, and is it `owner`'s? */
  async claimState(owner: Owner, servers?: string[]): Promise<'absent' | 'owned' | 'foreign'> {
    const record = this.row();
    if (!record) return this.deleted ? 'foreign' : 'absent'; // a deleted id is never handed out again
    return isOwnedBy(record, owner, servers) ? 'owned' : 'foreign';
  }

  /** Clients may not write this Agent's state over the WebSocket: all state here is the server's. */
  override validateStateChange(): void {
    throw new Error('state is read-only for clients');
  }

  async snapshot(): Promise<ConversationSnapshot | null> {
    const row = this.row();
    if (!row) return null;
    const messages = this.history.load();
    return {
      id: row.id,
      createdAt: new Date(row.createdAt).toISOString(),
      ...(row.title ? { title: row.title } : {}),
      messages,
      pendingApprovals: pendingApprovals(messages).map(({ messageIndex: _, ...approval }) => approval),
    };
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(title: string): Promise<{ id: string; title: string }> {
    const row = this.row();
    if (!row) throw notFound(`Conversation ${this.name}`);
    this.record.setTitle(title);
    await directoryOf(this.env, row.owner).titled(row.id, title);
    return { id: row.id, title };
  }

  /** The threads list hears of every saved turn (its order, and a title from the first message). */
  private async listActivity(messages: UIMessage[]): Promise<void> {
    const row = this.row();
    if (!row) return;
    const first = messages.find((m) => m.role === 'user');
    const firstText = first?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(' ');
    await directoryOf(this.env, row.owner).active(row.id, Date.now(), firstText);
  }

  /** The newest messages, as `useAgentChat` loads them first (one frame's worth); null when the conversation does not exist. */
  async transcript(): Promise<UIMessage[] | null> {
    return this.row() ? transcriptWindow(this.history.load()).messages : null;
  }

  /** Older messages, a page at a time (`GET …/messages?before=`). */
  async messagesPage(before: string | undefined, limit: number): Promise<RpcResult<{ messages: UIMessage[]; hasMore: boolean }>> {
    return toRpcResult(async () => {
      if (!this.row()) throw notFound(`Conversation ${this.name}`);
      const page = messagesBefore(this.history.load(), before, limit);
      if (!page) throw new ApiError(404, 'message_not_found', `No message ${before} in this conversation`);
      return page;
    });
  }

  private clearAll(): void {
    this.history.clear();
    this.largeResults.clear();
  }

  /** The existence record, or undefined (never created, or deleted). */
  private row() {
    return this.deleted ? undefined : this.record.read();
  }

  // ---- WebSocket (agents chat protocol; see chat-socket.ts) -------------------

  /** The chat hook needs none of the Agent's own frames (identity, state, its MCP client's servers): the transcript comes first. */
  override shouldSendProtocolMessages(): boolean {
    return false;
  }

  override async onConnect(connection: Connection): Promise<void> {
    // An error thrown here would reach the agents framework, which sends its stack to the client in a frame.
    try {
      if (!this.row()) return connection.close(4004, 'conversation not found');
      this.sockets.connected(connection);
    } catch (error) {
      console.error(`conversation ${this.name}: WebSocket setup failed:`, error);
      connection.close(1011, 'internal error');
    }
  }

  /**
   * A conversation has no sub-agents ("facets"): whatever a request names
   * (by a `/sub/…` path or a framework header that got past the edge), it
   * is refused before the framework creates or reaches one.
   */
  override async onBeforeSubAgent(): Promise<Response> {
    return new Response('Not found', { status: 404 });
  }

  /** Behind the route's allow-list (routes/conversations.ts), a second guard: the framework's routing headers never come from a request. */
  override async fetch(request: Request): Promise<Response> {
    const framework = [...request.headers.keys()].filter((name) => name.startsWith('x-cf-agents-'));
    if (framework.length === 0) return super.fetch(request);
    const headers = new Headers(request.headers);
    for (const name of framework) headers.delete(name);
    return super.fetch(new Request(request, { headers }));
  }

  override async onMessage(connection: Connection, message: WSMessage): Promise<void> {
    if (!this.row() || typeof message !== 'string') return;
    await this.sockets.received(connection, message);
  }

  override async onClose(connection: Connection): Promise<void> {
    this.sockets.closed(connection);
  }

  private readonly sockets = new ChatSocket({
    connections: () => this.getConnections(),
    transcript: () => transcriptWindow(this.history.load()).messages,
    request: async (body) => {
      const parsed = ChatRequestBody.safeParse(body);
      if (!parsed.success) throw new ApiError(400, 'invalid_body', `Send {"messages": [...]} with a user message last: ${formatIssues(parsed.error)}`);
      if (parsed.data.clientTools) this.turns.offerClientTools(parsed.data.clientTools);
      return this.chatTurn(chatAction(parsed.data), resolveModel(this.modelEnv()));
    },
    answer: (answer) => this.turns.record(answer),
    continueTurn: () => this.turns.start({ kind: 'continue' }, resolveModel(this.modelEnv())),
    busy: () => this.turns.busy,
    whenIdle: () => this.turns.whenIdle(),
    running: () => this.turns.runningTurn,
    stop: () => this.turns.stop(),
    answerElicitation: (id, answer) => this.turns.answerElicitation(id, answer),
    clear: () => this.clearAll(),
    keepOnly: (ids) => {
      // An empty list clears; otherwise only messages the client was shown (the transcript window) can be removed by leaving them out.
      if (!ids.length) return this.clearAll();
      const keep = new Set(ids);
      this.history.remove(transcriptWindow(this.history.load()).messages.flatMap((m) => (keep.has(m.id) ? [] : [m.id])));
    },
  });

  /** Per server: status, info, capabilities, instructions and every catalog (with when it was fetched). */
  async catalog(): Promise<RpcResult<{ servers: ServerState[] }>> {
    return toRpcResult(() => this.withMcp(async (sessions) => ({ servers: await sessions.catalog() })));
  }

  /**
   * A resource read through the cache; `server` may be omitted when the URI
   * resolves to one server. Returns the stored contents and, under `model`,
   * exactly what the model would see for this read (the same function).
   */
  async readResource(request: { server?: string | undefined; uri: string; offset?: number | undefined }): Promise<RpcResult<Omit<ResourceView, 'target'>>> {
    return toRpcResult(() =>
      this.withMcp(async (sessions) => {
        const { settings } = loadConfig(this.env);
        const { target: _, ...view } = await viewResource(sessions, request, {
          windowChars: settings.READ_WINDOW_CHARS,
          offset: request.offset ?? 0,
          images: this.modelAcceptsImages(),
          maxImageBytes: settings.INLINE_IMAGE_MAX_BYTES,
          reuseSince: Date.now(),
        });
        return view;
      }),
    );
  }

  /** The environment model selection reads: the tenant's MODEL, if it has one. */
  private modelEnv(): Record<string, unknown> {
    const env = this.env as unknown as Record<string, unknown>;
    const tenant = loadConfig(this.env).tenants?.find((t) => t.id === this.row()?.owner.tenant);
    return tenant?.model ? { ...env, MODEL: tenant.model } : env;
  }

  private modelAcceptsImages(): boolean {
    try {
      return resolveModel(this.modelEnv()).acceptsImages;
    } catch {
      return false; // a model that is not configured sees no images
    }
  }

  /**
   * Runs one turn and returns its UI message stream (SSE). The user message
   * and the model's answer are saved together when the turn completes; a
   * failed turn saves nothing. The turn goes on if the client disconnects.
   */
  /**
   * A turn in one call from the Worker: start-up, ownership and the turn
   * (they were three round trips: `getAgentByName`'s start-up call,
   * `ownedBy`, then the turn). Someone else's conversation is a 404, as in
   * `ownedBy`. Native RPC bypasses the Agent's fetch, hence the explicit
   * start-up (agents documents it for RPC methods).
   */
  async sendMessageAs(caller: Owner & { servers?: string[] | undefined }, userMessage: UIMessage, attachments: Attachment[] = []): Promise<Response> {
    const refused = await this.admit(caller);
    return refused ?? this.sendMessage(userMessage, attachments);
  }

  /** `POST /v1/chat` in one call: the turn when `caller` owns this conversation; `absent` when it does not exist yet (the route creates it). */
  async chatAs(caller: Owner & { servers?: string[] | undefined }, body: ChatRequestBody): Promise<Response | 'absent'> {
    await this.__unsafe_ensureInitialized();
    const state = await this.claimState(caller, caller.servers);
    if (state === 'absent') return 'absent';
    if (state === 'foreign') return this.notFoundResponse();
    return this.chat(body);
  }

  /** The 404 a route would answer for this id, as a response (methods that return the turn's stream). */
  private notFoundResponse(): Response {
    return Response.json(notFound(`Conversation ${this.name}`).toJSON(), { status: 404 });
  }

  /** Start-up, then a 404 response unless `caller` owns this conversation. */
  private async admit(caller: Owner & { servers?: string[] | undefined }): Promise<Response | undefined> {
    await this.__unsafe_ensureInitialized();
    if (await this.ownedBy(caller, caller.servers)) return undefined;
    return this.notFoundResponse();
  }

  async sendMessage(userMessage: UIMessage, attachments: Attachment[] = []): Promise<Response> {
    return streamResponse(async () => {
      const model = resolveModel(this.modelEnv());
      return this.turn([await this.withAttachments(userMessage, attachments, model.acceptsImages)], model);
    });
  }

  /**
   * A chat client's request (`useChat` over HTTP, with the AI SDK's own
   * body): a new message, a regeneration, or the user's approval answers.
   */
  async chat(body: ChatRequestBody): Promise<Response> {
    return streamResponse(async () => (await this.chatTurn(chatAction(body), resolveModel(this.modelEnv()))) ?? this.waitingResponse());
  }

  /** Runs what a chat request asks for (HTTP and WebSocket alike). */
  async chatTurn(action: ChatAction, model: ResolvedModel): Promise<LiveStream | undefined> {
    switch (action.kind) {
      case 'message':
        return this.turn([await this.withAttachments(action.message, action.attachments, model.acceptsImages)], model);
      case 'regenerate':
        return this.regenerate(action.messageId, model);
      case 'approvals':
        return this.turns.approveFromClient(action.answers, model);
    }
  }

  /** The user message with its attached resources added (read through the cache; limits checked: 413). */
  async withAttachments(userMessage: UIMessage, attachments: Attachment[], acceptsImages: boolean, overrides: Partial<Settings> = {}): Promise<UIMessage> {
    if (!attachments.length) return userMessage;
    const settings = { ...loadConfig(this.env).settings, ...overrides };
    const { parts, attached } = await this.withMcp((sessions) => attachmentParts(attachments, { sessions, settings, acceptsImages, reuseSince: Date.now() }));
    return { ...userMessage, parts: [...userMessage.parts, ...parts], metadata: { ...(userMessage.metadata as object | undefined), attachments: attached } };
  }

  /** The turn being streamed, from its first chunk (204 when none is running). */
  async resumeStream(): Promise<Response> {
    if (!this.row()) return this.notFoundResponse();
    const running = this.turns.running;
    if (!running) return new Response(null, { status: 204 });
    return createUIMessageStreamResponse({ stream: running.reader() });
  }

  /**
   * One turn with a given model (tests pass a scripted model here through
   * `runInDurableObject`; `settings` may override config for them too).
   * `newMessages` are this turn's input: one user message, a prompt's
   * messages, or none to continue the conversation (after an approval).
   */
  async turn(newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    return this.turns.start(newMessages.length ? { kind: 'message', newMessages } : { kind: 'continue' }, model, overrides);
  }

  /** A new answer in place of `messageId` (or the last answer): useChat's `regenerate()`. */
  async regenerate(messageId: string | undefined, model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    if (!this.row()) throw notFound(`Conversation ${this.name}`);
    return this.turns.start({ kind: 'regenerate', messageId }, model, overrides);
  }

  /** The user's answer to a server's question asked during the running turn (the turn's stream goes on). */
  async answerElicitation(id: string, answer: ElicitationAnswer): Promise<RpcResult<{ answered: string }>> {
    return toRpcResult(async () => {
      if (!this.row()) throw notFound(`Conversation ${this.name}`);
      this.turns.answerElicitation(id, answer);
      return { answered: id };
    });
  }

  /** Stops the running turn: the model request and its MCP requests are aborted; the partial answer is kept. */
  async stop(): Promise<{ stopped: boolean }> {
    if (!this.row()) throw notFound(`Conversation ${this.name}`);
    return { stopped: this.turns.stop() };
  }

  /**
   * Answers a tool call waiting for approval and continues the turn (the
   * tool runs if approved; the model is told if denied). Returns the stream.
   */
  async respondToApproval(request: ApprovalAnswer): Promise<Response> {
    return streamResponse(async () => (await this.approve(request, resolveModel(this.modelEnv()))) ?? this.waitingResponse());
  }

  /** Some calls of the step are answered, others still wait: 202 with what still waits. */
  private waitingResponse(): Response {
    const waiting = pendingApprovals(this.history.load()).map(({ messageIndex: _, ...approval }) => approval);
    return Response.json({ pendingApprovals: waiting }, { status: 202 });
  }

  /** `respondToApproval` with a given model (tests pass a scripted one). */
  async approve(request: ApprovalAnswer | ApprovalAnswer[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream | undefined> {
    if (!this.row()) throw notFound(`Conversation ${this.name}`);
    return this.turns.approve(Array.isArray(request) ? request : [request], model, overrides);
  }

  /**
   * A user-chosen prompt: arguments checked against its declaration, then
   * `prompts/get`; its messages (rendered: resources wrapped or described,
   * images as image parts for capable models) become this turn's input and
   * are saved with it. With `preview`, returns the messages and stores nothing.
   */
  async runPrompt(request: { server: string; name: string; arguments: Record<string, unknown> }, preview: boolean): Promise<Response> {
    return streamResponse(async () => {
      const model = preview ? undefined : resolveModel(this.modelEnv());
      const { description, messages } = await this.preparePrompt(request, model?.acceptsImages ?? this.modelAcceptsImages());
      if (!model) return Response.json({ server: request.server, name: request.name, description, messages });
      return this.turn(messages, model);
    });
  }

  /** A prompt's messages, ready to be a turn's input (validated, fetched, rendered). */
  async preparePrompt(request: { server: string; name: string; arguments: Record<string, unknown> }, acceptsImages: boolean) {
    const { settings } = loadConfig(this.env);
    const result = await this.withMcp((sessions) => sessions.getPrompt(request.server, request.name, request.arguments));
    return { description: result.description, messages: promptMessages(request.server, request.name, result, { settings, acceptsImages }) };
  }

  /** `completion/complete` for a prompt or resource-template argument (argument menus in a UI). */
  async complete(request: CompleteRequestBody): Promise<RpcResult<{ server: string; completion: { values: string[]; total?: number | undefined; hasMore?: boolean | undefined } }>> {
    const { server, ...params } = request;
    return toRpcResult(() => this.withMcp(async (sessions) => ({ server, completion: await sessions.complete(server, params) })));
  }

  /** Calls an MCP tool in this conversation's session with that server (the tool loop's path to MCP tools). */
  async callTool(request: { server: string; name: string; arguments: Record<string, unknown> }): Promise<RpcResult<CallToolResult>> {
    return toRpcResult(() => this.withMcp((sessions) => sessions.callTool(request.server, request.name, request.arguments)));
  }

  /** Deletes all of this conversation's storage and ends its MCP sessions. Returns false if it did not exist. */
  async remove(): Promise<boolean> {
    const row = this.row();
    if (!row) return false;
    this.deleted = true;
    // Nothing of this conversation outlives it, even if the runtime keeps the instance a while.
    if (this.liveMcp) await this.liveMcp.close();
    else await liveRegistry(this.env, row.owner).release(this.name); // a restarted instance still counted as live
    this.liveMcp = undefined;
    this.turns.forget();
    await directoryOf(this.env, row.owner).removed(row.id);
    await this.destroy();
    return true;
  }

  /**
   * Another conversation of the same end user needs to connect and the user
   * is at LIVE_CONVERSATIONS_PER_USER: release this one's MCP sessions unless
   * it is using them. One that holds none (restarted, deleted) just leaves
   * the count — the caller says whose count, since a deleted one no longer knows.
   */
  async yieldSessions(owner: { tenant: string; user: string }): Promise<boolean> {
    if (this.liveMcp) return this.liveMcp.yield();
    await liveRegistry(this.env, owner).release(this.name);
    return true;
  }

  /**
   * The end user connected (or disconnected) `server` (src/http/routes/oauth.ts):
   * if this conversation holds live sessions, that server's connection and
   * its copies under the old authorization are dropped; the next use connects
   * with the new one — no reload needed. (`grant`: the new authorization; absent: disconnected.)
   */
  async authorizationChanged(server: string, grant?: string): Promise<void> {
    await this.liveMcp?.current.sessions?.reauthorized(server, grant);
  }

  /** The idle alarm (scheduled by LiveSessions): releases the MCP sessions after MCP_IDLE_MS unused. */
  async releaseIdleSessions(lease: string): Promise<void> {
    if (this.liveMcp) return this.liveMcp.releaseIdle(lease);
    // A restarted instance holds no sessions, but may still be counted as holding them.
    const row = this.row();
    if (row) await liveRegistry(this.env, row.owner).release(this.name);
  }

  /** For tests and benchmarks: waits until background KV writes and catalog refreshes are done. */
  async settle(): Promise<{ refreshes: number }> {
    const { sessions, cache } = this.liveMcp?.current ?? {};
    await sessions?.idle();
    await cache?.settled();
    return { refreshes: sessions?.refreshCount ?? 0 };
  }

  /** Runs `work` with the MCP sessions (built on first use after each start, leased, not released while it runs). */
  private withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T> {
    const row = this.row();
    if (!row) return Promise.reject(notFound(`Conversation ${this.name}`));
    const { owner } = row;
    this.liveMcp ??= new LiveSessions({
      env: this.env,
      name: this.name,
      storage: this.ctx.storage,
      owner: { ...owner, servers: row.servers },
      turnRunning: () => this.turns.busy,
      scheduleIdleCheck: async (delayMs, lease) => {
        await this.schedule(Math.ceil(delayMs / 1000), 'releaseIdleSessions', lease);
      },
      yieldSessions: async (other) => (await getAgentByName<Env, Conversation>(this.env.CONVERSATION, other)).yieldSessions(owner),
      waitUntil: (promise) => this.ctx.waitUntil(promise),
      elicit: (server, params, signal) => this.turns.elicit(server, params, signal),
      authRequired: (state) => void this.turns.authRequired(state).catch((e) => console.warn(`could not offer a connect link: ${(e as Error).message}`)),
    });
    return this.liveMcp.use(work);
  }
}

/** A turn's stream as an SSE response (or a response as it is); an ApiError becomes its JSON error response. */
async function streamResponse(start: () => Promise<LiveStream | Response>): Promise<Response> {
  try {
    const result = await start();
    return result instanceof Response ? result : createUIMessageStreamResponse({ stream: result.reader() });
  } catch (error) {
    if (error instanceof ApiError) return error.toResponse();
    throw error;
  }
}
