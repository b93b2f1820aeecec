import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { publicServerInfo, type McpServerConfig, type Settings } from '../config';
import { describeUpstreamError } from './errors';
import { McpSession } from './session';
import type { TransportEnv } from './transport';

export interface ServerProbe extends ReturnType<typeof publicServerInfo> {
  status: 'connected' | 'error';
  error?: string;
  serverInfo?: Implementation;
  capabilities?: ServerCapabilities;
  /** When this status was observed (results are reused for `maxAgeMs`). */
  checkedAt: string;
}

const recent = new Map<string, { at: number; probe: Promise<ServerProbe> }>();

/**
 * Live status of each configured server: `initialize`, then close the
 * session. Results are shared by the requests of one isolate for
 * `maxAgeMs`, so a busy status page does not hammer the servers.
 */
export function probeServers(servers: McpServerConfig[], env: TransportEnv, settings: Settings, maxAgeMs = 30_000): Promise<ServerProbe[]> {
  const now = Date.now();
  return Promise.all(
    servers.map((server) => {
      const key = JSON.stringify(server);
      const cached = recent.get(key);
      if (cached && now - cached.at < maxAgeMs) return cached.probe;
      const probe = probeServer(server, env, settings);
      recent.set(key, { at: now, probe });
      return probe;
    }),
  );
}

async function probeServer(server: McpServerConfig, env: TransportEnv, settings: Settings): Promise<ServerProbe> {
  const checkedAt = new Date().toISOString();
  const session = new McpSession(server, env, settings, { onNotification: () => {}, onStreamLost: () => {} });
  try {
    const client = await session.ensure();
    return {
      ...publicServerInfo(server),
      status: 'connected',
      serverInfo: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      checkedAt,
    };
  } catch (error) {
    return { ...publicServerInfo(server), status: 'error', error: describeUpstreamError(error), checkedAt };
  } finally {
    await session.reset();
  }
}
