/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, SEP-1865): how a tool
 * names its view and who may call it. The one reading of a tool's `_meta`,
 * for the service (catalog, turns, view routes), the demo server and the
 * widget. Dependency-free: the widget bundles it.
 */

/** The extension's id in `capabilities.extensions`. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** A view's document: HTML meant for an MCP Apps host. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** Who may call a tool: the model (offered to it), the tool's view (`tools/call` from the app), or both (the default). */
export type ToolAudience = 'model' | 'app';

interface ToolWithMeta {
  _meta?: { [key: string]: unknown } | undefined;
}

/** The tool's view (`_meta.ui.resourceUri`, else the deprecated flat `_meta['ui/resourceUri']`), when it is a `ui://` URI. */
export function toolViewUri(tool: ToolWithMeta): string | undefined {
  const ui = tool._meta?.ui as { resourceUri?: unknown } | undefined;
  const uri = typeof ui?.resourceUri === 'string' ? ui.resourceUri : tool._meta?.['ui/resourceUri'];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** Whether `audience` may call the tool: `_meta.ui.visibility` lists it, or is absent (both may). */
export function toolVisibleTo(tool: ToolWithMeta, audience: ToolAudience): boolean {
  const visibility = (tool._meta?.ui as { visibility?: unknown } | undefined)?.visibility;
  return !Array.isArray(visibility) || visibility.includes(audience);
}

/** Whether a resource's MIME type is a view's: `text/html` with `profile=mcp-app` (parameters in any order and case). */
export function isViewMimeType(mimeType: string | undefined): boolean {
  if (!mimeType) return false;
  const [essence, ...params] = mimeType.split(';').map((s) => s.trim().toLowerCase());
  return (
    essence === 'text/html' &&
    params.some((p) => p.replace(/\s+/g, '') === 'profile=mcp-app' || p === 'profile="mcp-app"')
  );
}
