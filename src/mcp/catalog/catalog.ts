import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { extensions } from '../extensions';
import type { CatalogKind, ServerCapabilities, ServerState } from '../../../shared/api/catalog';

export type { CatalogKind, ServerCapabilities, ServerState } from '../../../shared/api/catalog';
/** The kinds every MCP server may list: the core protocol's. */
const CORE_KINDS = ['tools', 'resources', 'resourceTemplates', 'prompts'] as const satisfies readonly CatalogKind[];
/** Every kind a catalog is listed by: the core ones, then those the registered extensions add (mcp/extensions/). */
export const CATALOG_KINDS: readonly CatalogKind[] = [...CORE_KINDS, ...extensions.catalogKinds()];

export interface CatalogItems {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  skills: Skill[];
}

/** `auth_required`: the end user has to connect their account (OAuth) before the server can be used. */
export type ServerStatus = ServerState['status'];

export function emptyServerState(id: string): ServerState {
  return {
    id,
    status: 'not_connected',
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
    skills: [],
    fetchedAt: {},
  };
}

/** Whether the server announced what a catalog needs; unannounced methods are never called. */
export function supports(capabilities: ServerCapabilities | undefined, kind: CatalogKind): boolean {
  if (!capabilities) return false;
  if (kind === 'tools') return Boolean(capabilities.tools);
  if (kind === 'prompts') return Boolean(capabilities.prompts);
  if (kind === 'resources' || kind === 'resourceTemplates') return Boolean(capabilities.resources);
  // A kind an extension adds (skills): the extension says what it needs (mcp/extensions/).
  return extensions.supports(capabilities, kind) ?? false;
}

/**
 * Whether a turn may use the server: connected, or `not_connected` with a
 * catalog the freshness contract serves (a turn served lazily connects on
 * the first call that needs the server: ServerLink.available).
 */
export function isUsable(state: Pick<ServerState, 'status'>): boolean {
  return state.status === 'connected' || state.status === 'not_connected';
}
