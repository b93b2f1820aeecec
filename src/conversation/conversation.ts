import { catalogPlan } from '../prompt/catalog-plan';
import { modelStates } from '../turn/context';
import { DurableObject } from 'cloudflare:workers';
import type { UIMessage } from 'ai';
import type { Catalog } from '../../shared/api/catalog';
import type * as Api from '../../shared/api/conversations';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { INVALIDATION_LOG_TABLES } from '../cache/invalidation-log';
import { loadConfig } from '../config';
import { readForDisplay } from '../prompt/resource-view';
import { takeViewCall } from '../limits/turn-limits';
import { MCP_STATE_TABLES } from '../mcp/catalog/state-store';
import { requireSkills } from '../mcp/catalog/skills';
import { newRequestId, type RequestMeta, withRequest } from '../observability/context';
import { errorFields, logEvent, setLogLevel } from '../observability/log';
import { notFound } from '../errors';
import type { LiveStream } from '../turn/live-stream';
import type { Owner } from '../owner';
import { type RpcResult, toRpcResult } from '../rpc';
import { ensureTables } from '../sql-schema';
import { turnResponse } from '../turn/requests';
import type { ChatConnection } from '../chat/socket/chat-socket';
import { chatCommand } from '../chat/use-chat-body';
import { HISTORY_TABLES } from './history';
import { LARGE_RESULT_TABLES } from './large-result-store';
import { RECORD_TABLES } from './record';
import { HibernatingSockets } from './sockets';
import type { Caller } from './thread';
import { VIEW_LINK_TABLES } from './view-links';
import { answerView, type ViewAnswer, type ViewRequest } from './views';
import { ConversationAlarms } from './alarms';
import { ConversationParts } from './wiring';

export type { Caller } from './thread';

/** Methods other Durable Objects call: each runs in a scope of its own (a route's request id would be a stranger's). */
export const PEER_METHODS = ['yieldSessions', 'authorizationChanged'] as const;
/** The runtime's entry points and the scope gate itself: never called through `inRequest`. */
const UNSCOPED = new Set<string>([
  'constructor',
  'fetch',
  'alarm',
  'webSocketMessage',
  'webSocketClose',
  'webSocketError',
  'inRequest',
  ...PEER_METHODS,
]);

/** Whether routes call `name` through `Conversation.inRequest`: every method of the class but the unscoped ones. */
export function isScopedMethod(name: string): name is keyof Conversation & string {
  return (
    !UNSCOPED.has(name) && typeof Object.getOwnPropertyDescriptor(Conversation.prototype, name)?.value === 'function'
  );
}

/**
 * One Durable Object per conversation (SQLite-backed), addressed by name
 * (`getByName(id)`; the name is `ctx.id.name`), with its WebSockets on the
 * hibernation API (`sockets.ts`: the `useAgentChat` protocol of `chat-socket.ts`
 * over them) and one alarm (the idle check of its MCP sessions).
 * Its methods are the RPC surface, each one call on one of its parts (wiring.ts).
 * Existence is explicit: `create()` writes a row; every other method answers 404 without it.
 * Errors across RPC (ARCHITECTURE.md): a turn's stream is a `Response` (a
 * refusal, its JSON error response); data is an `RpcResult`; ownership checks
 * and calls from other Durable Objects or the scheduler return plain values.
 */
