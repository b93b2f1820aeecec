import type { CallToolResult } from '@modelcontextprotocol/client';
import { Agent, getAgentByName, type Connection, type WSMessage } from 'agents';
import { createUIMessageStreamResponse, type UIMessage } from 'ai';
import { loadConfig, type Settings } from '../config';
import { ApiError, notFound } from '../errors';
import type { LiveStream } from '../loop/live-stream';
import { resolveModel, type ResolvedModel } from '../loop/models';
import { readPinned } from '../loop/pinned';
import { takeTurn } from '../limits/turn-limits';
import { runTurn } from '../loop/turn';
import { attachmentParts } from '../tools/attachments';
import { promptMessages } from '../tools/prompt-messages';
import { mcpTools } from '../tools/mcp-tools';
import { viewResource, type ResourceView } from '../tools/resource-view';
import { syntheticTools } from '../tools/synthetic';
import { type ChatHost, handleChatFrame } from './chat-socket';
import { History, pendingApprovals } from './history';
import type { Attachment } from './user-message';
import type { ServerState } from '../mcp/catalog';
import type { McpSessions } from '../mcp/sessions';
import { liveRegistry, LiveSessions } from './live-sessions';
import { toRpcResult, type RpcResult } from './rpc';

/** Who a conversation belongs to. */
export interface Owner {
  tenant: string;
  user: string;
}

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
  /** The turn being streamed (one at a time: a second message meanwhile is refused with 409). */
  private live: LiveStream | undefined;
  /** Set while a turn is being started (see `turn`). */
  private starting = false;
  /** The WebSocket request id the running turn answers (for resuming over WebSocket). */
  private liveRequestId: string | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Synchronous SQLite: the schema exists before any RPC method runs.
    this.sql`CREATE TABLE IF NOT EXISTS conversation (
      id TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL,
      tenant TEXT NOT NULL DEFAULT 'default',
      user_id TEXT NOT NULL DEFAULT 'anonymous',
      servers TEXT
    )`;
    this.history = new History(ctx.storage);
    // A new instance: no turn runs here yet, so one still marked pending was cut by an abort.
    this.history.recoverInterrupted();
  }

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(owner: Owner = { tenant: 'default', user: 'anonymous' }, servers?: string[]): Promise<ConversationSnapshot> {
    if (this.deleted) throw new Error('conversation was deleted'); // ids are never reused
    const allowed = servers ? JSON.stringify(servers) : null;
    this.sql`INSERT OR IGNORE INTO conversation (id, created_at, tenant, user_id, servers) VALUES (${this.name}, ${Date.now()}, ${owner.tenant}, ${owner.user}, ${allowed})`;
    return (await this.snapshot())!;
  }

  /**
   * Whether `owner` may use this conversation. Anyone else gets 404 from the
   * routes, as if it did not exist (its existence is not revealed).
   */
  async ownedBy(owner: Owner, servers?: string[]): Promise<boolean> {
    const row = this.row();
    if (row === undefined || row.tenant !== owner.tenant || row.user_id !== owner.user) return false;
    if (!servers) return true;
    // A token limited to some servers may only use conversations limited to (a subset of) them.
    const allowed = new Set(servers);
    return row.servers !== null && (JSON.parse(row.servers) as string[]).every((id) => allowed.has(id));
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
      createdAt: new Date(row.created_at).toISOString(),
      messages,
      pendingApprovals: pendingApprovals(messages).map(({ messageIndex: _, ...approval }) => approval),
    };
  }

  /** The existence row, or undefined (never created, or deleted). */
  private row() {
    if (this.deleted) return undefined;
    return this.sql<{ id: string; created_at: number; tenant: string; user_id: string; servers: string | null }>`SELECT id, created_at, tenant, user_id, servers FROM conversation LIMIT 1`[0];
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
    const tenant = loadConfig(this.env).tenants?.find((t) => t.id === this.row()?.tenant);
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
    try {
      const model = resolveModel(this.modelEnv());
      const stream = await this.turn([await this.withAttachments(userMessage, attachments, model.acceptsImages)], model);
      return createUIMessageStreamResponse({ stream: stream.reader() });
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      throw error;
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
    const row = this.row()!;
    await takeTurn(this.env, loadConfig(this.env), { tenant: row.tenant, user: row.user_id });
    const settings = { ...loadConfig(this.env).settings, ...overrides };
    // Reads of this turn may share what the server marks stale at once (ttlMs 0); the next turn reads again.
    const turnStartedAt = Date.now();
    const states = await sessions.catalog(turnStartedAt);
    const modelPrompts = (server: string) => sessions.servers.find((s) => s.id === server)?.modelPrompts ?? false;
    const readBudget = { remaining: settings.MAX_RESOURCE_BYTES_PER_TURN, limit: settings.MAX_RESOURCE_BYTES_PER_TURN };
    const synthetic = syntheticTools({ sessions, states, settings, acceptsImages: model.acceptsImages, modelPrompts, readBudget, turnStartedAt });
    const tools = { ...mcpTools({ sessions, states, configs: sessions.servers, settings, acceptsImages: model.acceptsImages }, new Set(Object.keys(synthetic))), ...synthetic };
    const pinned = await readPinned(sessions, states, sessions.servers, settings, turnStartedAt);
    this.liveRequestId = undefined; // set by the WebSocket handler when it started this turn
    // Written now, so that an abort mid-turn cannot make the user's message vanish (see History).
    this.history.begin(newMessages, newMessages.length ? undefined : history.at(-1));
    try {
      this.live = await runTurn({
        messages: [...history, ...newMessages],
        states,
        model,
        tools,
        settings,
        modelPrompts,
        pinned,
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
    try {
      const stream = await this.approve(request, resolveModel(this.modelEnv()));
      return createUIMessageStreamResponse({ stream: stream.reader() });
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      throw error;
    }
  }

  /** `respondToApproval` with a given model (tests pass a scripted one). */
  async approve(request: { toolCallId: string; approved: boolean; reason?: string | undefined }, model: ResolvedModel, overrides: Partial<Settings> = {}): Promise<LiveStream> {
    if (!this.row()) throw notFound(`Conversation ${this.name}`);
    const history = this.history.load();
    const pending = pendingApprovals(history).find((p) => p.toolCallId === request.toolCallId);
    if (!pending) throw new ApiError(404, 'approval_not_found', `No tool call ${request.toolCallId} is waiting for approval`);
    const message = history[pending.messageIndex]!;
    message.parts = message.parts.map((part) =>
      'toolCallId' in part && part.toolCallId === request.toolCallId && part.state === 'approval-requested'
        ? ({ ...part, state: 'approval-responded', approval: { ...part.approval, approved: request.approved, ...(request.reason ? { reason: request.reason } : {}) } } as unknown as typeof part)
        : part,
    );
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
    try {
      const model = preview ? undefined : resolveModel(this.modelEnv());
      const { description, messages } = await this.preparePrompt(request, model?.acceptsImages ?? this.modelAcceptsImages());
      if (!model) return Response.json({ server: request.server, name: request.name, description, messages });
      const stream = await this.turn(messages, model);
      return createUIMessageStreamResponse({ stream: stream.reader() });
    } catch (error) {
      if (error instanceof ApiError) return error.toResponse();
      throw error;
    }
  }

  /** A prompt's messages, ready to be a turn's input (validated, fetched, rendered). */
  async preparePrompt(request: { server: string; name: string; arguments: Record<string, unknown> }, acceptsImages: boolean) {
    const { settings } = loadConfig(this.env);
    const result = await this.withMcp((sessions) => sessions.getPrompt(request.server, request.name, request.arguments));
    return { description: result.description, messages: promptMessages(request.server, request.name, result, { settings, acceptsImages }) };
  }

  /** `completion/complete` for a prompt or resource-template argument (argument menus in a UI). */
  async complete(request: CompleteRequestBody): Promise<RpcResult<{ server: string; completion: { values: string[]; total?: number | undefined; hasMore?: boolean | undefined } }>> {
    return toRpcResult(() => this.withMcp(async (sessions) => {
      const state = await sessions.ensureServer(request.server);
      // Without the capability there is nothing to complete: an empty list, whatever the ref.
      if (!state.capabilities?.completions) return { server: request.server, completion: { values: [], hasMore: false } };
      if (request.ref.type === 'ref/prompt') {
        const name = request.ref.name;
        if (state.capabilities?.prompts && !state.prompts.some((p) => p.name === name)) {
          throw new ApiError(404, 'prompt_not_found', `MCP server "${request.server}" has no prompt "${name}"`);
        }
      } else {
        const uri = request.ref.uri;
        if (state.capabilities?.resources && !state.resourceTemplates.some((t) => t.uriTemplate === uri)) {
          throw new ApiError(404, 'template_not_found', `MCP server "${request.server}" has no resource template "${uri}"`);
        }
      }
      const { server, ...params } = request;
      return { server, completion: await sessions.complete(server, params) };
    }));
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
    else await liveRegistry(this.env, ownerOf(row)).release(this.name); // a restarted instance still counted as live
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
    if (row) await liveRegistry(this.env, ownerOf(row)).release(this.name);
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
    const owner = ownerOf(row);
    this.liveMcp ??= new LiveSessions({
      env: this.env,
      name: this.name,
      storage: this.ctx.storage,
      owner: { ...owner, servers: row.servers ? (JSON.parse(row.servers) as string[]) : undefined },
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

const ownerOf = (row: { tenant: string; user_id: string }) => ({ tenant: row.tenant, user: row.user_id });
