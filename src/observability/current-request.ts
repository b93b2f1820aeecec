import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request a piece of work belongs to: what every log line it writes
 * (log.ts) and every MCP request it sends (the `X-Request-Id` header,
 * mcp/connection/transport.ts) carry. Never a credential or an end-user id.
 */
export interface RequestScope {
  /** The HTTP request's id (`X-Request-Id`, hono's requestId), or one made for work no request started. */
  requestId: string;
  tenant?: string | undefined;
  conversation?: string | undefined;
}

/**
 * Per async flow, not per object: a Durable Object serves several requests
 * at once (a turn, a catalog read, a stop), each in its own scope, and the
 * work a request starts (a turn's stream, a debounced refresh) keeps its
 * scope after the request itself has been answered.
 */
const scopes = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it starts) in `scope`. */
export function withRequest<T>(scope: RequestScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The scope of the running work, if it has one. */
export function currentRequest(): RequestScope | undefined {
  return scopes.getStore();
}

/**
 * Runs `work` as a request of its own — a server's notification and the
 * refresh it leads to, an alarm — keeping the tenant and conversation of the
 * current scope (a notification arrives on a stream some request opened).
 */
export function asNewRequest<T>(work: () => T, scope: Omit<RequestScope, 'requestId'> = {}): T {
  const current = scopes.getStore();
  return scopes.run(
    { tenant: current?.tenant, conversation: current?.conversation, ...scope, requestId: newRequestId() },
    work,
  );
}

/**
 * What a Worker request hands a Durable Object it calls: RPC carries no
 * headers, so the request id (and the caller's tenant) travel as an argument,
 * and the object runs the call in that request's scope — its log lines and
 * its MCP requests carry the id.
 */
export interface RequestMeta {
  requestId: string;
  tenant?: string | undefined;
}

/** The running work's scope as it crosses RPC (undefined outside any request). */
export function requestMeta(): RequestMeta | undefined {
  const scope = scopes.getStore();
  return scope && { requestId: scope.requestId, tenant: scope.tenant };
}

/** An id in the shape hono's requestId() makes (a UUID). */
export const newRequestId = (): string => crypto.randomUUID();