export class Conversation extends DurableObject<Env> {
  /** The conversation's parts; for tests through `runInDurableObject` (instance fields are not on the RPC surface). */
  readonly parts: ConversationParts;
  private readonly sockets: HibernatingSockets;
  /** The one alarm, shared by the idle release and the task polling (alarms.ts). */
  private readonly alarms: ConversationAlarms;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // LOG_LEVEL in this isolate too (a conversation's isolate may never see the Worker's fetch); bad config surfaces in its calls.
    try {
      setLogLevel(loadConfig(env).settings.LOG_LEVEL);
    } catch {}
    // Every table of this object's stores in one batch (sql-schema.ts); each store's own call then finds them made.
    ensureTables(
      ctx.storage.sql,
      RECORD_TABLES,
      HISTORY_TABLES,
      LARGE_RESULT_TABLES,
      VIEW_LINK_TABLES,
      MCP_STATE_TABLES,
      INVALIDATION_LOG_TABLES,
    );
    const name = ctx.id.name;
    if (name === undefined) throw new Error('a conversation is addressed by its id (getByName)');
    this.sockets = new HibernatingSockets(ctx);
    this.alarms = new ConversationAlarms(ctx.storage);
    this.parts = new ConversationParts({
      env,
      storage: ctx.storage,
      name,
      waitUntil: (promise) => ctx.waitUntil(promise),
      connections: () => this.sockets.all(),
      scheduleIdleCheck: (delayMs, lease) => this.alarms.scheduleIdle(Date.now() + delayMs, lease),
      alarms: () => this.alarms,
      yieldPeer: (other, owner) => env.CONVERSATION.getByName(other).yieldSessions(owner),
    });
  }

  /** Every call of a route (src/http/conversation-stub.ts) comes through here: the method runs in the caller's request scope. */
  async inRequest(meta: RequestMeta | undefined, method: string, args: unknown[]): Promise<unknown> {
    if (!isScopedMethod(method)) throw new Error(`${method} is not called by routes`);
    return scoped(this.parts, meta, () => (this[method] as (...a: unknown[]) => Promise<unknown>).apply(this, args));
  }

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(
    owner: Owner = { tenant: 'default', user: 'anonymous' },
    servers?: string[],
  ): Promise<RpcResult<Api.ConversationSnapshot>> {
    await this.parts.thread.create(owner, servers);
    return this.snapshot();
  }

  /** Whether `owner` may use this conversation; anyone else gets 404 from the routes, as if it did not exist. */
  async ownedBy(owner: Owner, servers?: string[]): Promise<boolean> {
    return this.parts.thread.ownedBy({ ...owner, servers });
  }

  async snapshot(): Promise<RpcResult<Api.ConversationSnapshot>> {
    return toRpcResult(async () => this.parts.thread.snapshot(this.parts.context.existing()));
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(title: string): Promise<RpcResult<Api.TitleSet>> {
    return toRpcResult(() => this.parts.thread.setTitle(this.parts.context.existing(), title));
  }

  /** The newest messages, as `useAgentChat` loads them first (one frame's worth). */
  async transcript(): Promise<RpcResult<Api.ConversationSnapshot['messages']>> {
    return toRpcResult(async () => (this.parts.context.existing(), this.parts.thread.transcript()));
  }

  /** Older messages, a page at a time (`GET …/messages?before=`). */
  async messagesPage(before: string | undefined, limit: number): Promise<RpcResult<Api.MessagesPage>> {
    return toRpcResult(async () => (this.parts.context.existing(), this.parts.thread.messagesPage(before, limit)));
  }

  // ---- WebSocket (agents chat protocol; see chat-socket.ts) -------------------

  /** The route's WebSocket upgrade (`GET /v1/conversations/:id/ws`, ownership checked there): the transcript comes first. */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket')
      return new Response('Not found', { status: 404 });
    const { response, connection } = this.sockets.accept(request);
    openSocket(this.parts, connection);
    return response;
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    // Each frame is a request of its own (a turn it starts gets a request id of its own).
    if (this.parts.thread.row() && typeof message === 'string')
      await scoped(this.parts, undefined, () => this.parts.sockets.received(this.sockets.connectionOf(ws), message));
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.parts.sockets.closed(this.sockets.connectionOf(ws));
    try {
      ws.close(code, reason); // completes the closing handshake (1005/1006 cannot be sent back: nothing to complete)
    } catch {}
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.parts.sockets.closed(this.sockets.connectionOf(ws));
  }

  // ---- Reads through the MCP sessions ----------------------------------------

  /** Per server: status, info, capabilities, instructions and every catalog (with when it was fetched). */
  async catalog(): Promise<RpcResult<Catalog>> {
    const { context, pace } = this.parts;
    return toRpcResult(() =>
      this.parts.live.use(async (sessions) => {
        const servers = await sessions.catalog();
        // What the next turn's cost planner decides (the same function the turn calls), and why.
        const plan = catalogPlan(modelStates(servers), {
          model: context.model(),
          gapsMs: pace.gaps(),
          settings: context.settings(),
        });
        return { servers, plan };
      }),
    );
  }

  /** The skills pinned for every turn (`GET …/skills/pinned`). */
  async pinnedSkills(): Promise<RpcResult<Api.PinnedSkills>> {
    return toRpcResult(async () => (this.parts.context.existing(), { skills: this.parts.thread.pinnedSkills() }));
  }

  /** Pins skills for every turn (`PUT …/skills/pinned`): each one the catalogs offer now (404 `skill_not_found` otherwise). */
  async pinSkills(body: Api.PinnedSkillsBody): Promise<RpcResult<Api.PinnedSkills>> {
    return toRpcResult(async () => {
      this.parts.context.existing();
      if (body.skills.length)
        await this.parts.live.use(async (sessions) => requireSkills(await sessions.catalog(), body.skills));
      return this.parts.thread.pinSkills(body.skills);
    });
  }

  /** A resource read for display (resource-view.ts): the stored contents and, under `model`, what the model would see. */
  async readResource(request: ReadResourceBody): Promise<RpcResult<ResourceView>> {
    const { context } = this.parts;
    return toRpcResult(() =>
      this.parts.live.use((sessions) => readForDisplay(sessions, request, context.settings(), context.acceptsImages())),
    );
  }

  /** MCP Apps (views.ts): a link to a view, the view's document by its link's nonce (the nonce is the capability), a view's own tool call. */
  async view<R extends ViewRequest>(request: R): Promise<RpcResult<ViewAnswer<R> & { tenant: string }>> {
    const { context, live, viewLinks } = this.parts;
    return toRpcResult(async () => {
      const owner = context.owner();
      if (request.kind === 'call') await takeViewCall(context.env, context.config(), owner);
      return {
        ...((await live.use((sessions) => answerView(sessions, viewLinks, request))) as ViewAnswer<R>),
        tenant: owner.tenant,
      };
    });
  }

  /** `completion/complete` for a prompt or resource-template argument (the sessions check the reference). */
  async complete({ server, ...params }: Api.CompleteBody): Promise<RpcResult<Api.CompleteResponse>> {
    return toRpcResult(() =>
      this.parts.live.use(async (sessions) => ({ server, completion: await sessions.complete(server, params) })),
    );
  }

  // ---- Turns ---------------------------------------------------------------------

  /** A message's turn in one call from the Worker (on a plain stub): ownership (else 404) and the turn. */
  async sendMessageAs(caller: Caller, message: UIMessage, attachments: Api.Attachment[] = []): Promise<Response> {
    if (!this.parts.thread.ownedBy(caller)) return notFoundResponse(this.parts);
    return turn(this.parts, () => this.parts.requests.run({ kind: 'message', message, attachments }));
  }

  /** `POST /v1/chat` in one call (`useChat`'s body: a message, a regeneration, approval answers); `absent` when the conversation does not exist yet (the route creates it). */
  async chatAs(caller: Caller, body: Api.ChatRequestBody): Promise<Response | 'absent'> {
    const { thread } = this.parts;
    if (!thread.row()) return thread.deleted ? notFoundResponse(this.parts) : 'absent'; // a deleted id is never handed out again
    if (!thread.ownedBy(caller)) return notFoundResponse(this.parts);
    return turn(this.parts, () => this.parts.requests.run(chatCommand(body)));
  }

  /** Answers a tool call waiting for approval and continues the turn once nothing of its step waits. */
  async respondToApproval(answer: Api.ApprovalBody): Promise<Response> {
    return turn(
      this.parts,
      async () => (
        this.parts.context.existing(), await this.parts.requests.run({ kind: 'approvals', answers: [answer] })
      ),
    );
  }

  /** A user-chosen prompt's messages (checked, fetched, rendered) as this turn's input; with `preview`, the messages only. */
  async runPrompt(request: Api.RunPromptBody, preview: boolean): Promise<Response> {
    const prompt = { kind: 'prompt', ...request } as const;
    return turn(this.parts, () =>
      preview ? this.parts.requests.promptPreview(prompt) : this.parts.requests.run(prompt),
    );
  }

  /** The turn being streamed, from its first chunk (204 when none is running). */
  async resumeStream(): Promise<Response> {
    return this.parts.thread.row() ? this.parts.requests.resume() : notFoundResponse(this.parts);
  }

  /** The user's answer to a server's question asked during the running turn (the turn's stream goes on). */
  async answerElicitation(id: string, answer: Api.ElicitationAnswerBody): Promise<RpcResult<Api.ElicitationAnswered>> {
    return toRpcResult(
      async () => (this.parts.context.existing(), await this.parts.answerElicitation(id, answer), { answered: id }),
    );
  }

  /** Stops the running turn (the model request and its MCP requests are aborted; the partial answer is kept) and cancels its tasks. */
  async stop(): Promise<RpcResult<Api.Stopped>> {
    return toRpcResult(async () => (this.parts.context.existing(), { stopped: await this.parts.stop() }));
  }

  // ---- Lifecycle -----------------------------------------------------------------

  /** Ends its MCP sessions and deletes all of this conversation's storage; then the object is aborted (a new instance would find nothing). */
  async remove(): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      const row = this.parts.context.existing();
      const { thread, live, turns } = this.parts;
      // Nothing of this conversation outlives it, even if the runtime keeps the instance a while: its tasks are
      // cancelled, the sessions end (or a restarted instance leaves the live count), the running turn stops, the
      // threads list forgets it.
      // Its tasks first, while it still exists and the sessions they live in are open: cancelled on their servers,
      // their places freed.
      await this.parts.tasks.abandon();
      thread.deleted = true;
      await live.close(row.owner);
      turns.forget();
      await thread.removed(row);
      await this.ctx.storage.deleteAlarm();
      await this.ctx.storage.deleteAll();
      for (const connection of this.sockets.all()) connection.close(1000, 'conversation deleted');
      // After this call has answered: aborting now would fail the caller's request.
      setTimeout(() => this.ctx.abort('conversation deleted'), 0);
    });
  }

  /** Another conversation of the user needs room (LIVE_CONVERSATIONS_PER_USER): release unless in use; `owner` says whose count, as a deleted one no longer knows. */
  async yieldSessions(owner: Owner): Promise<boolean> {
    return scoped(this.parts, undefined, () => this.parts.live.yield(owner));
  }

  /** The end user connected or disconnected `server` (routes/oauth.ts): its connection and copies under the old grant are dropped. */
  async authorizationChanged(server: string, grant?: string): Promise<void> {
    await scoped(this.parts, undefined, () => this.parts.live.reauthorized(server, grant));
  }

  /**
   * The alarm (alarms.ts): the jobs due now — the idle release of the MCP
   * sessions (LiveSessions, after MCP_IDLE_MS unused), and the polling of
   * running tasks (tasks/task-follower.ts, which may continue a turn: the
   * alarm handler waits for it, so the object stays up while it streams).
   */
  override async alarm(): Promise<void> {
    await scoped(this.parts, undefined, () => this.alarms.run(this.parts.alarmJobs));
  }
}

