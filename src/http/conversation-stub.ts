import type { Context } from 'hono';
import { getAgentByName } from 'agents';
import type { Conversation } from '../conversation/conversation';
import { isConversationId } from '../conversation/ids';
import { badRequest, notFound } from '../errors';
import type { AppBindings } from './types';

/** The conversation's Durable Object stub, after validating the id's shape (400 before any object is addressed). */
export function conversationStub(env: Env, id: string): Promise<DurableObjectStub<Conversation>> {
  return getAgentByName<Env, Conversation>(env.CONVERSATION, checkedId(id));
}

/**
 * The stub without the start-up round trip, for the one-call turn methods
 * (`sendMessageAs`, `chatAs`) that start the Agent and check ownership
 * themselves: a turn costs one Durable Object call from the Worker.
 */
export function directStub(env: Env, id: string): DurableObjectStub<Conversation> {
  return env.CONVERSATION.getByName(checkedId(id)) as DurableObjectStub<Conversation>;
}

/** A conversation id of the right shape (400 before any object is addressed). */
function checkedId(id: string): string {
  if (!isConversationId(id)) throw badRequest(`"${id}" is not a conversation id (16-128 letters, digits, "-" or "_")`, 'invalid_id');
  return id;
}

/**
 * The stub of a conversation the caller owns. Someone else's conversation is
 * a 404, exactly like one that does not exist: ids reveal nothing.
 */
export async function ownedStub(c: Context<AppBindings>, id = c.req.param('id') ?? ''): Promise<DurableObjectStub<Conversation>> {
  const stub = await conversationStub(c.env, id);
  const { tenant, user, servers } = c.get('principal');
  if (!(await stub.ownedBy({ tenant, user }, servers))) throw notFound(`Conversation ${id}`);
  return stub;
}

/**
 * A stub's methods as the class declares them. For the methods whose data
 * holds the MCP SDK's recursive JSON types (the catalog), the stub's RPC
 * mapping of them is deeper than TypeScript follows; over RPC the value is
 * the same plain data (structured clone), so the declared type is the true one.
 */
export function asDeclared<K extends keyof Conversation>(stub: DurableObjectStub<Conversation>, ..._methods: K[]): Pick<Conversation, K> {
  return stub as unknown as Pick<Conversation, K>;
}
