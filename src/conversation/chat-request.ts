import type { UIMessage } from 'ai';
import { z } from 'zod';
import { badRequest } from '../errors';
import type { ApprovalAnswer } from './history';
import { Attachment, userMessageFrom } from './user-message';

/**
 * The body the AI SDK's chat clients send — `useChat` over HTTP
 * (`DefaultChatTransport`) and `useAgentChat` over the WebSocket alike:
 * the chat id, the client's whole message list, and what to do with it.
 * The server's history is authoritative: only the last message (or the
 * message named by `messageId`) is read.
 */
export const ChatRequestBody = z
  .object({
    id: z.string().min(1).max(128).optional(),
    messages: z.array(z.unknown()).min(1).max(10_000),
    trigger: z.enum(['submit-message', 'regenerate-message']).default('submit-message'),
    messageId: z.string().min(1).max(200).optional(),
    attachments: z.array(Attachment).max(100).optional(),
    /** `useAgentChat`'s tools that run in the browser (name, description, JSON schema). */
    clientTools: z
      .array(z.object({ name: z.string().min(1).max(64), description: z.string().max(2_000).optional(), parameters: z.unknown().optional() }))
      .max(64)
      .optional(),
  })
  .passthrough(); // an application's own `body` fields ride along; they are ignored
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;

/** What a chat request asks for. */
export type ChatAction =
  | { kind: 'message'; message: UIMessage; attachments: z.infer<typeof Attachment>[] }
  | { kind: 'regenerate'; messageId: string | undefined }
  /** The client's copy of the assistant message carries the user's approval answers (`addToolApprovalResponse`). */
  | { kind: 'approvals'; answers: ApprovalAnswer[] };

const AnsweredPart = z.object({
  toolCallId: z.string().min(1).max(200),
  state: z.literal('approval-responded'),
  approval: z.object({ id: z.string(), approved: z.boolean(), reason: z.string().max(1_000).optional() }),
});

const AssistantMessage = z.object({ id: z.string(), role: z.literal('assistant'), parts: z.array(z.unknown()) });

export function chatAction(body: ChatRequestBody): ChatAction {
  // useChat names the answer to replace; useAgentChat sends the list already cut, so its last message marks the place.
  if (body.trigger === 'regenerate-message') return { kind: 'regenerate', messageId: body.messageId ?? lastId(body.messages) };
  const last = body.messages[body.messages.length - 1];
  const assistant = AssistantMessage.safeParse(last);
  if (assistant.success) {
    const answers = assistant.data.parts.flatMap((part) => {
      const answered = AnsweredPart.safeParse(part);
      return answered.success
        ? [
            {
              toolCallId: answered.data.toolCallId,
              approved: answered.data.approval.approved,
              ...(answered.data.approval.reason ? { reason: answered.data.approval.reason } : {}),
            },
          ]
        : [];
    });
    if (!answers.length) throw badRequest('The last message is an assistant message with no approval answer in it; send a user message', 'invalid_body');
    return { kind: 'approvals', answers };
  }
  return { kind: 'message', message: userMessageFrom({ messages: body.messages }), attachments: body.attachments ?? [] };
}

function lastId(messages: unknown[]): string | undefined {
  const last = messages[messages.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === 'string' ? last.id : undefined;
}