/**
 * Runs `work` in a request's scope (observability/context.ts): its log lines
 * and MCP requests carry `meta.requestId` — a fresh id for work no Worker
 * request started (a WebSocket frame, an alarm, another object's call).
 * (Helpers live outside the class: every method of a Durable Object class is
 * on its RPC surface.)
 */
function scoped<T>(parts: ConversationParts, meta: RequestMeta | undefined, work: () => T): T {
  const tenant = meta?.tenant ?? parts.thread.row()?.owner.tenant;
  return withRequest({ requestId: meta?.requestId ?? newRequestId(), tenant, conversation: parts.context.name }, work);
}

/** A turn's answer as a response (turn/requests.ts `turnResponse`): its stream, 202 with the calls still waiting, or the refusal. */
function turn(parts: ConversationParts, start: () => Promise<LiveStream | Response | undefined>): Promise<Response> {
  return turnResponse(start, () => parts.history.waitingApprovals());
}

/** The 404 a route would answer for this conversation, as a response (for methods that answer a stream). */
function notFoundResponse(parts: ConversationParts): Response {
  return notFound(`Conversation ${parts.context.name}`).toResponse();
}

/** A WebSocket opened: the transcript first. An error here would reach the runtime, which sends its stack in a frame: closed instead. */
function openSocket(
  parts: ConversationParts,
  connection: ChatConnection & { close(code?: number, reason?: string): void },
): void {
  try {
    if (parts.thread.row()) parts.sockets.connected(connection);
    else connection.close(4004, 'conversation not found');
  } catch (error) {
    logEvent('ws.error', { conversation: parts.context.name, ...errorFields(error, { stack: true }) }, 'error');
    connection.close(1011, 'internal error');
  }
}
