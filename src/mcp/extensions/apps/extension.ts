import type { ServerState } from '../../../../shared/api/catalog';
import { isViewMimeType, UI_EXTENSION, VIEW_MIME_TYPE } from '../../../../shared/mcp-apps';
import type { McpExtension } from '../registry';

/**
 * MCP Apps (views): a server may attach a `ui://` view to a tool; the widget
 * renders it (conversation/views.ts) beside the call's `data-mcp-app` part.
 */
export const appsExtension: McpExtension = {
  id: UI_EXTENSION,
  clientCapability: () => ({ mimeTypes: [VIEW_MIME_TYPE] }),
  forModel: withoutViews,
};

/** A view (`text/html;profile=mcp-app`) is a document for the widget, not the model: out of its catalog, corpus and resource tools. */
function withoutViews(state: ServerState): ServerState {
  return state.resources.some((r) => isViewMimeType(r.mimeType))
    ? { ...state, resources: state.resources.filter((r) => !isViewMimeType(r.mimeType)) }
    : state;
}
