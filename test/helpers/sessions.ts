import { env } from 'cloudflare:workers';
import type { z } from 'zod';
import { InvalidationLog } from '../../src/cache/invalidation-log';
import { ResourceCache } from '../../src/cache/resource-cache';
import { loadConfig, type Settings } from '../../src/config';
import { McpServerConfigSchema } from '../../src/config/servers';
import { McpSessions } from '../../src/mcp/sessions';
import { ServerStateStore } from '../../src/mcp/catalog/state-store';

/**
 * MCP sessions built by hand inside a Durable Object (through
 * `runInDurableObject`), for tests and benchmarks that need servers or
 * settings the Worker's config does not have (or a KV namespace that fails
 * on purpose). Server entries are written as in `MCP_SERVERS` (defaults applied).
 */
export function buildSessions(
  storage: DurableObjectStorage,
  servers: Array<z.input<typeof McpServerConfigSchema>>,
  overrides: Partial<Settings> = {},
  scope = 'test',
  kv: KVNamespace = env.RESOURCE_CACHE,
) {
  const settings = { ...loadConfig(env).settings, ...overrides };
  const cache = new ResourceCache(
    kv,
    new InvalidationLog(storage.sql, settings.CACHE_MAX_AGE_MS),
    { shared: `${scope}:shared`, user: `${scope}:user` },
    settings,
  );
  const sessions = new McpSessions({
    servers: servers.map((server) => McpServerConfigSchema.parse(server)),
    env,
    settings,
    store: new ServerStateStore(storage.sql),
    cache,
  });
  return { sessions, cache, settings };
}
