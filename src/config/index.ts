import { z } from 'zod';
import { ApiError } from '../errors';
import { DEFAULT_MCP_SERVERS, McpServersSchema, type McpServerConfig } from './servers';

export { publicServerInfo, type McpServerConfig } from './servers';

/** The service configuration, read from Worker vars and validated once per isolate. */
export interface AppConfig {
  mcpServers: McpServerConfig[];
}

const cache = new Map<string, AppConfig>();

/**
 * Parses the Worker's vars into an {@link AppConfig}. Results are memoised by
 * the raw text, so the per-request cost is one Map lookup; invalid config
 * throws an {@link ApiError} (500 `invalid_config`) naming the bad field.
 */
export function loadConfig(env: Pick<Env, 'MCP_SERVERS'>): AppConfig {
  const raw = env.MCP_SERVERS?.trim() || DEFAULT_MCP_SERVERS;
  const cached = cache.get(raw);
  if (cached) return cached;

  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ApiError(500, 'invalid_config', `MCP_SERVERS is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = McpServersSchema.safeParse(json);
  if (!parsed.success) {
    throw new ApiError(500, 'invalid_config', `MCP_SERVERS is invalid: ${formatIssues(parsed.error)}`);
  }
  const config: AppConfig = { mcpServers: parsed.data };
  cache.set(raw, config);
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
