import { StreamableHTTPClientTransport, type AuthProvider } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../config';
import { createTransport, type TransportEnv } from './transport';

/** `DELETE` of a 2025 session (so the server can free it): best effort, waiting at most 2 s. */
export async function endSession(transport: StreamableHTTPClientTransport): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    transport.terminateSession().catch(() => {}),
    new Promise((resolve) => (timer = setTimeout(resolve, 2_000))),
  ]);
  if (timer !== undefined) clearTimeout(timer);
}

/**
 * Ends a 2025 session by its id through a fresh transport carrying it (the
 * one that opened it is gone: its connect failed, or its instance was
 * evicted). Best effort, bounded like `endSession`.
 */
export async function endSessionById(
  config: McpServerConfig,
  env: TransportEnv,
  maxResponseBytes: number,
  {
    session,
    protocol,
    authProvider,
  }: { session: string; protocol?: string | undefined; authProvider?: AuthProvider | undefined },
): Promise<void> {
  const transport = createTransport(config, env, 'streamable-http', maxResponseBytes, {
    authProvider,
    sessionId: session,
  });
  if (!(transport instanceof StreamableHTTPClientTransport)) return;
  if (protocol) transport.setProtocolVersion(protocol);
  await transport.start();
  await endSession(transport);
  await transport.close().catch(() => {});
}
