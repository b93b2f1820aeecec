import type { Implementation, Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { CacheHint } from '../cache/types';

export type CatalogKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';
export const CATALOG_KINDS: readonly CatalogKind[] = ['tools', 'resources', 'resourceTemplates', 'prompts'];

export interface CatalogItems {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/** `auth_required`: the end user has to connect their account (OAuth) before the server can be used. */
export type ServerStatus = 'connected' | 'error' | 'not_connected' | 'auth_required';

/**
 * A server's capabilities as we keep them: the SDK's `ServerCapabilities`
 * with its open-ended members (`experimental`, `extensions`: recursive JSON
 * types) kept as plain records — the recursive types are more than the
 * Durable Object RPC types can map.
 */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  completions?: object;
  logging?: object;
  experimental?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  [other: string]: unknown;
}

/** What the conversation knows about one server; persisted, so it survives restarts. */
export interface ServerState extends CatalogItems {
  id: string;
  status: ServerStatus;
  /** Why the last connect or refresh failed (no credentials in it). */
  error?: string;
  /** Why the user must connect (again) to this OAuth server, or what more access it asked for (`insufficient_scope`, still usable otherwise). */
  authorization?: { reason: 'not_connected' | 'expired' | 'insufficient_scope'; scope?: string };
  serverInfo?: Implementation;
  /** The protocol revision spoken with this server (`2026-07-28`, `2025-11-25`, …). */
  protocolVersion?: string;
  capabilities?: ServerCapabilities;
  instructions?: string;
  /** When the current connection was made (ms since epoch). */
  connectedAt?: number;
  /** When each catalog was last fetched from the server (ms since epoch). */
  fetchedAt: Partial<Record<CatalogKind, number>>;
  /** The server's cache hint on each catalog (2026 servers), which decides when it is listed again. */
  cacheHints?: Partial<Record<CatalogKind, CacheHint>>;
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
