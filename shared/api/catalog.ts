import type { Implementation, Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { z } from 'zod';
import { mcpObject, ServerId } from './common';

/** What the MCP servers offer, and what a conversation knows about each (`GET /v1/servers`, `GET …/catalog`). */

export const McpTool = mcpObject<Tool>('Tool', { name: z.string(), inputSchema: z.record(z.string(), z.unknown()) });
export const McpResource = mcpObject<Resource>('Resource', { uri: z.string(), name: z.string() });
export const McpResourceTemplate = mcpObject<ResourceTemplateType>('ResourceTemplate', {
  uriTemplate: z.string(),
  name: z.string(),
});
export const McpPrompt = mcpObject<Prompt>('Prompt', { name: z.string() });
export const McpImplementation = mcpObject<Implementation>('Implementation', { name: z.string(), version: z.string() });
/** A skill as `skills/list` gives it (MCP Skills extension, SEP-2640): its SKILL.md URI, frontmatter, and files with digests (or `"dynamic"`). */
export const McpSkill = mcpObject<Skill>('Skill', {
  uri: z.string(),
  frontmatter: z.looseObject({ name: z.string(), description: z.string() }),
  resources: z.union([
    z.literal('dynamic'),
    z.array(z.object({ uri: z.string(), digest: z.string(), size: z.number() })),
  ]),
});

/**
 * A server's capabilities as we keep them: the MCP `ServerCapabilities`
 * with its open-ended members (`experimental`, `extensions`) as plain
 * records — the SDK's recursive JSON types are more than Durable Object RPC
 * types can map.
 */
export const ServerCapabilities = z
  .looseObject({
    tools: z.object({ listChanged: z.boolean().optional() }).optional(),
    prompts: z.object({ listChanged: z.boolean().optional() }).optional(),
    resources: z.object({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() }).optional(),
    completions: z.looseObject({}).optional(),
    logging: z.looseObject({}).optional(),
    experimental: z.record(z.string(), z.unknown()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'ServerCapabilities', description: 'What the server announced (MCP `ServerCapabilities`).' });
export type ServerCapabilities = z.infer<typeof ServerCapabilities>;

/** Why the end user must connect (again) to an OAuth server, or what more access it asked for. */
export const AuthRequiredReason = z.enum(['not_connected', 'expired', 'insufficient_scope']);
export type AuthRequiredReason = z.infer<typeof AuthRequiredReason>;

export const Authorization = z
  .object({ reason: AuthRequiredReason, scope: z.string().optional() })
  .meta({ description: '`insufficient_scope`: usable, but a tool asked for more access (`scope`).' });

const ConnectUrl = z
  .url()
  .meta({ description: "This caller's link to connect their account: single use, 10 minutes." });

export const CatalogKind = z.enum(['tools', 'resources', 'resourceTemplates', 'prompts', 'skills']);
export type CatalogKind = z.infer<typeof CatalogKind>;

/** A server's cache hint (2026-07-28 results carry one; 2025 results never do). */
export const CacheHint = z
  .object({
    ttlMs: z.number().meta({ description: 'How long the result may be considered fresh; 0 = stale at once.' }),
    cacheScope: z
      .enum(['public', 'private'])
      .meta({ description: '`private`: only within the same authorization context (here: the same end user).' }),
  })
  .meta({ id: 'CacheHint' });
export type CacheHint = z.infer<typeof CacheHint>;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A definition that differs from the one the tenant approved (docs/SECURITY.md, "Auto-approval and changed tools"). */
export const DefinitionChange = z
  .object({
    kind: z.enum(['tool', 'instructions']),
    name: z.string().optional().meta({ description: 'The tool, as the server names it (kind `tool`).' }),
    approved: Sha256.optional().meta({
      description:
        'SHA-256 of the approved definition: pinned when the tenant first listed it, re-confirmed by the operator, or named in `autoApprove`. Absent: it could not be checked yet.',
    }),
    current: Sha256.meta({
      description: 'SHA-256 of the definition the server lists now: what a re-confirmation approves.',
    }),
  })
  .meta({ id: 'DefinitionChange' });
export type DefinitionChange = z.infer<typeof DefinitionChange>;

/**
 * What the service accepted from a server that bends the spec, and how it read it (docs/MCP-CLIENT.md "Lenient with
 * servers"); or a definition that changed since it was approved (`change`).
 */
export const ServerWarning = z
  .object({
    method: z.string().meta({
      description: 'The MCP method whose results were mended (or that brought the change).',
      example: 'tools/list',
    }),
    message: z
      .string()
      .meta({ example: 'the result carries no cache hints (ttlMs, cacheScope): read as ttl 0, private' }),
    change: DefinitionChange.optional(),
  })
  .meta({ id: 'ServerWarning' });
export type ServerWarning = z.infer<typeof ServerWarning>;

const Warnings = z.array(ServerWarning).optional().meta({
  description:
    'What was mended in this server’s latest results, tools renamed for the model, and definitions that changed since they were approved (absent: nothing). Its lists and reads still work.',
});

/** The approved definitions of a server's listed tools and of its instructions, as SHA-256 (tools/… → digest). */
export const ApprovedDefinitions = z
  .object({
    tools: z.record(z.string(), Sha256),
    instructions: Sha256.optional(),
  })
  .meta({
    id: 'ApprovedDefinitions',
    description:
      'Pinned per tenant and server when first listed, or re-confirmed by the operator: `autoApprove` by name and `trustAnnotations` apply to these definitions only.',
  });

/** What a conversation knows about one server (persisted, so it survives restarts). */
export const ServerState = z
  .object({
    id: ServerId,
    status: z.enum(['connected', 'error', 'not_connected', 'auth_required']),
    error: z
      .string()
      .optional()
      .meta({ description: 'Why the last connect or refresh failed (no credentials in it).' }),
    authorization: Authorization.optional(),
    serverInfo: McpImplementation.optional(),
    protocolVersion: z
      .string()
      .optional()
      .meta({ description: 'The protocol revision spoken with this server.', example: '2026-07-28' }),
    capabilities: ServerCapabilities.optional(),
    instructions: z.string().optional(),
    connectedAt: z.number().optional().meta({ description: 'When the current connection was made (ms since epoch).' }),
    fetchedAt: z
      .partialRecord(CatalogKind, z.number())
      .meta({ description: 'When each catalog was last fetched (ms since epoch).' }),
    cacheHints: z.partialRecord(CatalogKind, CacheHint).optional(),
    warnings: Warnings,
    definitions: ApprovedDefinitions.optional(),
    tools: z.array(McpTool),
    resources: z.array(McpResource),
    resourceTemplates: z.array(McpResourceTemplate),
    prompts: z.array(McpPrompt),
    skills: z.array(McpSkill).meta({
      description: 'Its skills (MCP Skills extension), those the operator allows; empty when it serves none.',
    }),
    documentTexts: z
      .record(z.string(), z.object({ chars: z.number(), bytes: z.number() }))
      .optional()
      .meta({
        description:
          'Documents of this server read in this conversation (URI → characters of their converted text, and the bytes they were converted from): the cost planner weighs such a document by its text while it is listed at those bytes.',
      }),
  })
  .meta({ id: 'ServerState', description: "One server in a conversation's catalog." });
// Interfaces (not aliases): named types stay shallow in the Durable Object stub's RPC types, which the MCP SDK's recursive JSON types otherwise overflow.
export interface ServerState extends z.infer<typeof ServerState> {}

/** What the cost planner decided for the conversation (src/prompt/cost-planner.ts), and why. */
export const ContextPlan = z
  .object({
    inlined: z.array(z.object({ server: ServerId, uri: z.string(), chars: z.number() })).meta({
      description: 'Resources in the prompt (its cached prefix), read through the cache every turn: current.',
    }),
    ttl: z.enum(['short', 'long']).meta({
      description:
        'How long the provider is asked to keep the prefix: `short` (Anthropic 5 min, OpenAI 30 min) or `long` (1 h / 12 h).',
    }),
    reason: z.string().meta({ description: 'The decision in one sentence, with the estimate.' }),
    estimate: z
      .object({
        turns: z.number(),
        chosenUsd: z.number(),
        inlineAllUsd: z.number(),
        onDemandUsd: z.number(),
      })
      .optional()
      .meta({
        description:
          'Dollars over `turns` turns: this plan, every resource inlined, none. Absent without a price card.',
      }),
  })
  .meta({ id: 'ContextPlan' });
export interface ContextPlan extends z.infer<typeof ContextPlan> {}

/** `GET /v1/conversations/:id/catalog`. */
export const Catalog = z
  .object({
    servers: z.array(z.intersection(ServerState, z.object({ connectUrl: ConnectUrl.optional() }))),
    plan: ContextPlan.optional().meta({
      description: 'What the cost planner puts in the prompt for this conversation’s model, and why.',
    }),
  })
  .meta({
    id: 'Catalog',
    description: 'Every server of the conversation: status, capabilities and each catalog (with when it was fetched).',
  });
export interface Catalog extends z.infer<typeof Catalog> {}

/** One configured server as `GET /v1/servers` reports it: live status, never its headers. */
export const ServerProbe = z
  .object({
    id: ServerId,
    url: z
      .string()
      .optional()
      .meta({ description: 'Absent for browser tokens: where the servers live is the tenant’s business.' }),
    transport: z.enum(['auto', 'streamable-http', 'sse']),
    auth: z.enum(['none', 'oauth', 'client_credentials']),
    status: z.enum(['connected', 'error', 'auth_required']),
    authorization: Authorization.optional(),
    connectUrl: ConnectUrl.optional(),
    error: z.string().optional(),
    serverInfo: McpImplementation.optional(),
    capabilities: ServerCapabilities.optional(),
    protocolVersion: z.string().optional(),
    warnings: Warnings,
    checkedAt: z.string().meta({ description: 'When this status was observed (ISO 8601; reused for 30 s).' }),
  })
  .meta({ id: 'ServerProbe' });
export type ServerProbe = z.infer<typeof ServerProbe>;

export const ServerList = z.object({ servers: z.array(ServerProbe) }).meta({ id: 'ServerList' });
