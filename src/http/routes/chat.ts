import { Hono } from 'hono';
import { ChatRequestBody } from '../../conversation/chat-request';
import { loadConfig } from '../../config';
import { badRequest, notFound } from '../../errors';
import { takeConversation } from '../../limits/conversation-limits';
import { unwrap } from '../../rpc';
import { directStub, ownedStub } from '../conversation-stub';
import { turnStream } from '../turn-stream';
import { jsonBody } from '../validation';
import type { AppBindings } from '../types';

/**
 * `/v1/chat`: the AI SDK's chat protocol as `useChat` speaks it with no
 * configuration but `api` — `POST` with `{id, messages, trigger, messageId}`,
 * and `GET /:id/stream` to resume. The chat id names the caller's
 * conversation: created on first use, owned by the caller (anyone else's
 * id is 404, as everywhere).
 */
export const chat = new Hono<AppBindings>()
  .post('/', async (c) => {
    const body = await jsonBody(c, ChatRequestBody);
    if (!body.id) throw badRequest('"id" (the chat id) is required', 'invalid_body');
    const { tenant, user, servers } = c.get('principal');
    // An existing conversation: one Durable Object call (start-up, ownership and the turn).
    const answer = await directStub(c.env, body.id).chatAs({ tenant, user, servers }, body);
    if (answer !== 'absent') return turnStream(answer);
    await takeConversation(c.env, loadConfig(c.env), { tenant, user });
    const stub = directStub(c.env, body.id);
    unwrap(await stub.create({ tenant, user }, servers));
    // Two callers may create the same id at once: the first one's row stays, and the other is refused (404).
    const created = await stub.chatAs({ tenant, user, servers }, body);
    if (created === 'absent') throw notFound(`Conversation ${body.id}`);
    return turnStream(created);
  })
  .get('/:id/stream', async (c) => {
    const stub = await ownedStub(c);
    return turnStream(await stub.resumeStream());
  });
