import { Hono } from 'hono';
import { getAgentByName } from 'agents';
import { z } from 'zod';
import type { Conversation } from '../../conversation/conversation';
import { isConversationId, newConversationId } from '../../conversation/ids';
import { unwrap } from '../../conversation/rpc';
import type { UIMessage } from 'ai';
import { ApiError, badRequest, notFound } from '../../errors';
import { formatIssues } from '../../config';
import { jsonBody } from '../validation';
import type { AppBindings } from '../types';

/** The conversation's Durable Object stub, after validating the id's shape. */
function conversationStub(env: Env, id: string): Promise<DurableObjectStub<Conversation>> {
  if (!isConversationId(id)) throw badRequest(`"${id}" is not a conversation id (expected a UUID)`, 'invalid_id');
  return getAgentByName<Env, Conversation>(env.CONVERSATION, id);
}

const ReadResourceBody = z
  .object({
    server: z.string().min(1).max(64).optional(),
    uri: z.string().min(1).max(4096),
    /** Character offset of the text window, as `read_resource` takes it. */
    offset: z.number().int().min(0).optional(),
  })
  .strict();

/** Longest user message accepted, in characters (413 past it). */
export const MAX_MESSAGE_CHARS = 32_000;

const TextPart = z.object({ type: z.literal('text'), text: z.string() }).strict();
const UserMessage = z.object({ id: z.string().min(1).max(100).optional(), role: z.literal('user'), parts: z.array(TextPart).min(1).max(20) });

/**
 * One user turn, in any of three shapes: `{text}` (curl), `{message}`, or
 * `{messages}` as `useChat`'s default transport sends it (the last message is
 * the new one; the server's own history is authoritative).
 */
const SendMessageBody = z
  .object({ text: z.string().optional(), message: UserMessage.optional(), messages: z.array(z.unknown()).optional() })
  .passthrough(); // useChat also sends id, trigger and messageId

function userMessageFrom(body: z.infer<typeof SendMessageBody>): UIMessage {
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

const ApprovalBody = z.object({ toolCallId: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(1_000).optional() }).strict();

/** `/v1/conversations`: create, read and delete conversations; their catalog and resource reads. */
export const conversations = new Hono<AppBindings>()
  .post('/', async (c) => {
    const id = newConversationId();
    const conversation = await (await conversationStub(c.env, id)).create();
    return c.json(conversation, 201, { Location: `/v1/conversations/${id}` });
  })
  .get('/:id', async (c) => {
    const id = c.req.param('id');
    const conversation = await (await conversationStub(c.env, id)).snapshot();
    if (!conversation) throw notFound(`Conversation ${id}`);
    return c.json(conversation);
  })
  .delete('/:id', async (c) => {
    const id = c.req.param('id');
    const removed = await (await conversationStub(c.env, id)).remove();
    if (!removed) throw notFound(`Conversation ${id}`);
    return c.body(null, 204);
  })
  .get('/:id/catalog', async (c) => {
    const stub = await conversationStub(c.env, c.req.param('id'));
    return c.json(unwrap(await stub.catalog()));
  })
  .post('/:id/messages', async (c) => {
    const stub = await conversationStub(c.env, c.req.param('id'));
    const userMessage = userMessageFrom(await jsonBody(c, SendMessageBody));
    return stub.sendMessage(userMessage);
  })
  .post('/:id/approvals', async (c) => {
    const stub = await conversationStub(c.env, c.req.param('id'));
    const body = await jsonBody(c, ApprovalBody);
    return stub.respondToApproval(body);
  })
  .get('/:id/stream', async (c) => {
    // Resume the turn being streamed (AI SDK `resumeStream`); 204 when none is.
    const stub = await conversationStub(c.env, c.req.param('id'));
    return stub.resumeStream();
  })
  .post('/:id/resources/read', async (c) => {
    const stub = await conversationStub(c.env, c.req.param('id'));
    const body = await jsonBody(c, ReadResourceBody);
    return c.json(unwrap(await stub.readResource(body)));
  });
