import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { Catalog } from '../../../shared/api/catalog';
import { Message } from '../../../shared/api/common';
import {
  ApprovalBody,
  ChatRequestBody,
  CompleteBody,
  CompleteResponse,
  Conversation,
  ElicitationAnswerBody,
  ElicitationAnswered,
  ListQuery,
  MessagesPage,
  PinnedSkills,
  PinnedSkillsBody,
  PageQuery,
  PreviewQuery,
  PromptPreview,
  RunPromptBody,
  SendMessageBody,
  Stopped,
  ThreadList,
  TitleBody,
  TitleSet,
} from '../../../shared/api/conversations';
import { ReadResourceBody, ResourceView } from '../../../shared/api/resources';
import { withConnectUrls } from '../../auth/connect-urls';
import { decodeCursor, directoryOf } from '../../conversation/directory';
import { newConversationId } from '../../conversation/ids';
import { userMessageFrom } from '../../chat/use-chat-body';
import { formatIssues, loadConfig } from '../../config';
import { badRequest, notFound } from '../../errors';
import { takeConversation } from '../../limits/conversation-limits';
import { unwrap } from '../../rpc';
import { WS_SUBPROTOCOL } from '../middleware/auth';
import { asDeclared, conversationStub, ownedStub } from '../conversation-stub';
import { uploadBodyLimit } from '../middleware/upload-body-limit';
import { errors, json, jsonBody, jsonRequest, routes, uiMessageStream, V1_ERRORS } from '../openapi';
import { turnStream } from '../turn-stream';

/** `{id}` in a path: checked by the route (400 `invalid_id`) before any Durable Object is addressed. */
const IdParams = z.object({
  id: z.string().meta({
    description: 'A conversation id: 16-128 letters, digits, "-" or "_".',
    example: 'c_01JZ8Q6Y3M1D7K2W5X9V4T0R8S',
  }),
});
const tags = ['conversations'];

