import { env } from 'cloudflare:workers';
import { InvalidationLog } from '../../src/cache/invalidation-log';
import { ResourceCache } from '../../src/cache/resource-cache';
import { loadConfig, type McpServerConfig, type Settings } from '../../src/config';
import { McpSessions } from '../../src/mcp/sessions';
import { ServerStateStore } from '../../src/mcp/state-store';

/**
 * MCP sessions built by hand inside a Durable Object (through
 * `runInDurableObject`), for tests and benchmarks that need servers or
 * settings the Worker's config does not have (or a KV namespace that fails on purpose).
 */
export function buildSessions(storage: DurableObjectStorage, servers: McpServerConfig[], overrides: Partial<Settings> = {}, scope = 'test', kv: KVNamespace = env.RESOURCE_CACHE) {
  const settings = { ...loadConfig(env).settings, ...overrides };
  const cache = new ResourceCache(kv, new InvalidationLog(storage.sql, settings.KV_MAX_AGE_MS), settings);
  const sessions = new McpSessions({
    servers,
    env: env as unknown as Env & Record<string, unknown>,
    settings,
    store: new ServerStateStore(storage.sql),
    cache,
    userScope: `${scope}:user`,
    sharedScope: `${scope}:shared`,
  });
  return { sessions, cache, settings };
}
