import { Hono } from 'hono';
import { z } from 'zod';
import { connectLinks } from '../../auth/connect-links';
import type { ServerState } from '../../mcp/catalog';
import { newConversationId } from '../../conversation/ids';
import { unwrap } from '../../rpc';
import { SendMessageBody, userMessageFrom } from '../../conversation/user-message';
import { decodeCursor, directoryOf, TITLE_MAX_CHARS } from '../../conversation/directory';
import { formatIssues, loadConfig } from '../../config';
import { badRequest } from '../../errors';
import { WS_SUBPROTOCOL } from '../auth';
import { directStub, ownedStub } from '../conversation-stub';
import { takeConversation } from '../../limits/conversation-limits';
import { turnStream } from '../turn-stream';
import { jsonBody } from '../validation';
import type { AppBindings } from '../types';

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
    context: z
      .object({ arguments: z.record(z.string(), z.string().max(10_000)).optional() })
      .strict()
      .optional(),
  })
  .strict();

const RunPromptBody = z
  .object({
    server: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

const TitleBody = z.object({ title: z.string().trim().max(TITLE_MAX_CHARS) }).strict();

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(500).optional(),
});

const PageQuery = z.object({ before: z.string().min(1).max(200).optional(), limit: z.coerce.number().int().min(1).max(200).default(50) });

const ElicitationAnswerBody = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']),
    /** With `accept`: the form's values, checked against the server's schema. */
    content: z.record(z.string(), z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(1_000)).max(100)])).optional(),
  })
  .strict();

const ApprovalBody = z.object({ toolCallId: z.string().min(1).max(200), approved: z.boolean(), reason: z.string().max(1_000).optional() }).strict();

/** `/v1/conversations`: create, read and delete conversations; their catalog and resource reads. */
export const conversations = new Hono<AppBindings>()
  .post('/', async (c) => {
    const id = newConversationId();
    const { tenant, user, servers } = c.get('principal');
    await takeConversation(c.env, loadConfig(c.env), { tenant, user });
    const conversation = unwrap(await directStub(c.env, id).create({ tenant, user }, servers));
    return c.json(conversation, 201, { Location: `/v1/conversations/${id}` });
  })
  .get('/', async (c) => {
    // The caller's threads, from their directory: no conversation's Durable Object is woken to list them.
    const query = ListQuery.safeParse(c.req.query());
    if (!query.success) throw badRequest(`Invalid query: ${formatIssues(query.error)}`, 'invalid_query');
    if (query.data.cursor && !decodeCursor(query.data.cursor)) throw badRequest('"cursor" is not one this API gave out', 'invalid_query');
    const { tenant, user, servers } = c.get('principal');
    return c.json(await directoryOf(c.env, { tenant, user }).list(query.data.limit, query.data.cursor, servers));
  })
  .patch('/:id', async (c) => {
    const stub = await ownedStub(c);
    const { title } = await jsonBody(c, TitleBody);
    return c.json(unwrap(await stub.setTitle(title)));
  })
  .get('/:id', async (c) => {
    return c.json(unwrap(await (await ownedStub(c)).snapshot()));
  })
  .delete('/:id', async (c) => {
    unwrap(await (await ownedStub(c)).remove());
    return c.body(null, 204);
  })
  .get('/:id/messages', async (c) => {
    // Older messages, a page at a time (the WebSocket transcript carries the newest only).
    const query = PageQuery.safeParse(c.req.query());
    if (!query.success) throw badRequest(`Invalid query: ${formatIssues(query.error)}`, 'invalid_query');
    const stub = await ownedStub(c);
    return c.json(unwrap(await stub.messagesPage(query.data.before, query.data.limit)));
  })
  .get('/:id/catalog', async (c) => {
    const stub = await ownedStub(c);
    const catalog = unwrap(await stub.catalog()) as { servers: ServerState[] };
    const { tenant, user } = c.get('principal');
    // A server the caller must connect (or grant more access to) carries their connect link.
    return c.json({ ...catalog, servers: await connectLinks(c.env, { tenant, user }, catalog.servers) });
  })
  .post('/:id/messages', async (c) => {
    const body = await jsonBody(c, SendMessageBody);
    // One Durable Object call: start-up, ownership (404) and the turn.
    const stub = directStub(c.env, c.req.param('id'));
    return turnStream(await stub.sendMessageAs(c.get('principal'), userMessageFrom(body), body.attachments ?? []));
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
  .post('/:id/elicitations/:elicitationId', async (c) => {
    // The user's answer to a server's question (a data-elicitation part of the running turn); the turn's stream goes on.
    const stub = await ownedStub(c);
    const body = await jsonBody(c, ElicitationAnswerBody);
    return c.json(unwrap(await stub.answerElicitation(c.req.param('elicitationId'), body)));
  })
  .get('/:id/ws', async (c) => {
    // WebSocket with the agents chat protocol (useAgentChat); see conversation/chat-socket.ts.
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw badRequest('Expected a WebSocket upgrade', 'upgrade_required');
    const stub = await ownedStub(c);
    const offered = c.req.header('sec-websocket-protocol');
    const response = await stub.fetch(new Request(c.req.url, { headers: upgradeHeaders(c.req.raw.headers) }));
    if (response.status !== 101 || !offered) return response;
    // A browser that offered subprotocols accepts the socket only if one is chosen: ours, never the token.
    return new Response(null, { status: 101, webSocket: response.webSocket, headers: { 'Sec-WebSocket-Protocol': WS_SUBPROTOCOL } });
  })
  .get('/:id/ws/get-messages', async (c) => {
    // useAgentChat's default first load (it fetches <socket URL>/get-messages): the transcript as a JSON array.
    return c.json(unwrap(await (await ownedStub(c)).transcript()));
  })
  .get('/:id/stream', async (c) => {
    // Resume the turn being streamed (AI SDK `resumeStream`); 204 when none is.
    const stub = await ownedStub(c);
    return turnStream(await stub.resumeStream());
  })
  .delete('/:id/stream', async (c) => {
    // Stop the running turn: the model request and its MCP requests are aborted, the partial answer kept.
    const stub = await ownedStub(c);
    return c.json(unwrap(await stub.stop()));
  })
  .post('/:id/resources/read', async (c) => {
    const stub = await ownedStub(c);
    const body = await jsonBody(c, ReadResourceBody);
    return c.json(unwrap(await stub.readResource(body)));
  });

/**
 * The only request headers a WebSocket upgrade carries on into the
 * conversation's Agent. An allow-list, not a deny-list: the agents framework
 * trusts headers of its own (`x-cf-agents-subagent-url` routes the socket to
 * a child "facet" it names, `x-agents-lifecycle-props` sets the Agent's
 * props) and a later version may add more. The credential (`Authorization`,
 * `Sec-WebSocket-Protocol` with the token) has done its job here and stays
 * behind too: the Agent keeps the request with the connection.
 */
const UPGRADE_HEADERS = [
  'upgrade',
  'connection',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'origin',
  'user-agent',
  'x-request-id',
];

export function upgradeHeaders(from: Headers): Headers {
  const headers = new Headers();
  for (const name of UPGRADE_HEADERS) {
    const value = from.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}