const create = createRoute({
  method: 'post',
  path: '/',
  tags,
  summary: 'Create a conversation',
  description:
    'Owned by the caller (tenant and end user); its MCP servers are the tenant’s (a browser token’s `servers` narrows them).',
  responses: { 201: json(Conversation, 'Created; `Location` names it.'), ...errors(...V1_ERRORS) },
});
const list = createRoute({
  method: 'get',
  path: '/',
  tags,
  summary: "List the caller's conversations",
  request: { query: ListQuery },
  responses: { 200: json(ThreadList, 'A page, most recent activity first.'), ...errors(400, ...V1_ERRORS) },
});
const rename = createRoute({
  method: 'patch',
  path: '/{id}',
  tags,
  summary: 'Set or clear the title',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(TitleBody) },
  responses: { 200: json(TitleSet, 'The title now.'), ...errors(400, 404, 415, ...V1_ERRORS) },
});
const get = createRoute({
  method: 'get',
  path: '/{id}',
  tags,
  summary: 'Read a conversation with its history',
  request: { params: IdParams },
  responses: { 200: json(Conversation, 'The conversation.'), ...errors(400, 404, ...V1_ERRORS) },
});
const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  tags,
  summary: 'Delete a conversation',
  description: 'Its history, cache and MCP sessions go; the id is never used again.',
  request: { params: IdParams },
  responses: { 204: { description: 'Deleted.' }, ...errors(400, 404, ...V1_ERRORS) },
});
const messages = createRoute({
  method: 'get',
  path: '/{id}/messages',
  tags,
  summary: 'Page through older messages',
  request: { params: IdParams, query: PageQuery },
  responses: { 200: json(MessagesPage, 'Messages before `before`, oldest first.'), ...errors(400, 404, ...V1_ERRORS) },
});
const catalog = createRoute({
  method: 'get',
  path: '/{id}/catalog',
  tags,
  summary: "The conversation's MCP catalog",
  request: { params: IdParams },
  responses: {
    200: json(Catalog, 'Per server: status, capabilities, tools, resources, templates and prompts.'),
    ...errors(400, 404, ...V1_ERRORS),
  },
});
const send = createRoute({
  method: 'post',
  path: '/{id}/messages',
  tags,
  summary: 'Send a message (a turn)',
  middleware: [uploadBodyLimit(), jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(SendMessageBody) },
  responses: {
    200: uiMessageStream('The turn as it runs.'),
    ...errors(400, 404, 409, 413, 415, 429, 502, ...V1_ERRORS),
  },
});
const runPrompt = createRoute({
  method: 'post',
  path: '/{id}/prompts/run',
  tags,
  summary: "Run an MCP server's prompt as the next turn",
  middleware: [jsonRequest] as const,
  request: { params: IdParams, query: PreviewQuery, body: jsonBody(RunPromptBody) },
  responses: {
    200: {
      description: 'The turn (UI message stream over SSE); with `preview=1`, the prompt’s messages as JSON instead.',
      content: { 'text/event-stream': { schema: z.string() }, 'application/json': { schema: PromptPreview } },
    },
    ...errors(400, 404, 409, 415, 502, ...V1_ERRORS),
  },
});
const complete = createRoute({
  method: 'post',
  path: '/{id}/complete',
  tags,
  summary: 'Complete a prompt or resource-template argument',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(CompleteBody) },
  responses: { 200: json(CompleteResponse, "The server's suggestions."), ...errors(400, 404, 415, 502, ...V1_ERRORS) },
});
const approve = createRoute({
  method: 'post',
  path: '/{id}/approvals',
  tags,
  summary: 'Approve or deny a tool call',
  description: 'The turn goes on once nothing of its step waits.',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(ApprovalBody) },
  responses: { 200: uiMessageStream('The rest of the turn.'), ...errors(400, 404, 409, 415, ...V1_ERRORS) },
});
const elicitation = createRoute({
  method: 'post',
  path: '/{id}/elicitations/{elicitationId}',
  tags,
  summary: "Answer a server's question",
  description: 'The answer to a `data-elicitation` part of the running turn; the turn’s stream goes on.',
  middleware: [jsonRequest] as const,
  request: { params: IdParams.extend({ elicitationId: z.string() }), body: jsonBody(ElicitationAnswerBody) },
  responses: { 200: json(ElicitationAnswered, 'Answered.'), ...errors(400, 404, 409, 415, ...V1_ERRORS) },
});
const socket = createRoute({
  method: 'get',
  path: '/{id}/ws',
  tags,
  summary: 'WebSocket (the agents chat protocol, `useAgentChat`)',
  description:
    'A browser sends its token as the subprotocol `bearer.<token>` next to `mcp-ondemand`; the answer chooses `mcp-ondemand`.',
  request: { params: IdParams },
  responses: { 101: { description: 'Switching protocols.' }, ...errors(400, 404, ...V1_ERRORS) },
});
const transcript = createRoute({
  method: 'get',
  path: '/{id}/ws/get-messages',
  tags,
  summary: 'The newest messages (`useAgentChat`’s first load)',
  request: { params: IdParams },
  responses: {
    200: json(z.array(Message), 'The transcript window the socket would send.'),
    ...errors(400, 404, ...V1_ERRORS),
  },
});
const resume = createRoute({
  method: 'get',
  path: '/{id}/stream',
  tags,
  summary: 'Resume the running turn’s stream',
  request: { params: IdParams },
  responses: {
    200: uiMessageStream('The running turn from its first chunk.'),
    204: { description: 'No turn is running.' },
    ...errors(400, 404, ...V1_ERRORS),
  },
});
const stop = createRoute({
  method: 'delete',
  path: '/{id}/stream',
  tags,
  summary: 'Stop the running turn',
  description: 'The model request and its MCP requests are aborted; the partial answer is kept.',
  request: { params: IdParams },
  responses: { 200: json(Stopped, 'Whether a turn was running.'), ...errors(400, 404, ...V1_ERRORS) },
});
const pinnedSkills = createRoute({
  method: 'get',
  path: '/{id}/skills/pinned',
  tags,
  summary: 'The skills pinned for every turn',
  request: { params: IdParams },
  responses: { 200: json(PinnedSkills, 'The pinned skills.'), ...errors(400, 404, ...V1_ERRORS) },
});
const pinSkills = createRoute({
  method: 'put',
  path: '/{id}/skills/pinned',
  tags,
  summary: 'Pin skills for every turn',
  description:
    "Each must be a skill an MCP server of the conversation offers now (404 `skill_not_found` otherwise). A pinned skill's SKILL.md is read (and verified against its digest) at each turn and put in the system prompt, within PINNED_TOKEN_BUDGET; one the server no longer offers is skipped, with a notice in the stream.",
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(PinnedSkillsBody) },
  responses: { 200: json(PinnedSkills, 'The pinned skills now.'), ...errors(400, 404, 415, 502, ...V1_ERRORS) },
});
const read = createRoute({
  method: 'post',
  path: '/{id}/resources/read',
  tags,
  summary: 'Read a resource for display',
  description:
    'Through the conversation’s cache, fresh per request: the stored contents and what the model would see of this window.',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(ReadResourceBody) },
  responses: { 200: json(ResourceView, 'The resource.'), ...errors(400, 404, 415, 502, ...V1_ERRORS) },
});

