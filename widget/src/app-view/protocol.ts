/**
 * The few shapes of the MCP Apps postMessage protocol (extension
 * `io.modelcontextprotocol/ui`, spec 2026-01-26) the widget's host side
 * speaks. Written by hand rather than imported from
 * `@modelcontextprotocol/ext-apps`: its `app-bridge` bundle is ~149 KB
 * gzipped (all of zod and the SDK's Protocol) against a 16 KB widget, so the
 * widget implements the host side itself (bridge.ts, ~3 KB); the names
 * below follow ext-apps' `McpUi*` types, and a Chromium test drives the
 * bridge with the official `App` when ext-apps is installed.
 */

export const PROTOCOL_VERSION = '2026-01-26';

export type Json = Record<string, unknown>;

/** A JSON-RPC 2.0 message, as read off the wire (every field unchecked until used). */
export interface RpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: Json;
  result?: unknown;
  error?: { code: number; message: string };
}

/** ext-apps `McpUiHostContext`, the fields the widget sets. */
export interface HostContext {
  toolInfo?: { id: string; tool: { name: string; inputSchema: Json } };
  theme: 'light' | 'dark';
  platform: 'web';
  displayMode: 'inline';
  availableDisplayModes: Array<'inline'>;
  containerDimensions: { maxHeight: number; width?: number };
  locale?: string;
  timeZone?: string;
}

/** ext-apps `McpUiHostCapabilities`: only what the bridge implements. */
export interface HostCapabilities {
  serverTools?: Json;
  openLinks?: Json;
  logging?: Json;
  /** `ui/message`: the content blocks the host takes (text only: it goes into the composer). */
  message?: { text?: Json };
}

/** ext-apps `McpUiInitializeResult`: the official `App` requires all four fields. */
export interface InitializeResult {
  protocolVersion: string;
  hostInfo: { name: string; version: string };
  hostCapabilities: HostCapabilities;
  hostContext: HostContext;
}

/** An MCP `CallToolResult`, as the view receives it. */
export interface CallToolResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** JSON-RPC error codes the bridge answers with. */
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const SERVER_ERROR = -32000;
