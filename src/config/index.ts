import { z } from 'zod';
import { ApiError } from '../errors';
import { DEFAULT_MCP_SERVERS, McpServersSchema, type McpServerConfig } from './servers';
import { SETTING_NAMES, SettingsSchema, type Settings } from './settings';
import { TenantsSchema, type Tenant } from './tenants';

export { publicServerInfo, type McpServerConfig } from './servers';
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

type ConfigEnv = { MCP_SERVERS?: string; TENANTS?: string } & Partial<Record<keyof Settings, string>>;

const cache = new Map<string, AppConfig>();

/**
 * Parses the Worker's vars into an {@link AppConfig}. Results are memoised by
 * the raw text, so the per-request cost is a Map lookup; invalid config
 * throws an {@link ApiError} (500 `invalid_config`) naming the bad field.
 */
export function loadConfig(env: ConfigEnv): AppConfig {
  const rawServers = env.MCP_SERVERS?.trim() || DEFAULT_MCP_SERVERS;
  const rawSettings = Object.fromEntries(SETTING_NAMES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const rawTenants = env.TENANTS?.trim() ?? '';
  const cacheKey = `${rawServers}\n${JSON.stringify(rawSettings)}\n${rawTenants}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;

  let json: unknown;
  try {
    json = JSON.parse(rawServers);
  } catch (error) {
    throw new ApiError(500, 'invalid_config', `MCP_SERVERS is not valid JSON: ${(error as Error).message}`);
  }
  const servers = McpServersSchema.safeParse(json);
  if (!servers.success) throw new ApiError(500, 'invalid_config', `MCP_SERVERS is invalid: ${formatIssues(servers.error)}`);
  const settings = SettingsSchema.safeParse(rawSettings);
  if (!settings.success) throw new ApiError(500, 'invalid_config', `Invalid setting: ${formatIssues(settings.error)}`);

  let tenants: Tenant[] | null = null;
  if (rawTenants) {
    let tenantsJson: unknown;
    try {
      tenantsJson = JSON.parse(rawTenants);
    } catch (error) {
      throw new ApiError(500, 'invalid_config', `TENANTS is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = TenantsSchema.safeParse(tenantsJson);
    if (!parsed.success) throw new ApiError(500, 'invalid_config', `TENANTS is invalid: ${formatIssues(parsed.error)}`);
    tenants = parsed.data;
  }

  const config: AppConfig = { mcpServers: servers.data, settings: settings.data, tenants };
  cache.set(cacheKey, config);
  return config;
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

/** A tenant's MCP servers: its own list, or the service's. */
export function serversOf(config: AppConfig, tenantId: string): McpServerConfig[] {
  return config.tenants?.find((t) => t.id === tenantId)?.mcpServers ?? config.mcpServers;
}
