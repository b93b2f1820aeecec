import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ViewLinkBody, ViewToolCallBody, ViewToolCallResult } from '../../shared/api/views';
import { isViewMimeType, toolViewUri, toolVisibleTo } from '../../shared/mcp-apps';
import { ApiError, badRequest, notFound } from '../errors';
import { utf8OfBase64 } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { logEvent } from '../observability/log';
import { autoApproved } from '../tools/mcp-tools';
import type { SqlViewNonces, ViewTarget } from './view-nonces';

/** A view's document as the conversation reads it: the HTML and the resource's `_meta.ui` as the server declared it (unchecked). */
export interface ViewDocument {
  html: string;
  ui: unknown;
}

/** What the routes ask of a conversation's views (one RPC method, `Conversation.view`). */
export type ViewRequest =
  | { kind: 'link'; body: ViewLinkBody }
  | { kind: 'document'; nonce: string; peek?: boolean | undefined }
  | { kind: 'call'; body: ViewToolCallBody };

/** The answer to each `ViewRequest`: a link's nonce (with the view's declared `_meta.ui`), a document, a tool's result. */
export type ViewAnswer<R extends ViewRequest = ViewRequest> = R extends { kind: 'link' }
  ? { nonce: string; expiresAt: number; ui: unknown }
  : R extends { kind: 'document' }
    ? ViewDocument
    : ViewToolCallResult;

/**
 * MCP Apps in a conversation: links to the views of its servers' tools,
 * their documents read through the conversation's cache (fresh after
 * `resources/updated`, like any resource), and the tool calls a view makes
 * — each to its own server, visible to apps, under the model's approval
 * rule. The model sees none of it.
 */
export async function answerView(
  sessions: McpSessions,
  nonces: SqlViewNonces,
  request: ViewRequest,
): Promise<ViewAnswer> {
  switch (request.kind) {
    case 'link': {
      const target = await checkedTarget(sessions, request.body);
      const { ui } = await readView(sessions, target); // refused now, not when the iframe loads, if it is no view
      return { ...nonces.mint(target), ui };
    }
    case 'document': {
      // Single use: the frame's first load (a reload asks the API for a new link, as the widget does for every mount);
      // a look (HEAD) leaves it for that load.
      const target = request.peek ? nonces.peek(request.nonce) : nonces.take(request.nonce);
      if (!target) throw notFound('View link');
      return readView(sessions, target);
    }
    case 'call':
      return { result: await viewToolCall(sessions, request.body) };
  }
}

/** `uri` must be a `ui://` view of one of `server`'s tools, or listed by it as a view (404 otherwise; 400 for another scheme). */
async function checkedTarget(sessions: McpSessions, { server, uri }: ViewLinkBody): Promise<ViewTarget> {
  if (!uri.startsWith('ui://')) throw badRequest(`"${uri}" is not a view: views are ui:// resources`, 'invalid_uri');
  const state = await sessions.ensureServer(server);
  const isView =
    state.tools.some((tool) => toolViewUri(tool) === uri) ||
    state.resources.some((r) => r.uri === uri && isViewMimeType(r.mimeType));
  if (!isView) throw notFound(`View ${uri} of MCP server "${server}"`);
  return { server, uri };
}

/** The view's HTML through the cache: `text/html;profile=mcp-app` (else 502), text or base64 UTF-8; `_meta.ui` of the read wins over the listing's. */
async function readView(sessions: McpSessions, { server, uri }: ViewTarget): Promise<ViewDocument> {
  const read = await sessions.readResource(server, uri, { reuseSince: Date.now() });
  const item = read.contents.find((c) => c.uri === uri) ?? read.contents[0];
  if (!item || !isViewMimeType(item.mimeType)) {
    throw new ApiError(
      502,
      'not_a_view',
      `MCP server "${server}" sent ${uri} as ${item?.mimeType ?? 'nothing'}, not text/html;profile=mcp-app`,
    );
  }
  const html =
    'blob' in item && typeof item.blob === 'string' ? decodeBase64Utf8(item.blob) : (item as { text?: string }).text;
  if (html === undefined) throw new ApiError(502, 'not_a_view', `MCP server "${server}" sent ${uri} without text`);
  const state = await sessions.ensureServer(server);
  const listed = state.resources.find((r) => r.uri === uri);
  return {
    html,
    ui: (item._meta as { ui?: unknown } | undefined)?.ui ?? (listed?._meta as { ui?: unknown } | undefined)?.ui,
  };
}

function decodeBase64Utf8(blob: string): string {
  const text = utf8OfBase64(blob);
  if (text === undefined) throw new ApiError(502, 'not_a_view', 'The view is not base64 of UTF-8 text');
  return text;
}

/**
 * A view's `tools/call`, for the user who sees it: only a tool of the
 * view's own server whose visibility includes `app` (403 otherwise), and
 * only with the user's yes (`approved`) where a model's call would ask (409
 * `approval_required`). An `isError` result is a result; a failed call, 502.
 */
async function viewToolCall(
  sessions: McpSessions,
  { server, name, arguments: args, approved }: ViewToolCallBody,
): Promise<CallToolResult> {
  const forbidden = () =>
    new ApiError(403, 'tool_not_for_app', `"${name}" is not a tool of MCP server "${server}" that its views may call`);
  if (!sessions.serverIds.includes(server)) throw forbidden();
  const state = await sessions.serverForCall(server);
  const tool = state.tools.find((t) => t.name === name);
  if (!tool || !toolVisibleTo(tool, 'app')) throw forbidden();
  if (
    !autoApproved(
      sessions.servers.find((c) => c.id === server),
      tool,
      state.definitions,
    ) &&
    approved !== true
  ) {
    throw new ApiError(
      409,
      'approval_required',
      `Calling "${name}" of MCP server "${server}" needs the user's approval: ask them, then send it again with approved: true`,
    );
  }
  logEvent('view.call', { server, tool: name, approved: approved === true });
  return sessions.callToolToEnd(server, name, args);
}
