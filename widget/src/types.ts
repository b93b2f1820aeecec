// The shapes the widget reads from the HTTP API (see docs/API.md's
// table). Only the fields it uses; the service sends more.
import type { McpOndemandChatMessagePart, McpOndemandChatToolPart } from '../mcp-ondemand-chat';

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface PromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
}

export interface ServerCatalog {
  id: string;
  status: string;
  resources?: Resource[];
  resourceTemplates?: ResourceTemplate[];
  prompts?: Prompt[];
  capabilities?: { completions?: object };
  /** Why the server is not connected (its status is then not "connected"). */
  error?: string;
}

export interface Catalog {
  servers: ServerCatalog[];
}

/** A part of a UI message (AI SDK `UIMessage`), as far as the widget shows it: the element's public type (widget/mcp-ondemand-chat.d.ts). */
export type MessagePart = McpOndemandChatMessagePart;

/** A tool step, as the element's public declarations describe it. */
export type ToolPart = McpOndemandChatToolPart;

export interface Message {
  id: string;
  role: 'user' | 'assistant' | 'system';
  parts: MessagePart[];
  metadata?: { attachments?: Array<{ server: string; uri: string }>; prompt?: { server: string; name: string }; finishReason?: string; [key: string]: unknown };
}

export interface Snapshot {
  id: string;
  messages: Message[];
  pendingApprovals: Array<{ toolCallId: string }>;
}

export interface PromptPreview {
  description?: string;
  messages: Message[];
}

export interface CompleteRequest {
  server: string;
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context?: { arguments: Record<string, string> };
}

/** A resource chosen to go with the next message. */
export interface Attachment {
  server: string;
  uri: string;
  title: string;
  mimeType?: string;
  size?: number;
}

/** Why a server needs the person (a `data-auth-required` part): never connected, the grant ended, or more access is needed. */
export type AuthRequiredReason = 'not_connected' | 'expired' | 'insufficient_scope';

/** A `data-auth-required` part's data (transient: in the live stream only, never in the history). */
export interface AuthRequired {
  server: string;
  reason: AuthRequiredReason;
  scope?: string;
}

/** One of the person's connections to an OAuth server (`GET /v1/connections`). */
export interface Connection {
  server: string;
  auth: string;
  status: 'connected' | 'not_connected' | 'step_up_required';
  scope?: string;
  connectedAt?: string;
  expiresAt?: string;
}
