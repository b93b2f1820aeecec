import { newRequestId, type RequestMeta, withRequest } from '../observability/current-request';

/** Who the work is for: the conversation's id and, once it exists, its tenant. */
export interface ScopeOwner {
  name: string;
  tenant(): string | undefined;
}

/**
 * Runs `work` in a request's scope (observability/current-request.ts): its log lines
 * and MCP requests carry `meta.requestId` — a fresh id for work no Worker
 * request started (a WebSocket frame, an alarm, another object's call).
 */
export function inScope<T>(conversation: ScopeOwner, meta: RequestMeta | undefined, work: () => T): T {
  const tenant = meta?.tenant ?? conversation.tenant();
  return withRequest({ requestId: meta?.requestId ?? newRequestId(), tenant, conversation: conversation.name }, work);
}
