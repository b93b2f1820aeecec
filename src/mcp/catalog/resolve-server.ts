import { UriTemplate } from '@modelcontextprotocol/client';
import { ApiError } from '../../errors';
import type { ServerState } from './catalog';

/**
 * The server a URI belongs to: the one whose catalog lists it, else whose
 * template matches it, else the only server with resources. A tool's
 * `resource_link` (`returnedBy`: the server whose tool returned it) decides only
 * when no other server lists or templates the URI — a server cannot take
 * over another's URIs by linking to them. Ambiguity is the caller's to
 * resolve (400 naming the candidates).
 */
export function resolveServer(uri: string, states: ServerState[], returnedBy: string | undefined): string {
  if (returnedBy) {
    const claimedElsewhere = states.some(
      (s) =>
        s.id !== returnedBy &&
        (s.resources.some((r) => r.uri === uri) ||
          s.resourceTemplates.some((t) => matchesTemplate(t.uriTemplate, uri))),
    );
    if (!claimedElsewhere) return returnedBy;
  }
  const listing = states.filter((s) => s.resources.some((r) => r.uri === uri)).map((s) => s.id);
  const candidates = listing.length
    ? listing
    : states.filter((s) => s.resourceTemplates.some((t) => matchesTemplate(t.uriTemplate, uri))).map((s) => s.id);
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length > 1) {
    throw new ApiError(
      400,
      'ambiguous_uri',
      `${uri} belongs to several servers (${candidates.join(', ')}); say which with "server"`,
    );
  }
  const withResources = states.filter((s) => s.capabilities?.resources).map((s) => s.id);
  if (withResources.length === 1) return withResources[0]!;
  throw new ApiError(
    404,
    'resource_not_found',
    `No server lists or templates ${uri}; say which server with "server" (one of: ${withResources.join(', ') || 'none'})`,
  );
}

function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}
