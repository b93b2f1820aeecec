import type { Client, DiscoverResult, PriorDiscovery, VersionNegotiationMode } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../config';
import { httpStatusOf, rpcErrorOf } from './errors';

/**
 * What we learnt about a server's protocol era, kept in DO storage so a
 * restarted conversation connects without probing again: the 2026
 * `server/discover` result (connecting with it costs no round trip), or a
 * dated "speaks only 2025" verdict, which is re-checked after
 * `ERA_VERDICT_MAX_AGE_MS` — servers get upgraded, and a stale legacy verdict
 * would otherwise succeed silently forever.
 */
export type EraVerdict = { kind: 'modern'; discover: DiscoverResult; at: number } | { kind: 'legacy'; at: number };

/** The SDK's `connect({prior})` input for a stored verdict, if it may still be used. */
export function priorFrom(
  verdict: EraVerdict | undefined,
  now: number,
  legacyMaxAgeMs: number,
): PriorDiscovery | undefined {
  if (!verdict) return undefined;
  if (verdict.kind === 'modern') return { kind: 'modern', discover: verdict.discover };
  return now - verdict.at < legacyMaxAgeMs ? { kind: 'legacy' } : undefined;
}

/** The verdict a fresh connection supports. */
export function verdictOf(client: Client, now: number): EraVerdict | undefined {
  const era = client.getProtocolEra();
  if (era === 'legacy') return { kind: 'legacy', at: now };
  const discover = client.getDiscoverResult();
  return era === 'modern' && discover ? { kind: 'modern', discover, at: now } : undefined;
}

/** The version negotiation a server's configured `protocol` asks for. */
export function negotiationMode(protocol: McpServerConfig['protocol']): VersionNegotiationMode {
  if (protocol === '2025-11-25') return 'legacy';
  if (protocol === '2026-07-28') return { pin: '2026-07-28' };
  return 'auto';
}

/**
 * Fall back to the old HTTP+SSE transport only when the server answered but
 * refused Streamable HTTP (400, 404 or 405) without a JSON-RPC error in the
 * body — a JSON-RPC error means a Streamable HTTP server that said why (a
 * version it does not speak, say), and that reason must reach the user.
 */
export function refusesStreamableHttp(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status !== undefined && [400, 404, 405].includes(status) && rpcErrorOf(error) === undefined;
}

/**
 * A request refused in a way that says the stored era verdict is wrong: a
 * 2026 request to a server that wants `initialize` first (HTTP 400 without a
 * 2026 error code), or a 2025 request refused as an unsupported version.
 */
export function isWrongEra(error: unknown, client: Client): boolean {
  const status = httpStatusOf(error);
  if (status === undefined || ![400, 404, 405].includes(status)) return false;
  const code = rpcErrorOf(error)?.code;
  if (client.getProtocolEra() === 'legacy') return code === -32022;
  return code === undefined || code === -32000 || code === -32600;
}
