import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/client';
import type { VaultAuth } from '../auth/vault-auth';
import type { ResourceCache } from '../cache/resource-cache';
import type { SharedCatalogs } from '../cache/shared-catalogs';
import type { McpServerConfig, Settings } from '../config';
import type { DocumentReading } from '../documents/document-converter';
import type { ServerState } from './catalog/catalog';
import type { DefinitionPinsClient } from './catalog/definition-check';
import type { ServerStateStore } from './catalog/state-store';
import type { TransportEnv } from './connection/transport';

/*
 * What a server link (server-link.ts) is given by its conversation's servers (sessions.ts): the contract, apart
 * from how a link keeps it.
 */

export interface ServerLinkOptions {
  config: McpServerConfig;
  env: TransportEnv;
  settings: Settings;
  store: ServerStateStore;
  cache: ResourceCache;
  /** The tenant's shared catalogs (KV); absent: every conversation lists for itself. */
  sharedCatalogs?: SharedCatalogs | undefined;
  /** Asks the user what a server wants to know (elicitation); absent: the capability is not declared. */
  elicit?: Elicit | undefined;
  /** The token source of a server with `auth` (src/auth/vault-auth.ts). */
  auth?: VaultAuth | undefined;
  /** Told when this server starts needing the user (to connect again, or to grant more access). */
  authRequired?: ((state: ServerState) => void) | undefined;
  /** Called before each new connection is opened (the conversation leases its place among the user's live ones); may refuse (429). */
  beforeConnect?: (() => Promise<void>) | undefined;
  /** The tenant's pins of tool definitions and instructions (definition-pins.ts); absent: this conversation pins what it first lists. */
  pins?: DefinitionPinsClient | undefined;
  /** How requests reach the server, if not as its URL says (a built-in server's entrypoint). */
  fetch?: typeof fetch | undefined;
  /** How documents this server serves become text (McpSessions.documents); absent: described as binaries. */
  documents?: DocumentReading | undefined;
}

/** A server's question to the user, answered (or declined, or cancelled) by them; `relatedTask`: a 2025 task's question. */
export type Elicit = (
  server: string,
  params: ElicitRequestFormParams,
  signal: AbortSignal | undefined,
  relatedTask?: string | undefined,
) => Promise<ElicitResult>;
