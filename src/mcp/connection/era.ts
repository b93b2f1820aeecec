import type { Client, DiscoverResult, PriorDiscovery } from '@modelcontextprotocol/client';

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
