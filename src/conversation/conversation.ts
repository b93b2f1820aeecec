import { DurableObject } from 'cloudflare:workers';
import type { UIMessage } from 'ai';
import type { Catalog } from '../../shared/api/catalog';
import type * as Api from '../../shared/api/conversations';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { loadConfig } from '../config';
import type { RequestMeta } from '../observability/context';
import { setLogLevel } from '../observability/log';
import { toRpcResult, type RpcResult } from '../rpc';
import { INVALIDATION_LOG_TABLES } from '../cache/invalidation-log';
import { MCP_STATE_TABLES } from '../mcp/state-store';
import { ensureTables } from '../sql-schema';
import { HISTORY_TABLES } from './history';
import { LARGE_RESULT_TABLES } from './large-result-store';
import { RECORD_TABLES, type Owner } from './record';
import { VIEW_LINK_TABLES } from './view-links';
import { apiMessages, ConversationServices, type Caller } from './services';
import { HibernatingSockets } from './sockets';
import { transcriptWindow } from './transcript';
import type { ViewAnswer, ViewRequest } from './views';

/** Methods other Durable Objects call: each runs in a scope of its own (a route's request id would be a stranger's). */
export const PEER_METHODS = ['yieldSessions', 'authorizationChanged'] as const;
/** The runtime's entry points and the scope gate itself: never called through `inRequest`. */
const UNSCOPED = new Set<string>(['constructor', 'fetch', 'alarm', 'webSocketMessage', 'webSocketClose', 'webSocketError', 'inRequest', ...PEER_METHODS]);

/** Whether routes call `name` through `Conversation.inRequest`: every method of the class but the unscoped ones. */
export function isScopedMethod(name: string): name is keyof Conversation & string {
  return !UNSCOPED.has(name) && typeof Object.getOwnPropertyDescriptor(Conversation.prototype, name)?.value === 'function';
}

/** The idle check the alarm runs: the lease it checks (LiveSessions), in the object's synchronous KV. */
const IDLE_LEASE_KEY = 'idle-check-lease';

/**
 * One Durable Object per conversation (SQLite-backed), addressed by name
 * (`getByName(id)`; the name is `ctx.id.name`), with its WebSockets on the
 * hibernation API (`sockets.ts`: the `useAgentChat` protocol of `chat-socket.ts`
 * over them) and one alarm (the idle check of its MCP sessions).
 * Its methods are the RPC surface, each a small call over `services`.
 * Existence is explicit: `create()` writes a row; every other method answers 404 without it.
 * Errors across RPC (ARCHITECTURE.md): a turn's stream is a `Response` (a
 * refusal, its JSON error response); data is an `RpcResult`; ownership checks
 * and calls from other Durable Objects or the scheduler return plain values.
 */
