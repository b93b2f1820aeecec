import type { UIMessage } from 'ai';
import type * as Api from '../../shared/api/conversations';
import { notFound } from '../errors';
import { chatCommand } from '../chat/use-chat-body';
import type { LiveStream } from '../turn/live-stream';
import { type TurnRequests, turnResponse } from '../turn/requests';
import type { ConversationTerms } from './terms';
import type { History } from './history';
import type { Caller, Thread } from './thread';

export interface TurnResponsesHost {
  terms: ConversationTerms;
  thread: Thread;
  history: History;
  requests: TurnRequests;
}

/**
 * The HTTP routes' turns, each answered as a `Response` (turn/requests.ts
 * `turnResponse`): the stream, 202 with the calls still waiting, or the
 * refusal as its JSON error — the convention for RPC methods that answer a
 * stream (a thrown error would lose its status on the way).
 */
export class TurnResponses {
  constructor(private readonly host: TurnResponsesHost) {}

  /** A message's turn in one call from the Worker (on a plain stub): ownership (else 404) and the turn. */
  sendMessageAs(caller: Caller, message: UIMessage, attachments: Api.Attachment[]): Promise<Response> {
    if (!this.host.thread.ownedBy(caller)) return Promise.resolve(this.notFound());
    return this.respond(() => this.host.requests.run({ kind: 'message', message, attachments }));
  }

  /** `POST /v1/chat` (`useChat`'s body); `absent` when the conversation does not exist yet (the route creates it). */
  async chatAs(caller: Caller, body: Api.ChatRequestBody): Promise<Response | 'absent'> {
    const { thread } = this.host;
    if (!thread.row()) return thread.deleted ? this.notFound() : 'absent'; // a deleted id is never handed out again
    if (!thread.ownedBy(caller)) return this.notFound();
    return this.respond(() => this.host.requests.run(chatCommand(body)));
  }

  /** An approval answered; the turn goes on once nothing of its step waits. */
  respondToApproval(answer: Api.ApprovalBody): Promise<Response> {
    return this.respond(
      async () => (this.host.terms.existing(), await this.host.requests.run({ kind: 'approvals', answers: [answer] })),
    );
  }

  /** A user-chosen prompt as this turn's input; with `preview`, its messages only. */
  runPrompt(request: Api.RunPromptBody, preview: boolean): Promise<Response> {
    const prompt = { kind: 'prompt', ...request } as const;
    const { requests } = this.host;
    return this.respond(() => (preview ? requests.promptPreview(prompt) : requests.run(prompt)));
  }

  /** The turn being streamed, from its first chunk (204 when none is running). */
  resumeStream(): Promise<Response> {
    return this.host.thread.row() ? this.host.requests.resume() : Promise.resolve(this.notFound());
  }

  private respond(start: () => Promise<LiveStream | Response | undefined>): Promise<Response> {
    return turnResponse(start, () => this.host.history.waitingApprovals());
  }

  /** The 404 a route would answer for this conversation, as a response. */
  private notFound(): Response {
    return notFound(`Conversation ${this.host.terms.name}`).toResponse();
  }
}
