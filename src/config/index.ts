import type { z } from 'zod';
import { ApiError } from '../errors';
import { DEFAULT_MCP_SERVERS, McpServersSchema, type McpServerConfig } from './servers';
import { settingNames, settingsSchema, type Settings } from './settings';
import { tenantsSchema, type Tenant } from './tenants';

export { allowsSkill, publicServerInfo, type McpServerConfig } from './servers';
export type { Settings } from './settings';
export type { Tenant } from './tenants';

/** The service configuration, read from Worker vars and validated once per isolate. */
export interface AppConfig {
  mcpServers: McpServerConfig[];
  settings: Settings;
  /**
   * The tenants, or null when `TENANTS` is not set: then the service runs as
   * one open tenant, "default", with no authentication (local development).
   */
  tenants: Tenant[] | null;
}

type ConfigEnv = {
  MCP_SERVERS?: string;
  TENANTS?: string;
  ALLOW_PRIVATE_MCP_URLS?: string;
  DEMO_MCP_ENABLED?: string;
  KV_MAX_AGE_MS?: string;
} & Partial<Record<keyof Settings, string>>;

/**
 * Whether this Worker serves its demo MCP server (`/demo/mcp`). It is one
 * shared, writable Durable Object that answers anyone: fine for local
 * development (no `TENANTS`), never on by accident in production — with
 * `TENANTS` set it is served only when `DEMO_MCP_ENABLED=true`.
 */
export function demoMcpEnabled(env: { TENANTS?: string; DEMO_MCP_ENABLED?: string }): boolean {
  return !env.TENANTS?.trim() || env.DEMO_MCP_ENABLED === 'true';
}

const cache = new Map<string, AppConfig>();
/** The same env object (a Durable Object's, the isolate's): no key to build at all. Env vars do not change under a running isolate. */
const byEnv = new WeakMap<object, AppConfig>();

/**
 * Parses the Worker's vars into an {@link AppConfig}. Results are memoised by
 * the env object, else by the raw text (building that key from every var
 * cost about half a millisecond, at some six calls a turn); invalid config
 * throws an {@link ApiError} (500 `invalid_config`) naming the bad field.
 */
export function loadConfig(env: ConfigEnv): AppConfig {
  const known = byEnv.get(env);
  if (known) return known;
  const config = parseConfig(env);
  byEnv.set(env, config);
  return config;
}

function parseConfig(env: ConfigEnv): AppConfig {
  const rawServers = env.MCP_SERVERS?.trim() || DEFAULT_MCP_SERVERS;
  const rawSettings = Object.fromEntries(settingNames().flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  // The older name of CACHE_MAX_AGE_MS, for deployments that still set it.
  if (!rawSettings.CACHE_MAX_AGE_MS && env.KV_MAX_AGE_MS) rawSettings.CACHE_MAX_AGE_MS = env.KV_MAX_AGE_MS;
  const rawTenants = env.TENANTS?.trim() ?? '';
  const cacheKey = `${rawServers}\n${JSON.stringify(rawSettings)}\n${rawTenants}\n${env.ALLOW_PRIVATE_MCP_URLS ?? ''}\n${env.DEMO_MCP_ENABLED ?? ''}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;

  const mcpServers = parseJsonVar('MCP_SERVERS', rawServers, McpServersSchema);
  const settings = settingsSchema().safeParse(rawSettings);
  if (!settings.success) throw new ApiError(500, 'invalid_config', `Invalid setting: ${formatIssues(settings.error)}`);
  const tenants: Tenant[] | null = rawTenants ? parseJsonVar('TENANTS', rawTenants, tenantsSchema()) : null;

  if (tenants && env.ALLOW_PRIVATE_MCP_URLS !== 'true') {
    for (const [where, list] of [
      ['MCP_SERVERS', mcpServers],
      ...tenants.map((t) => [`TENANTS ${t.id}`, t.mcpServers ?? []] as const),
    ] as const) {
      for (const server of list) {
        const problem = productionUrlProblem(server.url);
        if (problem) throw new ApiError(500, 'invalid_config', `${where}: server "${server.id}": ${problem}`);
      }
    }
  }

  if (tenants && !demoMcpEnabled(env)) {
    // The servers in use: a tenant's own list, or MCP_SERVERS for tenants without one.
    for (const tenant of tenants) {
      const [where, list] = tenant.mcpServers
        ? [`TENANTS ${tenant.id}`, tenant.mcpServers]
        : ['MCP_SERVERS', mcpServers];
      const self = list.find((server) => server.url.startsWith('/'));
      if (self) {
        throw new ApiError(
          500,
          'invalid_config',
          `${where}: server "${self.id}": url "${self.url}" is this Worker's demo MCP server, which is off when TENANTS is set: set DEMO_MCP_ENABLED=true to serve it (to anyone), or configure another server`,
        );
      }
    }
  }

  const config: AppConfig = { mcpServers, settings: settings.data, tenants };
  cache.set(cacheKey, config);
  return config;
}

/** A JSON Worker var validated by its schema; either failure is `500 invalid_config` naming the var and the field. */
function parseJsonVar<S extends z.ZodType>(name: string, raw: string, schema: S): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ApiError(500, 'invalid_config', `${name} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ApiError(500, 'invalid_config', `${name} is invalid: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

/** `[0].url: url must be …; [1].id: …` — short enough for an error message. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`)).join('');
      return `${path.replace(/^\./, '') || '(root)'}: ${issue.message}`;
    })
    .join('; ');
}

/** The origins a tenant's pages are served from (CORS, view documents, OAuth handovers); none for an unknown tenant. */
export function allowedOriginsOf(config: AppConfig, tenantId: string): readonly string[] {
  return config.tenants?.find((t) => t.id === tenantId)?.allowedOrigins ?? [];
}

/** A tenant's MCP servers: its own list, or the service's. */
export function serversOf(config: AppConfig, tenantId: string): McpServerConfig[] {
  return config.tenants?.find((t) => t.id === tenantId)?.mcpServers ?? config.mcpServers;
}

const PRIVATE_HOST =
  /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|\[::1?\]|\[f[cd][0-9a-f:]*\]|\[fe80:[0-9a-f:]*\])$/i;

/**
 * With tenants configured (production), an MCP server URL must be a path of
 * this Worker or https to a public host: no plain http, no loopback or
 * private addresses (set ALLOW_PRIVATE_MCP_URLS=true only in development
 * and tests). Returns what is wrong, or undefined.
 */
export function productionUrlProblem(url: string): string | undefined {
  if (url.startsWith('/')) return undefined;
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:') return `url must use https (got ${parsed.protocol})`;
  if (PRIVATE_HOST.test(parsed.hostname))
    return `url must not point at a private or loopback address (${parsed.hostname})`;
  return undefined;
}
