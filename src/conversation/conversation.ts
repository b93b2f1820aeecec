import { DurableObject } from 'cloudflare:workers';
import type { UIMessage } from 'ai';
import type { Catalog } from '../../shared/api/catalog';
import type * as Api from '../../shared/api/conversations';
import type { Feedback, FeedbackBody } from '../../shared/api/feedback';
import type { ReadResourceBody, ResourceView } from '../../shared/api/resources';
import { loadConfig } from '../config';
import type { RequestMeta } from '../observability/current-request';
import { configureLog } from '../observability/log';
import type { Owner } from '../owner';
import { type RpcResult, toRpcResult } from '../rpc';
import type { SlotVerdict } from '../uploads/slots';
import { inScope } from './request-scope';
import type { Caller } from './thread';
import type { ViewAnswer, ViewRequest } from './views';
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
 * hibernation API and one alarm shared by its jobs. Its methods are the RPC
 * surface, each one call on one of its parts (wiring.ts builds them).
 * Existence is explicit: `create()` writes a row; every other method answers 404 without it.
 * Errors across RPC (ARCHITECTURE.md): a turn's stream is a `Response` (a
 * refusal, its JSON error response); data is an `RpcResult`; ownership checks
 * and calls from other Durable Objects or the scheduler return plain values.
 */