export class Conversation extends DurableObject<Env> {
  /** The conversation's parts; for tests through `runInDurableObject` (instance fields are not on the RPC surface). */
  readonly services: ConversationServices;
  private readonly sockets: HibernatingSockets;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // LOG_LEVEL in this isolate too (a conversation's isolate may never see the Worker's fetch); bad config surfaces in its calls.
    try {
      setLogLevel(loadConfig(env).settings.LOG_LEVEL);
    } catch {}
    // Every table of this object's stores in one batch (sql-schema.ts); each store's own call then finds them made.
    ensureTables(ctx.storage.sql, RECORD_TABLES, HISTORY_TABLES, LARGE_RESULT_TABLES, VIEW_LINK_TABLES, MCP_STATE_TABLES, INVALIDATION_LOG_TABLES);
    this.sockets = new HibernatingSockets(ctx);
    this.services = new ConversationServices({
      env,
      storage: ctx.storage,
      name: () => this.name,
      waitUntil: (promise) => ctx.waitUntil(promise),
      connections: () => this.sockets.all(),
      scheduleIdleCheck: async (delayMs, lease) => {
        ctx.storage.kv.put(IDLE_LEASE_KEY, lease);
        await ctx.storage.setAlarm(Date.now() + delayMs);
      },
      yieldPeer: (other, owner) => env.CONVERSATION.getByName(other).yieldSessions(owner),
    });
  }

  /** The conversation id: every stub addresses its object by name. */
  private get name(): string {
    const name = this.ctx.id.name;
    if (name === undefined) throw new Error('a conversation is addressed by its id (getByName)');
    return name;
  }

  /** Every call of a route (src/http/conversation-stub.ts) comes through here: the method runs in the caller's request scope. */
  async inRequest(meta: RequestMeta | undefined, method: string, args: unknown[]): Promise<unknown> {
    if (!isScopedMethod(method)) throw new Error(`${method} is not called by routes`);
    return this.services.inScope(meta, () => (this[method] as (...a: unknown[]) => Promise<unknown>).apply(this, args));
  }

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(owner: Owner = { tenant: 'default', user: 'anonymous' }, servers?: string[]): Promise<RpcResult<Api.ConversationSnapshot>> {
    if (this.services.deleted) throw new Error('conversation was deleted'); // ids are never reused
    await this.services.create(owner, servers);
    return this.snapshot();
  }

  /** Whether `owner` may use this conversation; anyone else gets 404 from the routes, as if it did not exist. */
  async ownedBy(owner: Owner, servers?: string[]): Promise<boolean> {
    return this.services.ownedBy({ ...owner, servers });
  }

  async snapshot(): Promise<RpcResult<Api.ConversationSnapshot>> {
    return toRpcResult(async () => this.services.snapshot());
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(title: string): Promise<RpcResult<Api.TitleSet>> {
    return toRpcResult(() => this.services.setTitle(title));
  }

  /** The newest messages, as `useAgentChat` loads them first (one frame's worth). */
  async transcript(): Promise<RpcResult<Api.ConversationSnapshot['messages']>> {
    return toRpcResult(async () => (this.services.existing(), apiMessages(transcriptWindow(this.services.history.load()).messages)));
  }

  /** Older messages, a page at a time (`GET …/messages?before=`). */
  async messagesPage(before: string | undefined, limit: number): Promise<RpcResult<Api.MessagesPage>> {
    return toRpcResult(async () => this.services.messagesPage(before, limit));
  }

  // ---- WebSocket (agents chat protocol; see chat-socket.ts) -------------------

  /** The route's WebSocket upgrade (`GET /v1/conversations/:id/ws`, ownership checked there): the transcript comes first. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return new Response('Not found', { status: 404 });
    const { response, connection } = this.sockets.accept(request);
    this.services.connectSocket(connection);
    return response;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.services.socketMessage(this.sockets.connectionOf(ws), message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.services.sockets.closed(this.sockets.connectionOf(ws));
    try {
      ws.close(code, reason); // completes the closing handshake (1005/1006 cannot be sent back: nothing to complete)
    } catch {}
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.services.sockets.closed(this.sockets.connectionOf(ws));
  }

  // ---- Reads through the MCP sessions ----------------------------------------

  /** Per server: status, info, capabilities, instructions and every catalog (with when it was fetched). */
  async catalog(): Promise<RpcResult<Catalog>> {
    return toRpcResult(() => this.services.withMcp(async (sessions) => ({ servers: await sessions.catalog() })));
  }

  /** A resource read for display (resource-view.ts): the stored contents and, under `model`, what the model would see. */
  async readResource(request: ReadResourceBody): Promise<RpcResult<ResourceView>> {
    return toRpcResult(() => this.services.readResource(request));
  }

  /** MCP Apps (views.ts): a link to a view, the view's document by its link's nonce, a view's own tool call. */
  async view<R extends ViewRequest>(request: R): Promise<RpcResult<ViewAnswer<R> & { tenant: string }>> {
    return toRpcResult(async () => ({ ...(await this.services.view(request)), tenant: this.services.existing().owner.tenant }));
  }

  /** `completion/complete` for a prompt or resource-template argument (the sessions check the reference). */
  async complete(request: Api.CompleteBody): Promise<RpcResult<Api.CompleteResponse>> {
    return toRpcResult(() => this.services.complete(request));
  }

  // ---- Turns ---------------------------------------------------------------------

  /** A message's turn in one call from the Worker (on a plain stub): ownership (else 404) and the turn. */
  async sendMessageAs(caller: Caller, message: UIMessage, attachments: Api.Attachment[] = []): Promise<Response> {
    return this.services.sendMessageAs(caller, message, attachments);
  }

  /** `POST /v1/chat` in one call (`useChat`'s body: a message, a regeneration, approval answers); `absent` when the conversation does not exist yet (the route creates it). */
  async chatAs(caller: Caller, body: Api.ChatRequestBody): Promise<Response | 'absent'> {
    return this.services.chatAs(caller, body);
  }

  /** Answers a tool call waiting for approval and continues the turn once nothing of its step waits. */
  async respondToApproval(answer: Api.ApprovalBody): Promise<Response> {
    return this.services.streamResponse(() => this.services.approve([answer], this.services.model()));
  }

  /** A user-chosen prompt's messages (checked, fetched, rendered) as this turn's input; with `preview`, the messages only. */
  async runPrompt(request: Api.RunPromptBody, preview: boolean): Promise<Response> {
    const prompt = { kind: 'prompt', ...request } as const;
    return this.services.streamResponse(() => (preview ? this.services.promptPreview(prompt) : this.services.inputTurn(prompt, this.services.model())));
  }

  /** The turn being streamed, from its first chunk (204 when none is running). */
  async resumeStream(): Promise<Response> {
    return this.services.row() ? this.services.resumeResponse() : this.services.notFoundResponse();
  }

  /** The user's answer to a server's question asked during the running turn (the turn's stream goes on). */
  async answerElicitation(id: string, answer: Api.ElicitationAnswerBody): Promise<RpcResult<Api.ElicitationAnswered>> {
    return toRpcResult(async () => (this.services.existing(), this.services.turns.answerElicitation(id, answer), { answered: id }));
  }

  /** Stops the running turn: the model request and its MCP requests are aborted; the partial answer is kept. */
  async stop(): Promise<RpcResult<Api.Stopped>> {
    return toRpcResult(async () => (this.services.existing(), { stopped: this.services.turns.stop() }));
  }

  // ---- Lifecycle -----------------------------------------------------------------

  /** Ends its MCP sessions and deletes all of this conversation's storage; then the object is aborted (a new instance would find nothing). */
  async remove(): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      await this.services.remove(this.services.existing());
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      for (const connection of this.sockets.all()) connection.close(1000, 'conversation deleted');
      // After this call has answered: aborting now would fail the caller's request.
      setTimeout(() => this.ctx.abort('conversation deleted'), 0);
    });
  }

  /** Another conversation of the user needs room (LIVE_CONVERSATIONS_PER_USER): release unless in use; `owner` says whose count, as a deleted one no longer knows. */
  async yieldSessions(owner: Owner): Promise<boolean> {
    return this.services.inScope(undefined, () => this.services.yieldSessions(owner));
  }

  /** The end user connected or disconnected `server` (routes/oauth.ts): its connection and copies under the old grant are dropped. */
  async authorizationChanged(server: string, grant?: string): Promise<void> {
    await this.services.inScope(undefined, async () => this.services.live?.current.sessions?.reauthorized(server, grant));
  }

  /** The idle alarm (scheduled by LiveSessions): releases the MCP sessions after MCP_IDLE_MS unused. */
  override async alarm(): Promise<void> {
    const lease = this.ctx.storage.kv.get<string>(IDLE_LEASE_KEY);
    if (lease !== undefined) await this.services.inScope(undefined, () => this.services.releaseIdle(lease));
  }
}
