import type { UIMessage } from 'ai';
import type { Attachment } from '../../shared/api/conversations';
import type { ApprovalAnswer } from './messages';

/**
 * What a transport can ask of a conversation's turns — HTTP routes, the
 * AI SDK chat body (chat/use-chat-body.ts) and the WebSocket frames
 * (chat/socket/) all come down to these:
 * - `message`: a user message, with resources the user attached to it;
 * - `prompt`: a user-chosen prompt whose messages become the input;
 * - `regenerate`: a new answer replaces `messageId` (or the last answer);
 * - `approvals`: the user's decisions on waiting calls (`fromClient`: a chat
 *   client's copy of the assistant message, which may repeat answers already acted on).
 *
 * None of them continues an answer as such: an answer goes on only when the runner finds that nothing of it waits
 * (TurnRunner.continueIfReady, after an approval, a client tool's result or a task's end).
 */
export type TurnCommand =
  | { kind: 'message'; message: UIMessage; attachments: Attachment[] }
  | { kind: 'prompt'; server: string; name: string; arguments: Record<string, unknown>; language?: string | undefined }
  | { kind: 'regenerate'; messageId?: string | undefined }
  | { kind: 'approvals'; answers: ApprovalAnswer[]; fromClient?: boolean | undefined };
