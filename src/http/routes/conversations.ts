import { Hono, type Context } from 'hono';
import { getAgentByName } from 'agents';
import { z } from 'zod';
import type { Conversation } from '../../conversation/conversation';
import { isConversationId, newConversationId } from '../../conversation/ids';
import { unwrap } from '../../conversation/rpc';
import { SendMessageBody, userMessageFrom } from '../../conversation/user-message';
import { loadConfig } from '../../config';
import { badRequest, notFound } from '../../errors';
import { takeConversation } from '../../limits/conversation-limits';
import { turnStream } from '../turn-stream';
import { jsonBody } from '../validation';
import type { AppBindings } from '../types';

/** The conversation's Durable Object stub, after validating the id's shape. */
function conversationStub(env: Env, id: string): Promise<DurableObjectStub<Conversation>> {
  if (!isConversationId(id)) throw badRequest(`"${id}" is not a conversation id (expected a UUID)`, 'invalid_id');
  return getAgentByName<Env, Conversation>(env.CONVERSATION, id);
}

/**
 * The stub of a conversation the caller owns. Someone else's conversation is
 * a 404, exactly like one that does not exist: ids reveal nothing.
 */
async function ownedStub(c: Context<AppBindings>, id = c.req.param('id') ?? ''): Promise<DurableObjectStub<Conversation>> {
  const stub = await conversationStub(c.env, id);
  const { tenant, user, servers } = c.get('principal');
  if (!(await stub.ownedBy({ tenant, user }, servers))) throw notFound(`Conversation ${id}`);
  return stub;
}

const ReadResourceBody = z
  .object({
    server: z.string().min(1).max(64).optional(),
    uri: z.string().min(1).max(4096),
    /** Character offset of the text window, as `read_resource` takes it. */
    offset: z.number().int().min(0).optional(),
  })
  .strict();

const CompleteBody = z
  .object({
    server: z.string().min(1).max(64),
    ref: z.discriminatedUnion('type', [
      z.object({ type: z.literal('ref/prompt'), name: z.string().min(1).max(200) }).strict(),
      z.object({ type: z.literal('ref/resource'), uri: z.string().min(1).max(4096) }).strict(),
    ]),
    argument: z.object({ name: z.string().min(1).max(200), value: z.string().max(1_000) }).strict(),
    context: z.object({ arguments: z.record(z.string(), z.string().max(10_000)).optional() }).strict().optional(),
  })
  .strict();

const RunPromptBody = z
  .object({
    server: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const ApprovalBody = z.object({ toolCallId: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(1_000).optional() }).strict();

/** `/v1/conversations`: create, read and delete conversations; their catalog and resource reads. */
export const conversations = new Hono<AppBindings>()
  .post('/', async (c) => {
    const id = newConversationId();
    const { tenant, user, servers } = c.get('principal');
    await takeConversation(c.env, loadConfig(c.env), { tenant, user });
    const conversation = await (await conversationStub(c.env, id)).create({ tenant, user }, servers);
    return c.json(conversation, 201, { Location: `/v1/conversations/${id}` });
  })
  .get('/:id', async (c) => {
    const id = c.req.param('id');
    const conversation = await (await ownedStub(c, id)).snapshot();
    if (!conversation) throw notFound(`Conversation ${id}`);
    return c.json(conversation);
  })
  .delete('/:id', async (c) => {
    const id = c.req.param('id');
    const removed = await (await ownedStub(c, id)).remove();
    if (!removed) throw notFound(`Conversation ${id}`);
    return c.body(null, 204);
  })
  .get('/:id/catalog', async (c) => {
    const stub = await ownedStub(c);
    const catalog = unwrap(await stub.catalog());
    return c.json(catalog);
  })
  .post('/:id/messages', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, SendMessageBody);
    return turnStream(await stub.sendMessage(userMessageFrom(body), body.attachments ?? []));
  })
  .post('/:id/prompts/run', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, RunPromptBody);
    return turnStream(await stub.runPrompt(body, c.req.query('preview') === '1' || c.req.query('preview') === 'true'));
  })
  .post('/:id/complete', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, CompleteBody);
    return c.json(unwrap(await stub.complete(body)));
  })
  .post('/:id/approvals', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, ApprovalBody);
    return turnStream(await stub.respondToApproval(body));
  })
  .get('/:id/ws', async (c) => {
    // WebSocket with the agents chat protocol (useAgentChat); see conversation/chat-socket.ts.
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw badRequest('Expected a WebSocket upgrade', 'upgrade_required');
    const stub = await ownedStub(c);
    // The token has done its job: it must not travel on into the Agent (which keeps the URL with the connection).
    const url = new URL(c.req.url);
    url.searchParams.delete('token');
    return stub.fetch(new Request(url, c.req.raw));
  })
  .get('/:id/stream', async (c) => {
    // Resume the turn being streamed (AI SDK `resumeStream`); 204 when none is.
    const stub = await ownedStub(c);
    return turnStream(await stub.resumeStream());
  })
  .post('/:id/resources/read', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, ReadResourceBody);
    return c.json(unwrap(await stub.readResource(body)));
  });
