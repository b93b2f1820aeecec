import type { UIMessage } from 'ai';
import { z } from 'zod';
import { formatIssues } from '../config';
import { ApiError, badRequest } from '../errors';

/** Longest user message accepted, in characters (413 past it). */
export const MAX_MESSAGE_CHARS = 32_000;

const TextPart = z.object({ type: z.literal('text'), text: z.string() }).strict();
const UserMessage = z.object({ id: z.string().min(1).max(100).optional(), role: z.literal('user'), parts: z.array(TextPart).min(1).max(20) });

/** A resource the user (or the application) attaches to this message: read by the host, not by the model. */
export const Attachment = z.object({ server: z.string().min(1).max(64).optional(), uri: z.string().min(1).max(4096) }).strict();
export type Attachment = z.infer<typeof Attachment>;

/**
 * One user turn, in any of three shapes: `{text}` (curl), `{message}`, or
 * `{messages}` as `useChat` / `useAgentChat` send it (the last message is the
 * new one; the server's own history is authoritative).
 */
export const SendMessageBody = z
  .object({
    text: z.string().optional(),
    message: UserMessage.optional(),
    messages: z.array(z.unknown()).optional(),
    attachments: z.array(Attachment).max(100).optional(),
  })
  .passthrough(); // useChat also sends id, trigger and messageId

export function userMessageFrom(body: z.infer<typeof SendMessageBody>): UIMessage {
  let message: z.infer<typeof UserMessage>;
  if (body.text !== undefined) message = { role: 'user', parts: [{ type: 'text', text: body.text }] };
  else if (body.message) message = body.message;
  else if (body.messages?.length) {
    const last = UserMessage.safeParse(body.messages[body.messages.length - 1]);
    if (!last.success) throw badRequest(`The last of "messages" must be a user message with text parts: ${formatIssues(last.error)}`, 'invalid_body');
    message = last.data;
  } else throw badRequest('Send {"text": "…"}, {"message": {role, parts}} or {"messages": [...]}', 'invalid_body');
  const chars = message.parts.reduce((sum, p) => sum + p.text.length, 0);
  if (chars > MAX_MESSAGE_CHARS) throw new ApiError(413, 'message_too_large', `The message has ${chars} characters; the limit is ${MAX_MESSAGE_CHARS}`);
  if (!message.parts.some((p) => p.text.trim())) throw badRequest('The message is empty', 'invalid_body');
  return { id: message.id ?? crypto.randomUUID(), role: 'user', parts: message.parts };
}