/** `/v1/conversations`: create, read and delete conversations; their turns, catalog and resource reads. */
export const conversations = routes()
  .openapi(create, async (c) => {
    const id = newConversationId();
    const { tenant, user, servers } = c.get('principal');
    await takeConversation(c.env, loadConfig(c.env), { tenant, user });
    const conversation = unwrap(await conversationStub(c.env, id).create({ tenant, user }, servers));
    return c.json(conversation, 201, { Location: `/v1/conversations/${id}` });
  })
  .openapi(list, async (c) => {
    // The caller's threads, from their directory: no conversation's Durable Object is woken to list them.
    const { limit, cursor } = c.req.valid('query');
    if (cursor && !decodeCursor(cursor)) throw badRequest('"cursor" is not one this API gave out', 'invalid_query');
    const { tenant, user, servers } = c.get('principal');
    return c.json(await directoryOf(c.env, { tenant, user }).list(limit, cursor, servers), 200);
  })
  .openapi(rename, async (c) => {
    const stub = await ownedStub(c);
    return c.json(unwrap(await stub.setTitle(c.req.valid('json').title)), 200);
  })
  .openapi(get, async (c) => c.json(unwrap(await (await ownedStub(c)).snapshot()), 200))
  .openapi(remove, async (c) => {
    unwrap(await (await ownedStub(c)).remove());
    return c.body(null, 204);
  })
  .openapi(messages, async (c) => {
    // Older messages, a page at a time (the WebSocket transcript carries the newest only).
    const { before, limit } = c.req.valid('query');
    return c.json(unwrap(await (await ownedStub(c)).messagesPage(before, limit)), 200);
  })
  .openapi(catalog, async (c) => {
    const { servers, plan } = unwrap(await asDeclared(await ownedStub(c), 'catalog').catalog());
    const { tenant, user } = c.get('principal');
    // A server the caller must connect (or grant more access to) carries their connect link.
    return c.json({ servers: await withConnectUrls(c.env, { tenant, user }, servers), plan }, 200);
  })
  .openapi(send, async (c) => {
    const body = c.req.valid('json');
    // One Durable Object call: start-up, ownership (404) and the turn.
    const stub = conversationStub(c.env, c.req.param('id'));
    // The AI SDK's chat body (`DefaultChatTransport` pointed here): what it means on /v1/chat — a message, a
    // regeneration (trigger "regenerate-message"), approval answers in the last assistant message. The route's id
    // names the conversation; the body's chat id is not read.
    if (body.messages !== undefined && body.text === undefined && body.message === undefined) {
      const chat = ChatRequestBody.safeParse(body);
      if (!chat.success) throw badRequest(`Not a chat request: ${formatIssues(chat.error)}`, 'invalid_body');
      const answer = await stub.chatAs(c.get('principal'), chat.data);
      if (answer === 'absent') throw notFound(`Conversation ${c.req.param('id')}`);
      return turnStream(answer);
    }
    return turnStream(await stub.sendMessageAs(c.get('principal'), userMessageFrom(body), body.attachments ?? []));
  })
  .openapi(runPrompt, async (c) => {
    const stub = await ownedStub(c);
    const { preview } = c.req.valid('query');
    return turnStream(await stub.runPrompt(c.req.valid('json'), preview === '1' || preview === 'true'));
  })
  .openapi(complete, async (c) => c.json(unwrap(await (await ownedStub(c)).complete(c.req.valid('json'))), 200))
  .openapi(approve, async (c) => turnStream(await (await ownedStub(c)).respondToApproval(c.req.valid('json'))))
  .openapi(elicitation, async (c) => {
    // The user's answer to a server's question (a data-elicitation part of the running turn); the turn's stream goes on.
    const stub = await ownedStub(c);
    return c.json(unwrap(await stub.answerElicitation(c.req.param('elicitationId'), c.req.valid('json'))), 200);
  })
  .openapi(socket, async (c) => {
    // WebSocket with the agents chat protocol (useAgentChat); see conversation/chat-socket.ts.
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket')
      throw badRequest('Expected a WebSocket upgrade', 'upgrade_required');
    const stub = await ownedStub(c);
    const offered = c.req.header('sec-websocket-protocol');
    const response = await stub.fetch(new Request(c.req.url, { headers: upgradeHeaders(c.req.raw.headers) }));
    if (response.status !== 101 || !offered) return response;
    // A browser that offered subprotocols accepts the socket only if one is chosen: ours, never the token.
    return new Response(null, {
      status: 101,
      webSocket: response.webSocket,
      headers: { 'Sec-WebSocket-Protocol': WS_SUBPROTOCOL },
    });
  })
  .openapi(transcript, async (c) => {
    // useAgentChat's default first load (it fetches <socket URL>/get-messages): the transcript as a JSON array.
    return c.json(unwrap(await (await ownedStub(c)).transcript()), 200);
  })
  // Resume the turn being streamed (AI SDK `resumeStream`); 204 when none is.
  .openapi(resume, async (c) => turnStream(await (await ownedStub(c)).resumeStream()))
  .openapi(stop, async (c) => c.json(unwrap(await (await ownedStub(c)).stop()), 200))
  .openapi(pinnedSkills, async (c) => c.json(unwrap(await (await ownedStub(c)).pinnedSkills()), 200))
  .openapi(pinSkills, async (c) => c.json(unwrap(await (await ownedStub(c)).pinSkills(c.req.valid('json'))), 200))
  .openapi(read, async (c) => c.json(unwrap(await (await ownedStub(c)).readResource(c.req.valid('json'))), 200));

/**
 * The only request headers a WebSocket upgrade carries on into the
 * conversation's Durable Object. An allow-list, not a deny-list: whatever a
 * client adds (a framework's routing header such as `x-cf-agents-subagent-url`,
 * which the `agents` Agent would act on) never reaches the object. The
 * credential (`Authorization`, `Sec-WebSocket-Protocol` with the token) has
 * done its job here and stays behind too.
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
