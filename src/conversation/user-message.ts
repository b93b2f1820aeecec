import type { UIMessage } from 'ai';
import type { z } from 'zod';
import { type SendMessageBody, UserMessage } from '../../shared/api/conversations';
import { formatIssues } from '../config';
import { ApiError, badRequest } from '../errors';

/** Longest user message accepted, in characters (413 past it). */
export const MAX_MESSAGE_CHARS = 32_000;

// The bodies are defined once, in shared/api (the routes validate them; the OpenAPI document describes them).
export { Attachment, SendMessageBody } from '../../shared/api/conversations';

export function userMessageFrom(body: SendMessageBody): UIMessage {
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
