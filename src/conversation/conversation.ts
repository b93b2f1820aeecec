import type { CallToolResult } from '@modelcontextprotocol/client';
import { Agent, getAgentByName, type Connection, type WSMessage } from 'agents';
import { createUIMessageStreamResponse, type UIMessage } from 'ai';
import { loadConfig, type Settings } from '../config';
import { ApiError, notFound } from '../errors';
import type { LiveStream } from '../loop/live-stream';
import { resolveModel, type ResolvedModel } from '../loop/models';
import { takeTurn } from '../limits/turn-limits';
import { runTurn } from '../loop/turn';
import { prepareTurnContext } from '../loop/turn-context';
import { attachmentParts } from '../tools/attachments';
import { promptMessages } from '../tools/prompt-messages';
import { viewResource, type ResourceView } from '../tools/resource-view';
import { type ChatHost, handleChatFrame } from './chat-socket';
import { answerApproval, History, pendingApprovals } from './history';
import type { Attachment } from './user-message';
import type { ServerState } from '../mcp/catalog';
import type { McpSessions } from '../mcp/sessions';
import { liveRegistry, LiveSessions } from './live-sessions';
import { ConversationRecordStore, isOwnedBy, type Owner } from './record';
import { toRpcResult, type RpcResult } from './rpc';

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
  private readonly record: ConversationRecordStore;
  /** The turn being streamed (one at a time: a second message meanwhile is refused with 409). */
  private live: LiveStream | undefined;
  /** Set while a turn is being started (see `turn`). */
  private starting = false;
  /** The WebSocket request id the running turn answers (for resuming over WebSocket). */
  private liveRequestId: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQLite: the schemas exist before any RPC method runs.
    this.record = new ConversationRecordStore(ctx.storage);
    this.history = new History(ctx.storage);
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort.
    this.history.recoverInterrupted();
  }

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(owner: Owner = { tenant: 'default', user: 'anonymous' }, servers?: string[]): Promise<ConversationSnapshot> {
    if (this.deleted) throw new Error('conversation was deleted'); // ids are never reused
    this.record.create(this.name, owner, servers);
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
      messages,
      pendingApprovals: pendingApprovals(messages).map(({ messageIndex: _, ...approval }) => approval),
    };
  }

  /** The existence record, or undefined (never created, or deleted). */
  private row() {
    return this.deleted ? undefined : this.record.read();
  }

  // ---- WebSocket (agents chat protocol; see chat-socket.ts) -------------------

  override async onConnect(connection: Connection): Promise<void> {
    if (!this.row()) return connection.close(4004, 'conversation not found');
    connection.send(JSON.stringify({ type: 'cf_agent_chat_messages', messages: this.history.load(), connect: true }));
  }

  override async onMessage(connection: Connection, message: WSMessage): Promise<void> {
    if (!this.row() || typeof message !== 'string') return;
    await handleChatFrame(this.chatHost, connection, message);
  }

  private readonly chatHost: ChatHost = {
    messages: () => this.history.load(),
    turn: async (userMessage, attachments) => {
      const model = resolveModel(this.modelEnv());
      return this.turn([await this.withAttachments(userMessage, attachments, model.acceptsImages)], model);
    },
    approve: (request) => this.approve(request, resolveModel(this.modelEnv())),
    clear: () => this.history.clear(),
    running: () => (this.live && this.liveRequestId ? { id: this.liveRequestId, stream: this.live } : undefined),
    setRunning: (id) => {
      this.liveRequestId = id;
    },
    broadcast: (frame, except) => this.broadcast(JSON.stringify(frame), except ? [except] : []),
  };

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
  async sendMessage(userMessage: UIMessage, attachments: Attachment[] = []): Promise<Response> {
    return streamResponse(async () => {
      const model = resolveModel(this.modelEnv());
      return this.turn([await this.withAttachments(userMessage, attachments, model.acceptsImages)], model);
    });
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
    if (!this.row()) return Response.json(notFound(`Conversation ${this.name}`).toJSON(), { status: 404 });
    if (!this.live || this.live.done) return new Response(null, { status: 204 });
    return createUIMessageStreamResponse({ stream: this.live.reader() });
  }

  /**
   * One turn with a given model (tests pass a scripted model here through
   * `runInDurableObject`; `settings` may override config for them too).
   * `newMessages` are this turn's input: one user message, a prompt's
   * messages, or none to continue the conversation (after an approval).
   */
  async turn(newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    // Claimed before the first await: a second request arriving while this one
    // waits on I/O must see the turn as taken.
    if (this.starting || (this.live && !this.live.done)) throw new ApiError(409, 'turn_in_progress', 'A turn is already running in this conversation; wait for it to finish');
    this.starting = true;
    try {
      return await this.startTurn(newMessages, model, overrides);
    } finally {
      this.starting = false;
    }
  }

  private startTurn(newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings>): Promise<LiveStream> {
    return this.withMcp((sessions) => this.startTurnWith(sessions, newMessages, model, overrides));
  }

  private async startTurnWith(sessions: McpSessions, newMessages: UIMessage[], model: ResolvedModel, overrides: Partial<Settings>): Promise<LiveStream> {
    const history = this.history.forModel();
    if (newMessages.length && pendingApprovals(history).length) {
      throw new ApiError(409, 'approval_pending', 'A tool call is waiting for approval: answer it with POST /approvals before sending a new message');
    }
    await takeTurn(this.env, loadConfig(this.env), this.row()!.owner);
    const settings = { ...loadConfig(this.env).settings, ...overrides };
    const context = await prepareTurnContext(sessions, settings, model.acceptsImages, Date.now());
    this.liveRequestId = undefined; // set by the WebSocket handler when it started this turn
    // Written now, so that an abort mid-turn cannot make the user's message vanish (see History).
    this.history.begin(newMessages, newMessages.length ? undefined : history.at(-1));
    try {
      this.live = await runTurn({
        ...context,
        messages: [...history, ...newMessages],
        model,
        settings,
        onComplete: (messages) => {
          this.history.save(messages);
          this.liveMcp?.touch();
        },
        onFailed: () => {
          this.history.rollback();
          this.liveMcp?.touch();
        },
      });
    } catch (error) {
      this.history.rollback();
      throw error;
    }
    return this.live;
  }

  /**
   * Answers a tool call waiting for approval and continues the turn (the
   * tool runs if approved; the model is told if denied). Returns the stream.
   */
  async respondToApproval(request: { toolCallId: string; approved: boolean; reason?: string | undefined }): Promise<Response> {
    return streamResponse(() => this.approve(request, resolveModel(this.modelEnv())));
  }

  /** `respondToApproval` with a given model (tests pass a scripted one). */
  async approve(request: { toolCallId: string; approved: boolean; reason?: string | undefined }, model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    if (!this.row()) throw notFound(`Conversation ${this.name}`);
    const message = answerApproval(this.history.load(), request);
    if (!message) throw new ApiError(404, 'approval_not_found', `No tool call ${request.toolCallId} is waiting for approval`);
    // Saved before the model runs: the decision is the user's and must survive a failure of what follows.
    this.history.save([message]);
    return this.turn([], model, overrides);
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
    this.live = undefined;
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
      turnRunning: () => this.starting || (this.live !== undefined && !this.live.done),
      scheduleIdleCheck: async (delayMs, lease) => {
        await this.schedule(Math.ceil(delayMs / 1000), 'releaseIdleSessions', lease);
      },
      yieldSessions: async (other) => (await getAgentByName<Env, Conversation>(this.env.CONVERSATION, other)).yieldSessions(owner),
      waitUntil: (promise) => this.ctx.waitUntil(promise),
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
