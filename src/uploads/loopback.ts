import { exports } from 'cloudflare:workers';
import { UPLOADS_SERVER } from '../../shared/api/files';
import type { McpServerConfig } from '../config/servers';
import type { UploadScope } from './store';

/**
 * How a conversation reaches its `uploads` server: a 2026-07-28 Streamable
 * HTTP server (no era probe) whose copies never leave the conversation
 * (`cacheScope: "conversation"`: its reads in the conversation's memory only,
 * never KV; its lists never shared with the tenant's other conversations,
 * nor the user's). The URL is a path that no route serves: only `fetch`
 * below reaches the server. Written out, not parsed: nothing runs at the
 * isolate's start.
 */
export const UPLOADS_CONFIG: McpServerConfig = {
  id: UPLOADS_SERVER,
  url: '/uploads/mcp',
  transport: 'streamable-http',
  protocol: '2026-07-28',
  headers: {},
  auth: { type: 'none' },
  cacheScope: 'conversation',
  trustNotifications: false,
  autoApprove: [],
  trustAnnotations: false,
  modelPrompts: false,
  skills: 'off',
  pin: [],
};

/** The transport's fetch: the UploadsMcp entrypoint, scoped by its props to this tenant's one conversation. */
export function uploadsFetch(scope: UploadScope): typeof fetch {
  const props = { tenant: scope.tenant, conversation: scope.conversation };
  return (input, init) => exports.UploadsMcp({ props }).fetch(input, init);
}
