import type { Context } from 'hono';
import { type Conversation, isScopedMethod } from '../conversation/conversation';
import { isConversationId } from '../conversation/ids';
import { badRequest, notFound } from '../errors';
import { requestMeta } from '../observability/current-request';
import type { AppBindings } from './types';

type ConversationStub = DurableObjectStub<Conversation>;

/**
 * The conversation's Durable Object stub, after validating the id's shape
 * (400 before any object is addressed). The one-call methods (`create`,
 * `sendMessageAs`, `chatAs`) check ownership in the object: a turn costs one
 * Durable Object call from the Worker.
 */
export function conversationStub(env: Env, id: string): ConversationStub {
  return carryingRequest(env.CONVERSATION.getByName(checkedId(id)));
}

/**
 * The stub, with every method of the conversation called through
 * `Conversation.inRequest` with this request's id and tenant
 * (observability/current-request.ts, set by access-log.ts): RPC carries no headers,
 * so the id travels as an argument, and the object's log lines and MCP
 * requests carry it. Scoped by default — a new method needs no list; only
 * the object's PEER_METHODS and the runtime's handlers are called as they are.
 */
function carryingRequest(stub: ConversationStub): ConversationStub {
  const meta = requestMeta();
  return new Proxy(stub, {
    get(target, key) {
      if (typeof key === 'string' && isScopedMethod(key))
        return (...args: unknown[]) => target.inRequest(meta, key, args);
      // A stub's members are RPC stubs themselves (even `bind`): called on the stub, not looked up on.
      const value: unknown = Reflect.get(target, key);
      return typeof value === 'function' ? (...args: unknown[]) => Reflect.apply(value, target, args) : value;
    },
  });
}

/** A conversation id of the right shape (400 before any object is addressed). */
function checkedId(id: string): string {
  if (!isConversationId(id))
    throw badRequest(`"${id}" is not a conversation id (16-128 letters, digits, "-" or "_")`, 'invalid_id');
  return id;
}

/**
 * The stub of a conversation the caller owns. Someone else's conversation is
 * a 404, exactly like one that does not exist: ids reveal nothing.
 */
export async function ownedStub(
  c: Context<AppBindings>,
  id = c.req.param('id') ?? '',
): Promise<DurableObjectStub<Conversation>> {
  const stub = conversationStub(c.env, id);
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
export function asDeclared<K extends keyof Conversation>(
  stub: DurableObjectStub<Conversation>,
  ..._methods: K[]
): Pick<Conversation, K> {
  return stub as unknown as Pick<Conversation, K>;
}
