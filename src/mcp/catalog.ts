import type { Implementation, Prompt, Resource, ResourceTemplate, ServerCapabilities, Tool } from '@modelcontextprotocol/sdk/types.js';

export type CatalogKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';
export const CATALOG_KINDS: readonly CatalogKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];

export interface CatalogItems {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

export type ServerStatus = 'connected' | 'error' | 'not_connected';

/** What the conversation knows about one server; persisted, so it survives restarts. */
export interface ServerState extends CatalogItems {
  id: string;
  status: ServerStatus;
  /** Why the last connect or refresh failed (no credentials in it). */
  error?: string;
  serverInfo?: Implementation;
  protocolVersion?: string;
  capabilities?: ServerCapabilities;
  instructions?: string;
  /** When the current session was initialised (ms since epoch). */
  connectedAt?: number;
  /** When each catalog was last fetched from the server (ms since epoch). */
  fetchedAt: Partial<Record<CatalogKind, number>>;
}

export function emptyServerState(id: string): ServerState {
  return { id, status: 'not_connected', tools: [], resources: [], resourceTemplates: [], prompts: [], fetchedAt: {} };
}

/** Whether the server announced what a catalog needs; unannounced methods are never called. */
export function supports(capabilities: ServerCapabilities | undefined, kind: CatalogKind): boolean {
  if (!capabilities) return false;
  if (kind === 'tools') return Boolean(capabilities.tools);
  if (kind === 'prompts') return Boolean(capabilities.prompts);
  return Boolean(capabilities.resources);
}
