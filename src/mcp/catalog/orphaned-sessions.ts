import type { McpServerConfig, Settings } from '../../config';
import { logEvent } from '../../observability/log';
import { endSessionById } from '../connection/session-end';
import type { ServerStateStore } from './state-store';
import type { TransportEnv } from '../connection/transport';

/**
 * The 2025 sessions a conversation opened and never ended — its instance
 * was evicted (or redeployed) before its idle alarm could end them — are
 * ended now: a `DELETE` each, by id, so the server can free them. Run by an
 * instance that holds no sessions of its own (the idle alarm of a restarted
 * one); a connection ends its server's own record before it opens a new one
 * (McpConnection). Servers with `auth` are only forgotten here: no token is
 * at hand outside a connection, and their sessions expire on their side.
 */
export async function endOrphanedSessions(
  store: ServerStateStore,
  servers: readonly McpServerConfig[],
  env: TransportEnv,
  settings: Pick<Settings, 'MCP_MAX_RESPONSE_BYTES'>,
): Promise<number> {
  const orphans = store.openSessions();
  await Promise.all(
    orphans.map(async ({ server, session, protocol }) => {
      const config = servers.find((s) => s.id === server);
      if (config && config.auth.type === 'none') {
        await endSessionById(config, env, settings.MCP_MAX_RESPONSE_BYTES, { session, protocol }).catch(() => {});
      }
      store.sessionEnded(server, session);
    }),
  );
  if (orphans.length) logEvent('sessions.release', { outcome: 'orphans_ended', sessions: orphans.length });
  return orphans.length;
}
