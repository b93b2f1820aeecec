import { z } from 'zod';
import { ApiError } from '../errors';
import { DEFAULT_MCP_SERVERS, McpServersSchema, type McpServerConfig } from './servers';
import { SETTING_NAMES, SettingsSchema, type Settings } from './settings';

export { publicServerInfo, type McpServerConfig } from './servers';
export type { Settings } from './settings';

/** The service configuration, read from Worker vars and validated once per isolate. */
export interface AppConfig {
  mcpServers: McpServerConfig[];
  settings: Settings;
}

type ConfigEnv = { MCP_SERVERS?: string } & Partial<Record<keyof Settings, string>>;

const cache = new Map<string, AppConfig>();

/**
 * Parses the Worker's vars into an {@link AppConfig}. Results are memoised by
 * the raw text, so the per-request cost is a Map lookup; invalid config
 * throws an {@link ApiError} (500 `invalid_config`) naming the bad field.
 */
export function loadConfig(env: ConfigEnv): AppConfig {
  const rawServers = env.MCP_SERVERS?.trim() || DEFAULT_MCP_SERVERS;
  const rawSettings = Object.fromEntries(SETTING_NAMES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
  const cacheKey = `${rawServers}\n${JSON.stringify(rawSettings)}`;
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

  const config: AppConfig = { mcpServers: servers.data, settings: settings.data };
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
