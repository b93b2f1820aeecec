import { z } from 'zod';
import { badRequest } from '../errors';
import type { TurnCommand } from '../turn/commands';
import { userMessageFrom } from './user-message';
import type { ChatRequestBody } from '../../shared/api/conversations';

export type { ChatRequestBody } from '../../shared/api/conversations';

/**
 * What a chat request asks for: a message, a regeneration, or approval
 * answers — the client's copy of the assistant message carries the user's
 * decisions (`addToolApprovalResponse`), maybe with answers already acted on.
 */
export type ChatAction = Extract<TurnCommand, { kind: 'message' | 'regenerate' | 'approvals' }>;

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
    return { kind: 'approvals', answers, fromClient: true };
  }
  return { kind: 'message', message: userMessageFrom({ messages: body.messages }), attachments: body.attachments ?? [] };
}

function lastId(messages: unknown[]): string | undefined {
  const last = messages[messages.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === 'string' ? last.id : undefined;
}
