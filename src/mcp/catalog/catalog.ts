import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { SKILLS_EXTENSION_ID, type Skill } from '@modelcontextprotocol/client/ext/skills';
import type { CatalogKind, ServerCapabilities, ServerState } from '../../../shared/api/catalog';

export type { CatalogKind, ServerCapabilities, ServerState } from '../../../shared/api/catalog';
export const CATALOG_KINDS: readonly CatalogKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts', 'skills'];

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
  // A skills server serves its files as resources (SEP-2640 requires `resources` with the extension).
  if (kind === 'skills')
    return Boolean(capabilities.resources) && capabilities.extensions?.[SKILLS_EXTENSION_ID] !== undefined;
  return Boolean(capabilities.resources);
}

/**
 * Whether a turn may use the server: connected, or `not_connected` with a
 * catalog the freshness contract serves (a turn served lazily connects on
 * the first call that needs the server: ServerLink.available).
 */
export function isUsable(state: Pick<ServerState, 'status'>): boolean {
  return state.status === 'connected' || state.status === 'not_connected';
}
