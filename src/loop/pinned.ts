import type { McpServerConfig, Settings } from '../config';
import { ApiError } from '../errors';
import type { ServerState } from '../mcp/catalog';
import type { McpSessions } from '../mcp/sessions';
import { viewResource } from '../tools/resource-view';
import { estimateTokens } from './system-prompt';

export interface PinnedContent {
  /** Rendered (wrapped) content per server, in pin order. */
  byServer: Map<string, string[]>;
  /** Optional pins that could not be read: said in the stream, so nobody is misled. */
  notices: string[];
}

/**
 * The pinned resources of this turn (application-controlled context): the
 * URIs a server's config pins, plus those its annotations pin (audience
 * includes "assistant", priority ≥ PIN_PRIORITY_THRESHOLD). Read through the
 * cache, so a `resources/updated` refreshes them. Bounded by
 * PINNED_TOKEN_BUDGET: a pin past it stays in the catalog only (and the
 * reason is logged). A required pin that cannot be read fails the turn.
 */
export async function readPinned(
  sessions: McpSessions,
  states: ServerState[],
  configs: McpServerConfig[],
  settings: Pick<Settings, 'PINNED_TOKEN_BUDGET' | 'PIN_PRIORITY_THRESHOLD'>,
  /** When the turn started (pins are read once per turn). */
  reuseSince: number,
): Promise<PinnedContent> {
  const byServer = new Map<string, string[]>();
  const notices: string[] = [];
  let used = 0;
  for (const state of states) {
    const config = configs.find((c) => c.id === state.id);
    const pins = new Map((config?.pin ?? []).map((p) => [p.uri, p.required]));
    for (const r of state.resources) {
      const audience = r.annotations?.audience ?? [];
      if (audience.includes('assistant') && (r.annotations?.priority ?? 0) >= settings.PIN_PRIORITY_THRESHOLD && !pins.has(r.uri)) pins.set(r.uri, false);
    }
    for (const [uri, required] of pins) {
      let text: string;
      try {
        if (state.status !== 'connected') throw new Error(state.error ?? 'server unavailable');
        text = (await viewResource(sessions, { server: state.id, uri }, { windowChars: Number.MAX_SAFE_INTEGER, images: false, maxImageBytes: 0, reuseSince })).model.text;
      } catch (error) {
        const cause = error instanceof Error ? error.message : String(error);
        if (required) throw new ApiError(502, 'pinned_resource_unavailable', `Pinned resource ${uri} on server "${state.id}" could not be read: ${cause}`);
        notices.push(`Pinned resource ${uri} on server "${state.id}" was skipped: ${cause}`);
        continue;
      }
      const cost = estimateTokens(text);
      if (used + cost > settings.PINNED_TOKEN_BUDGET) {
        console.warn(`pinned resource ${uri} on server "${state.id}" (~${cost} tokens) is over PINNED_TOKEN_BUDGET (${settings.PINNED_TOKEN_BUDGET}); it stays in the catalog`);
        continue;
      }
      used += cost;
      byServer.set(state.id, [...(byServer.get(state.id) ?? []), text]);
    }
  }
  return { byServer, notices };
}
