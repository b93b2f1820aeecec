import { Hono } from 'hono';
import { getAgentByName } from 'agents';
import type { Conversation } from '../../conversation/conversation';
import { isConversationId, newConversationId } from '../../conversation/ids';
import { badRequest, notFound } from '../../errors';
import type { AppBindings } from '../types';

/** The conversation's Durable Object stub, after validating the id's shape. */
function conversationStub(env: Env, id: string): Promise<DurableObjectStub<Conversation>> {
  if (!isConversationId(id)) throw badRequest(`"${id}" is not a conversation id (expected a UUID)`, 'invalid_id');
  return getAgentByName(env.CONVERSATION, id);
}

/** `/v1/conversations`: create, read and delete conversations. */
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
  });
