import { extensions } from './extensions';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { authRequiredIn } from '../auth/grant';
import { publicServerInfo, type McpServerConfig, type Settings } from '../config';
import { CATALOG_KINDS, supports } from './catalog/catalog';
import { describeUpstreamError, isMethodNotFound } from './connection/errors';
import { McpConnection } from './connection/connection';
import { firstPage, LIST_METHOD } from './catalog/list-all';
import type { TransportEnv } from './connection/transport';

import type { ServerProbe } from '../../shared/api/catalog';

export type { ServerProbe };

const recent = new Map<string, { at: number; probe: Promise<ServerProbe> }>();

/**
 * Live status of each configured server: `server/discover` (2026) or
 * `initialize` (2025), the first page of each list it announces (so what a
 * list needed mended, or a list that fails, shows as a warning), then the
 * session is ended. Results are shared by the requests of one isolate for
 * `maxAgeMs`, so a busy status page does not hammer the servers.
 */
export function probeServers(
  servers: McpServerConfig[],
  env: TransportEnv,
  settings: Settings,
  /** The token source of each server with `auth` (the caller's own, so results are kept per caller). */
  authFor: (server: McpServerConfig) => { key: string; auth: AuthProvider } | undefined = () => undefined,
  maxAgeMs = 30_000,
): Promise<ServerProbe[]> {
  const now = Date.now();
  return Promise.all(
    servers.map((server) => {
      const auth = authFor(server);
      const key = `${JSON.stringify(server)}\u0000${auth?.key ?? ''}`;
      const cached = recent.get(key);
      if (cached && now - cached.at < maxAgeMs) return cached.probe;
      const probe = probeServer(server, env, settings, auth?.auth);
      // A caller who is asked to connect is asked again next time (they may have connected meanwhile).
      void probe.then(
        (result) => result.status === 'auth_required' && recent.get(key)?.probe === probe && recent.delete(key),
      );
      recent.set(key, { at: now, probe });
      return probe;
    }),
  );
}

async function probeServer(
  server: McpServerConfig,
  env: TransportEnv,
  settings: Settings,
  auth: AuthProvider | undefined,
): Promise<ServerProbe> {
  const checkedAt = new Date().toISOString();
  // No stored verdict here (no conversation): the probe asks the server.
  const mended = new Map<string, string[]>();
  const connection = new McpConnection({
    config: server,
    env,
    settings,
    extensions: extensions.forConnection(server),
    events: {
      onNotification: () => {},
      onStreamLost: () => {},
      onMended: ({ method, warnings }) => void mended.set(method, warnings),
    },
    verdicts: { prior: () => undefined, save: () => {} },
    auth,
  });
  try {
    const client = await connection.ensure();
    const serverInfo = client.getServerVersion();
    const protocolVersion = client.getNegotiatedProtocolVersion();
    const capabilities = client.getServerCapabilities() ?? {};
    const failed = await Promise.all(
      CATALOG_KINDS.filter((kind) => supports(capabilities, kind)).map((kind) =>
        connection
          .call((c, options) => firstPage(c, kind, options), { method: LIST_METHOD[kind] })
          .then(
            () => undefined,
            // `resources` implies templates, which many servers never implement: nothing to list is no failure.
            (error: unknown) =>
              isMethodNotFound(error)
                ? undefined
                : { method: LIST_METHOD[kind], message: `failed: ${describeUpstreamError(error)}` },
          ),
      ),
    );
    const warnings = [
      ...[...mended].flatMap(([method, messages]) => messages.map((message) => ({ method, message }))),
      ...failed.filter((w) => w !== undefined),
    ];
    return {
      ...publicServerInfo(server),
      status: 'connected',
      ...(serverInfo ? { serverInfo } : {}),
      capabilities,
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(warnings.length ? { warnings } : {}),
      checkedAt,
    };
  } catch (error) {
    const authRequired = authRequiredIn(error);
    if (authRequired)
      return {
        ...publicServerInfo(server),
        status: 'auth_required',
        error: authRequired.message,
        authorization: { reason: authRequired.reason, ...(authRequired.scope ? { scope: authRequired.scope } : {}) },
        checkedAt,
      };
    return { ...publicServerInfo(server), status: 'error', error: describeUpstreamError(error), checkedAt };
  } finally {
    await connection.reset();
  }
}
