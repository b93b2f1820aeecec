import { extensions } from './extensions';
import type { AuthProvider } from '@modelcontextprotocol/client';
import { authRequiredIn } from '../auth/grant';
import { publicServerInfo, type McpServerConfig, type Settings } from '../config';
import { CATALOG_KINDS, supports } from './catalog/catalog';
import { describeUpstreamError, isMethodNotFound } from './connection/errors';
import { McpConnection } from './connection/connection';
import { firstPage, LIST_METHOD } from './catalog/list-all';
import type { TransportEnv } from './connection/transport';

import type { ServerProbe, ServerWarning } from '../../shared/api/catalog';
import type { Tool } from '@modelcontextprotocol/client';
import { errorFields, logEvent } from '../observability/log';
import { askPins, changeWarnings, type DefinitionPinsClient } from './catalog/definition-check';
import { renamedToolsWarning } from './catalog/tool-names';
import { instructionsDigest } from './catalog/tool-digest';

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
  /** The tenant and its pins of tool definitions (definition-pins.ts): a definition that changed since it was approved warns. */
  pins?: { tenant: string; client: DefinitionPinsClient },
  maxAgeMs = 30_000,
): Promise<ServerProbe[]> {
  const now = Date.now();
  return Promise.all(
    servers.map((server) => {
      const auth = authFor(server);
      // Per tenant too: each has its own approved definitions (the same server config may serve two tenants).
      const key = `${JSON.stringify(server)}\u0000${auth?.key ?? ''}\u0000${pins?.tenant ?? ''}`;
      const cached = recent.get(key);
      if (cached && now - cached.at < maxAgeMs) return cached.probe;
      const probe = probeServer(server, env, settings, auth?.auth, pins?.client);
      // A caller who is asked to connect is asked again next time (they may have connected meanwhile).
      void probe.then(
        (result) => result.status === 'auth_required' && recent.get(key)?.probe === probe && recent.delete(key),
      );
      recent.set(key, { at: now, probe });
      return probe;
    }),
  );
}

/** Forgets every probe result kept in this isolate: the next status is probed anew (the operator re-confirmed a definition). */
export function forgetProbes(): void {
  recent.clear();
}

async function probeServer(
  server: McpServerConfig,
  env: TransportEnv,
  settings: Settings,
  auth: AuthProvider | undefined,
  pins: DefinitionPinsClient | undefined,
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
    let tools: Tool[] = [];
    const failed = await Promise.all(
      CATALOG_KINDS.filter((kind) => supports(capabilities, kind)).map((kind) =>
        connection
          .call(
            // Tools whole (as a conversation lists them): their definitions are compared with the approved ones.
            (c, options) =>
              kind === 'tools'
                ? c.listTools(undefined, options).then((r) => void (tools = r.tools))
                : firstPage(c, kind, options),
            { method: LIST_METHOD[kind] },
          )
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
      ...renamedToolsWarning(server.id, tools, new Set()).map((message) => ({ method: LIST_METHOD.tools, message })),
      ...(await definitionWarnings(server, pins, { tools, instructions: client.getInstructions(), protocolVersion })),
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

/** What a probe's listing says of the definitions the tenant approved: a warning per change (none without the pins, or if they cannot be reached). */
async function definitionWarnings(
  server: McpServerConfig,
  pins: DefinitionPinsClient | undefined,
  listed: { tools: Tool[]; instructions: string | undefined; protocolVersion: string | undefined },
): Promise<ServerWarning[]> {
  if (!pins) return [];
  try {
    const at = { server: server.id, url: server.url, config: server };
    const definitions = await askPins(pins, at, listed.tools, listed.instructions);
    return changeWarnings(server, { ...listed, definitions }, await instructionsDigest(listed.instructions));
  } catch (error) {
    logEvent('catalog.refresh', { server: server.id, kind: 'definitions', ...errorFields(error) }, 'warn');
    return [];
  }
}
