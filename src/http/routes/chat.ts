import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { ChatRequestBody } from '../../../shared/api/conversations';
import { loadConfig } from '../../config';
import { badRequest, notFound } from '../../errors';
import { takeConversation } from '../../limits/conversation-limits';
import { unwrap } from '../../rpc';
import { conversationStub, ownedStub } from '../conversation-stub';
import { uploadBodyLimit } from '../middleware/upload-body-limit';
import { errors, jsonBody, jsonRequest, routes, uiMessageStream, V1_ERRORS } from '../openapi';
import { turnStream } from '../turn-stream';

const tags = ['chat'];

const post = createRoute({
  method: 'post',
  path: '/',
  tags,
  summary: 'A chat request (`useChat`)',
  description:
    'A new message, a regeneration (`trigger: "regenerate-message"`), or approval answers (the last message is the assistant message with them). ' +
    'The chat id names the caller’s conversation: created on first use; anyone else’s id is 404. ' +
    'File parts of the new message (`useChat`’s `sendMessage({files})`: `data:` URLs) are stored as uploads of the conversation (the limits of POST …/files, checked before anything is stored) and attached by reference. ' +
    'The body may be up to UPLOAD_REQUEST_MAX_BYTES (useChat sends every message, with its files, each time).',
  middleware: [uploadBodyLimit(), jsonRequest] as const,
  request: { body: jsonBody(ChatRequestBody) },
  responses: { 200: uiMessageStream('The turn as it runs.'), ...errors(400, 404, 409, 413, 415, 502, ...V1_ERRORS) },
});
const resume = createRoute({
  method: 'get',
  path: '/{id}/stream',
  tags,
  summary: 'Resume the running turn (`useChat` with `resume: true`)',
  request: { params: z.object({ id: z.string().meta({ description: 'The chat id.' }) }) },
  responses: {
    200: uiMessageStream('The running turn from its first chunk.'),
    204: { description: 'No turn is running.' },
    ...errors(400, 404, ...V1_ERRORS),
  },
});

/**
 * `/v1/chat`: the AI SDK's chat protocol as `useChat` speaks it with no
 * configuration but `api` — `POST` with `{id, messages, trigger, messageId}`,
 * and `GET /:id/stream` to resume. The chat id names the caller's
 * conversation: created on first use, owned by the caller (anyone else's
 * id is 404, as everywhere).
 */
export const chat = routes()
  .openapi(post, async (c) => {
    const sent = c.req.valid('json');
    const { id } = sent;
    if (!id) throw badRequest('"id" (the chat id) is required', 'invalid_body');
    // Only the last message is read (chat/use-chat-body.ts): the earlier ones, with any files they carried, stay here.
    const body = { ...sent, id, messages: sent.messages.slice(-1) };
    const { tenant, user, servers } = c.get('principal');
    // An existing conversation: one Durable Object call (start-up, ownership and the turn).
    const answer = await conversationStub(c.env, body.id).chatAs({ tenant, user, servers }, body);
    if (answer !== 'absent') return turnStream(answer);
    await takeConversation(c.env, loadConfig(c.env), { tenant, user });
    const stub = conversationStub(c.env, body.id);
    unwrap(await stub.create({ tenant, user }, servers));
    // Two callers may create the same id at once: the first one's row stays, and the other is refused (404).
    const created = await stub.chatAs({ tenant, user, servers }, body);
    if (created === 'absent') throw notFound(`Conversation ${body.id}`);
    return turnStream(created);
  })
  .openapi(resume, async (c) => turnStream(await (await ownedStub(c)).resumeStream()));
