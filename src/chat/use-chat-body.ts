import type { UIMessage } from 'ai';
import { z } from 'zod';
import { ChatRequestBody, type SendMessageBody, UserMessage } from '../../shared/api/conversations';
import { formatIssues } from '../config';
import { ApiError, badRequest } from '../errors';
import type { TurnCommand } from '../turn/commands';
import type { ClientTool } from '../turn/host';

/*
 * The AI SDK's chat body (what `useChat`'s DefaultChatTransport and
 * `useAgentChat` send) and our own message bodies, read into turn commands.
 * The bodies are defined once, in shared/api: the routes validate them, the
 * OpenAPI document describes them.
 */

export type { Attachment, ChatRequestBody, SendMessageBody } from '../../shared/api/conversations';

/** Longest user message accepted, in characters (413 past it). */
export const MAX_MESSAGE_CHARS = 32_000;

/**
 * What a chat body asks for: a message, a regeneration, or approval answers
 * — the client's copy of the assistant message carries the user's decisions
 * (`addToolApprovalResponse`), maybe with answers already acted on.
 */
export type ChatCommand = Extract<TurnCommand, { kind: 'message' | 'regenerate' | 'approvals' }>;

/** A body off the WebSocket (unchecked): the command, and the client's own tools if it declares them. 400 when it is not a chat body. */
export function parseChatBody(body: unknown): { command: ChatCommand; clientTools?: ClientTool[] | undefined } {
  const parsed = ChatRequestBody.safeParse(body);
  if (!parsed.success)
    throw new ApiError(
      400,
      'invalid_body',
      `Send {"messages": [...]} with a user message last: ${formatIssues(parsed.error)}`,
    );
  return { command: chatCommand(parsed.data), clientTools: parsed.data.clientTools };
}

const AnsweredPart = z.object({
  toolCallId: z.string().min(1).max(200),
  state: z.literal('approval-responded'),
  approval: z.object({ id: z.string(), approved: z.boolean(), reason: z.string().max(1_000).optional() }),
});

const AssistantMessage = z.object({ id: z.string(), role: z.literal('assistant'), parts: z.array(z.unknown()) });

/** A checked chat body's command. */
export function chatCommand(body: ChatRequestBody): ChatCommand {
  // useChat names the answer to replace; useAgentChat sends the list already cut, so its last message marks the place.
  if (body.trigger === 'regenerate-message')
    return { kind: 'regenerate', messageId: body.messageId ?? lastId(body.messages) };
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
    if (!answers.length)
      throw badRequest(
        'The last message is an assistant message with no approval answer in it; send a user message',
        'invalid_body',
      );
    return { kind: 'approvals', answers, fromClient: true };
  }
  return {
    kind: 'message',
    message: userMessageFrom({ messages: body.messages, ...(body.language ? { language: body.language } : {}) }),
    attachments: body.attachments ?? [],
  };
}

function lastId(messages: unknown[]): string | undefined {
  const last = messages[messages.length - 1] as { id?: unknown } | undefined;
  return typeof last?.id === 'string' ? last.id : undefined;
}

/**
 * The one reading of a user message: `{text}`, `{message}`, or the last of `{messages}`; 413 past MAX_MESSAGE_CHARS,
 * 400 when empty. Its file parts stay in it: the conversation stores them as uploads when it runs the message
 * (chat/file-parts.ts), so that every transport — this body, `useChat`'s, the WebSocket's — goes one way.
 */
export function userMessageFrom(body: SendMessageBody): UIMessage {
  let message: z.infer<typeof UserMessage>;
  if (body.text !== undefined) message = { role: 'user', parts: [{ type: 'text', text: body.text }] };
  else if (body.message) message = body.message;
  else if (body.messages?.length) {
    const last = UserMessage.safeParse(body.messages[body.messages.length - 1]);
    if (!last.success)
      throw badRequest(
        `The last of "messages" must be a user message with text and file parts: ${formatIssues(last.error)}`,
        'invalid_body',
      );
    message = last.data;
  } else throw badRequest('Send {"text": "…"}, {"message": {role, parts}} or {"messages": [...]}', 'invalid_body');
  const chars = message.parts.reduce((sum, p) => sum + (p.type === 'text' ? p.text.length : 0), 0);
  if (chars > MAX_MESSAGE_CHARS)
    throw new ApiError(
      413,
      'message_too_large',
      `The message has ${chars} characters; the limit is ${MAX_MESSAGE_CHARS}`,
    );
  if (!message.parts.some((p) => p.type === 'file' || p.text.trim()))
    throw badRequest('The message is empty', 'invalid_body');
  // A file part's providerMetadata is the client's to keep: the file becomes an upload (conversation/uploads.ts).
  const parts = message.parts.map((part) =>
    part.type === 'file'
      ? {
          type: part.type,
          mediaType: part.mediaType,
          url: part.url,
          ...(part.filename ? { filename: part.filename } : {}),
        }
      : part,
  );
  // The user's language (checked by the body's schema) stays with the message: each time the model is sent it, it
  // is asked to answer in it (prompt/answer-language.ts).
  return {
    id: message.id ?? crypto.randomUUID(),
    role: 'user',
    parts,
    ...(body.language ? { metadata: { language: body.language } } : {}),
  };
}