export class Conversation extends DurableObject<Env> {
  /** The conversation's parts; for tests through `runInDurableObject` (instance fields are not on the RPC surface). */
  readonly parts: ConversationParts;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // LOG_LEVEL and LOG_FORMAT in this isolate too (a conversation's isolate may never see the Worker's fetch); bad config surfaces in its calls.
    try {
      configureLog(loadConfig(env).settings);
    } catch {}
    this.parts = new ConversationParts({
      ctx,
      env,
      yieldPeer: (other, owner) => env.CONVERSATION.getByName(other).yieldSessions(owner),
    });
  }

  /** Every call of a route (src/http/conversation-stub.ts) comes through here: the method runs in the caller's request scope. */
  async inRequest(meta: RequestMeta | undefined, method: string, args: unknown[]): Promise<unknown> {
    if (!isScopedMethod(method)) throw new Error(`${method} is not called by routes`);
    const run = () => (this[method] as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    return inScope(this.parts.terms, meta, run);
  }

  // ---- The thread ------------------------------------------------------------------

  /** Creates this conversation for its owner (a tenant's end user). Idempotent. */
  async create(owner: Owner = { tenant: 'default', user: 'anonymous' }, servers?: string[]) {
    return this.parts.reads.create(owner, servers);
  }

  /** Whether `owner` may use this conversation; anyone else gets 404 from the routes, as if it did not exist. */
  async ownedBy(owner: Owner, servers?: string[]): Promise<boolean> {
    return this.parts.thread.ownedBy({ ...owner, servers });
  }

  async snapshot(): Promise<RpcResult<Api.ConversationSnapshot>> {
    return this.parts.reads.snapshot();
  }

  /** Sets (or, with "", clears) the title lists show. */
  async setTitle(title: string): Promise<RpcResult<Api.TitleSet>> {
    return this.parts.reads.setTitle(title);
  }

  /** The newest messages, as `useAgentChat` loads them first (one frame's worth). */
  async transcript(): Promise<RpcResult<Api.ConversationSnapshot['messages']>> {
    return this.parts.reads.transcript();
  }

  /** Older messages, a page at a time (`GET …/messages?before=`). */
  async messagesPage(before: string | undefined, limit: number): Promise<RpcResult<Api.MessagesPage>> {
    return this.parts.reads.messagesPage(before, limit);
  }

  /** The person's rating of an answer (feedback.ts): kept with it, reported to the tenant's ledger; again: replaced. */
  async rateAnswer(messageId: string, body: FeedbackBody): Promise<RpcResult<Feedback>> {
    return toRpcResult(() => this.parts.feedback.rate(messageId, body));
  }

  // ---- WebSocket (agents chat protocol: socket-entry.ts, chat-socket.ts) ----------

  override async fetch(request: Request): Promise<Response> {
    return this.parts.socketEntry.open(request);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.parts.socketEntry.message(ws, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    this.parts.socketEntry.closed(ws, code, reason);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    this.parts.socketEntry.failed(ws);
  }

  // ---- Reads through the MCP sessions (reads.ts) -------------------------------

  async catalog(): Promise<RpcResult<Catalog>> {
    return this.parts.reads.catalog();
  }

  async pinnedSkills(): Promise<RpcResult<Api.PinnedSkills>> {
    return this.parts.reads.pinnedSkills();
  }

  async pinSkills(body: Api.PinnedSkillsBody): Promise<RpcResult<Api.PinnedSkills>> {
    return this.parts.reads.pinSkills(body);
  }

  async readResource(request: ReadResourceBody): Promise<RpcResult<ResourceView>> {
    return this.parts.reads.readResource(request);
  }

  async view<R extends ViewRequest>(request: R): Promise<RpcResult<ViewAnswer<R> & { tenant: string }>> {
    return this.parts.reads.view(request);
  }

  async complete(body: Api.CompleteBody): Promise<RpcResult<Api.CompleteResponse>> {
    return this.parts.reads.complete(body);
  }

  // ---- Turns (turn-responses.ts, turn-controls.ts) ----------------------------------

  async sendMessageAs(caller: Caller, message: UIMessage, attachments: Api.Attachment[] = []): Promise<Response> {
    return this.parts.responses.sendMessageAs(caller, message, attachments);
  }

  async chatAs(caller: Caller, body: Api.ChatRequestBody): Promise<Response | 'absent'> {
    return this.parts.responses.chatAs(caller, body);
  }

  async respondToApproval(answer: Api.ApprovalBody): Promise<Response> {
    return this.parts.responses.respondToApproval(answer);
  }

  async runPrompt(request: Api.RunPromptBody, preview: boolean): Promise<Response> {
    return this.parts.responses.runPrompt(request, preview);
  }

  async resumeStream(): Promise<Response> {
    return this.parts.responses.resumeStream();
  }

  async answerElicitation(id: string, answer: Api.ElicitationAnswerBody): Promise<RpcResult<Api.ElicitationAnswered>> {
    return this.parts.controls.answered(id, answer);
  }

  async stop(): Promise<RpcResult<Api.Stopped>> {
    return this.parts.controls.stopped();
  }

  // ---- Lifecycle -----------------------------------------------------------------

  /** Names held for an upload about to be written to R2, or the count refused (uploads/intake.ts, uploads/slots.ts). */
  async reserveUploads(wanted: string[], limit: number): Promise<RpcResult<SlotVerdict>> {
    return this.parts.uploads.reserve(wanted, limit);
  }

  /** An upload ended, stored (the `uploads` server lists it anew) or discarded: its names are no longer held. */
  async settleUploads(names: string[], outcome: 'stored' | 'discarded'): Promise<RpcResult<void>> {
    return this.parts.uploads.settle(names, outcome);
  }

  /** Files `names` were deleted (routes/files.ts, after R2 answered): the `uploads` server lists them anew. */
  async uploadsChanged(names: string[]): Promise<RpcResult<void>> {
    return this.parts.uploads.changed(names);
  }

  /** Ends its MCP sessions and deletes all of this conversation's storage; then the object is aborted. */
  async remove(): Promise<RpcResult<void>> {
    return this.parts.removal.remove();
  }

  /** Another conversation of the user needs room (LIVE_CONVERSATIONS_PER_USER): release unless in use; `owner` says whose count. */
  async yieldSessions(owner: Owner): Promise<boolean> {
    return inScope(this.parts.terms, undefined, () => this.parts.live.yield(owner));
  }

  /** The end user connected or disconnected `server` (routes/oauth.ts): its connection and copies under the old grant are dropped. */
  async authorizationChanged(server: string, grant?: string): Promise<void> {
    await inScope(this.parts.terms, undefined, () => this.parts.live.reauthorized(server, grant));
  }

  /** The alarm (alarms.ts, alarm-jobs.ts): the jobs due now. */
  override async alarm(): Promise<void> {
    await inScope(this.parts.terms, undefined, () => this.parts.alarms.run(this.parts.alarmJobs));
  }
}
