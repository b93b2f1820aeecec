import { Agent, getAgentByName, type Connection, type WSMessage } from 'agents';
import type { UIMessage } from 'ai';
import type { Catalog } from '../../shared/api/catalog';
import type * as Api from '../../shared/api/conversations';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { toRpcResult, type RpcResult } from '../rpc';
import type { Owner } from './record';
import { isRouteMethod, type RequestMeta } from './request-meta';
import { apiMessages, ConversationServices, type Caller } from './services';
import { withoutFrameworkHeaders } from './chat-socket';
import { transcriptWindow } from './transcript';
import type { ViewAnswer, ViewRequest } from './views';

/**
 * One Durable Object per conversation (SQLite-backed), on `agents`' `Agent`
 * for scheduling (the idle alarm) and WebSocket plumbing (`chat-socket.ts`).
 * Its methods are the RPC surface, each a small call over `services`.
 * Existence is explicit: `create()` writes a row; every other method answers 404 without it.
 * Errors across RPC (ARCHITECTURE.md): a turn's stream is a `Response` (a
 * refusal, its JSON error response); data is an `RpcResult`; ownership checks
 * and calls from other Durable Objects or the scheduler return plain values.
 */
export class Conversation extends Agent<Env> {
  /** The conversation's parts; for tests through `runInDurableObject` (instance fields are not on the RPC surface). */
  readonly services: ConversationServices;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.services = new ConversationServices({
      env,
      storage: ctx.storage,
      name: () => this.name,
      waitUntil: (promise) => ctx.waitUntil(promise),
      connections: () => this.getConnections(),
      scheduleIdleCheck: async (delayMs, lease) => void (await this.schedule(Math.ceil(delayMs / 1000), 'releaseIdleSessions', lease)),
      yieldPeer: async (other, owner) => (await getAgentByName<Env, Conversation>(env.CONVERSATION, other)).yieldSessions(owner),
    });
  }

  /**
   * Every call of a route (src/http/conversation-stub.ts) comes through here: the Agent starts (native RPC bypasses its
   * fetch; a plain stub saves getAgentByName's round trip), then the method runs in the caller's request scope.
   */
  async inRequest(meta: RequestMeta | undefined, method: string, args: unknown[]): Promise<unknown> {
    if (!isRouteMethod(method)) throw new Error(`${method} is not called by routes`);
    await this.__unsafe_ensureInitialized();
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

  /** Clients may not write this Agent's state over the WebSocket: all state here is the server's. */
  override validateStateChange(): void {
    throw new Error('state is read-only for clients');
  }

  /** The chat hook needs none of the Agent's own frames (identity, state, its MCP client's servers): the transcript comes first. */
  override shouldSendProtocolMessages(): boolean {
    return false;
  }

  override async onConnect(connection: Connection): Promise<void> {
    this.services.connectSocket(connection);
  }

  /** No sub-agents ("facets"): whatever a request names (a `/sub/…` path, a routing header), it is refused. */
  override async onBeforeSubAgent(): Promise<Response> {
    return new Response('Not found', { status: 404 });
  }

  /** A second guard behind the route's header allow-list: the framework's routing headers never come from a request. */
  override async fetch(request: Request): Promise<Response> {
    return super.fetch(withoutFrameworkHeaders(request));
  }

  override async onMessage(connection: Connection, message: WSMessage): Promise<void> {
    await this.services.socketMessage(connection, message);
  }

  override async onClose(connection: Connection): Promise<void> {
    this.services.sockets.closed(connection);
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

  /** Deletes all of this conversation's storage and ends its MCP sessions; then `Agent.destroy()` aborts the object. */
  async remove(): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      await this.services.remove(this.services.existing());
      await this.destroy();
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
  async releaseIdleSessions(lease: string): Promise<void> {
    return this.services.inScope(undefined, () => this.services.releaseIdle(lease));
  }
}
