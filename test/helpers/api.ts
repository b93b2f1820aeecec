import { env, exports } from 'cloudflare:workers';
import type { Conversation } from '../../src/conversation/conversation';
import type { ServerState } from '../../src/mcp/catalog/catalog';
import type { McpSessions, ResourceRead } from '../../src/mcp/sessions';

/** Credentials of the test tenants (test/infra/tenants.ts): acme's end user "alice" unless a test says otherwise. */
export const ACME_ALICE = { authorization: 'Bearer test-key-acme', 'x-end-user': 'alice' };

/** A request to the Worker, as a tenant's backend would send it (acme, for alice, by default). */
export const api = (path: string, init: RequestInit = {}, as: Record<string, string> = ACME_ALICE) =>
  exports.default.fetch(`http://localhost${path}`, {
    ...init,
    headers: { ...as, ...Object.fromEntries(new Headers(init.headers)) },
  });

export const postJson = (path: string, body: unknown, as: Record<string, string> = ACME_ALICE) =>
  api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, as);

/** A WebSocket tab on a conversation (the useAgentChat protocol's socket), recording every frame it is sent. */
export async function openSocketTab(id: string, as: Record<string, string> = ACME_ALICE) {
  const response = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
    headers: { Upgrade: 'websocket', ...as },
  });
  const socket = response.webSocket!;
  socket.accept();
  const frames: Array<Record<string, unknown>> = [];
  socket.addEventListener('message', (e) => frames.push(JSON.parse(String(e.data)) as Record<string, unknown>));
  return { socket, frames };
}

export async function createConversation(as: Record<string, string> = ACME_ALICE): Promise<string> {
  const response = await api('/v1/conversations', { method: 'POST' }, as);
  if (response.status !== 201) throw new Error(`create failed: ${response.status}`);
  return (await response.json<{ id: string }>()).id;
}

export async function catalog(id: string): Promise<Record<string, ServerState>> {
  const response = await api(`/v1/conversations/${id}/catalog`);
  if (response.status !== 200) throw new Error(`catalog failed: ${response.status} ${await response.text()}`);
  const { servers } = await response.json<{ servers: ServerState[] }>();
  return Object.fromEntries(servers.map((s) => [s.id, s]));
}

export async function read(id: string, body: { server?: string; uri: string }): Promise<ResourceRead> {
  const response = await postJson(`/v1/conversations/${id}/resources/read`, body);
  if (response.status !== 200) throw new Error(`read failed: ${response.status} ${await response.text()}`);
  return response.json<ResourceRead>();
}

/**
 * The MCP sessions a conversation holds right now, from inside its Durable
 * Object (`runInDurableObject`): what no route exposes (live connections).
 */
export function mcpSessionsOf(instance: Conversation): McpSessions | undefined {
  return instance.parts.live?.current.sessions;
}

/** The conversation's Durable Object, for what no HTTP route exposes yet (tool calls, settling background work). */
export const conversationStub = async (id: string) => env.CONVERSATION.getByName(id);

export const textOf = (r: ResourceRead, index = 0) => {
  const entry = r.contents[index];
  if (!entry || !('text' in entry)) throw new Error('expected text contents');
  return entry.text;
};
