// The shapes the widget reads from the HTTP API: the service's own schemas
// (shared/api/, the source of the OpenAPI document), imported as types only —
// no schema code reaches the widget bundle. Messages are the element's public
// declarations (widget/mcp-ondemand-chat.d.ts, a standalone file embedders copy).
import type { ServerState } from '../../shared/api/catalog';
import type { Message as ApiMessage } from '../../shared/api/common';
import type { ConversationSnapshot, PromptPreview as ApiPromptPreview } from '../../shared/api/conversations';
import type { McpOndemandChatMessage, McpOndemandChatToolPart } from '../mcp-ondemand-chat';

export type { Catalog, AuthRequiredReason } from '../../shared/api/catalog';
export type { CompleteBody as CompleteRequest, CompleteResponse } from '../../shared/api/conversations';
export type { ConnectionStatus as Connection, AuthRequiredNotice as AuthRequired } from '../../shared/api/connections';

export type Resource = ServerState['resources'][number];
export type ResourceTemplate = ServerState['resourceTemplates'][number];
export type Prompt = ServerState['prompts'][number];
export type Skill = ServerState['skills'][number];

/** A message as the widget shows it: the element's public type (which every message the API sends is: checked below), with the API's metadata. */
export type Message = Omit<McpOndemandChatMessage, 'metadata'> & { metadata?: ApiMessage['metadata'] };

/** A tool step, as the element's public declarations describe it. */
export type ToolPart = McpOndemandChatToolPart;

/** A part of a message. */
export type MessagePart = Message['parts'][number];

export type Snapshot = Omit<ConversationSnapshot, 'messages'> & { messages: Message[] };
export type PromptPreview = Omit<ApiPromptPreview, 'messages'> & { messages: Message[] };

/** A resource chosen to go with the next message (with what the chip shows). */
export interface Attachment {
  server: string;
  uri: string;
  title: string;
  mimeType?: string;
  size?: number;
}

// The API's messages are the element's messages: a change to one that breaks the other fails `npm run typecheck`.
type Assignable<T, _U extends T> = true;
export type _ApiMessagesAreElementMessages = Assignable<McpOndemandChatMessage, ApiMessage>;
