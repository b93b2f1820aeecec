import type { Conversation } from './conversation';

/**
 * What a Worker request hands the conversation it calls: Durable Object RPC
 * carries no headers, so the request id (and the caller's tenant) travel as
 * an argument, and the object runs the call in that request's scope
 * (observability/context.ts) — its log lines and its MCP requests carry the id.
 */
export interface RequestMeta {
  requestId: string;
  tenant?: string | undefined;
}

/**
 * The RPC methods routes call (through src/http/conversation-stub.ts), each
 * run by `Conversation.inRequest` in its caller's scope. Calls between
 * Durable Objects and from the scheduler run in a scope of their own.
 */
export const ROUTE_METHODS = [
  'create',
  'snapshot',
  'setTitle',
  'transcript',
  'messagesPage',
  'catalog',
  'readResource',
  'complete',
  'view',
  'sendMessageAs',
  'chatAs',
  'respondToApproval',
  'runPrompt',
  'resumeStream',
  'answerElicitation',
  'stop',
  'remove',
] as const satisfies readonly (keyof Conversation)[];

export type RouteMethod = (typeof ROUTE_METHODS)[number];

export const isRouteMethod = (name: string): name is RouteMethod => (ROUTE_METHODS as readonly string[]).includes(name);
