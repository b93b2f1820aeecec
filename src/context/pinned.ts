import type { McpServerConfig, Settings } from '../config';
import { ApiError } from '../errors';
import { logEvent } from '../observability/log';
import { isUsable, type ServerState } from '../mcp/catalog/catalog';
import { isTextMime } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { findSkill } from '../mcp/catalog/skills';
import type { SkillRef } from '../../shared/api/conversations';
import { viewResource } from './resource-view';
import { loadedSkill } from './skill-notes';
import { estimateTokens } from './tokens';

export interface PinnedContent {
  /** Rendered (wrapped) content per server, in pin order. */
  byServer: Map<string, string[]>;
  /** `server\u0000uri` of the small corpus's resources in the prompt: the catalog does not list them (pins stay listed). */
  inlined: Set<string>;
  /** Every text resource of the servers is in the prompt (a small corpus): nothing is left to read but templates and binaries. */
  wholeCorpus: boolean;
  /** Optional pins that could not be read: said in the stream, so nobody is misled. */
  notices: string[];
}

export interface PinOptions {
  configs: McpServerConfig[];
  settings: Pick<Settings, 'PINNED_TOKEN_BUDGET' | 'PIN_PRIORITY_THRESHOLD' | 'INLINE_CORPUS_CHARS'>;
  /** When the turn started (pins are read once per turn). */
  reuseSince: number;
  /** The skills the conversation pins (PUT …/skills/pinned), loaded after the resource pins. */
  skills?: SkillRef[] | undefined;
}

/**
 * The pinned resources of this turn (application-controlled context): the
 * URIs a server's config pins, plus those its annotations pin (audience
 * includes "assistant", priority ≥ PIN_PRIORITY_THRESHOLD). Read through the
 * cache, so a `resources/updated` refreshes them. Bounded by
 * PINNED_TOKEN_BUDGET: a pin past it stays in the catalog only (and the
 * reason is logged). A required pin that cannot be read fails the turn.
 * Pins and an inlined corpus are in every model call, so they are read with
 * the server connected (their notifications followed), even when the rest
 * of the turn is served from copies (ServerLink.available): a pin is
 * current after `resources/updated`, not only within its `ttlMs`.
 */
export async function readPinned(
  sessions: McpSessions,
  states: ServerState[],
  { configs, settings, reuseSince, skills = [] }: PinOptions,
): Promise<PinnedContent> {
  const byServer = new Map<string, string[]>();
  const inlined = new Set<string>();
  const pinnedKeys = new Set<string>();
  const notices: string[] = [];
  let used = 0;
  for (const state of states) {
    const config = configs.find((c) => c.id === state.id);
    const pins = new Map((config?.pin ?? []).map((p) => [p.uri, p.required]));
    for (const r of state.resources) {
      const audience = r.annotations?.audience ?? [];
      if (
        audience.includes('assistant') &&
        (r.annotations?.priority ?? 0) >= settings.PIN_PRIORITY_THRESHOLD &&
        !pins.has(r.uri)
      )
        pins.set(r.uri, false);
    }
    for (const [uri, required] of pins) {
      let text: string;
      try {
        if (!isUsable(state)) throw new Error(state.error ?? 'server unavailable');
        text = (
          await viewResource(
            sessions,
            { server: state.id, uri },
            { windowChars: Number.MAX_SAFE_INTEGER, images: false, maxImageBytes: 0, reuseSince },
          )
        ).model.text;
      } catch (error) {
        const cause = error instanceof Error ? error.message : String(error);
        if (required)
          throw new ApiError(
            502,
            'pinned_resource_unavailable',
            `Pinned resource ${uri} on server "${state.id}" could not be read: ${cause}`,
          );
        notices.push(`Pinned resource ${uri} on server "${state.id}" was skipped: ${cause}`);
        continue;
      }
      const cost = estimateTokens(text);
      if (used + cost > settings.PINNED_TOKEN_BUDGET) {
        // It stays in the catalog.
        logEvent('pin.skipped', { server: state.id, uri, tokens: cost, budget: settings.PINNED_TOKEN_BUDGET }, 'warn');
        continue;
      }
      used += cost;
      byServer.set(state.id, [...(byServer.get(state.id) ?? []), text]);
      pinnedKeys.add(key(state.id, uri));
    }
  }
  for (const ref of skills) {
    const pinned = await readPinnedSkill(sessions, states, ref, reuseSince);
    if ('notice' in pinned) {
      notices.push(pinned.notice);
      continue;
    }
    const cost = estimateTokens(pinned.text);
    if (used + cost > settings.PINNED_TOKEN_BUDGET) {
      // The user pinned it: they are told, not only the logs (it stays loadable with load_skill).
      notices.push(
        `Pinned skill "${ref.name}" of server "${ref.server}" (~${cost} tokens) does not fit the pinned budget (${settings.PINNED_TOKEN_BUDGET}); the model loads it when it needs it.`,
      );
      continue;
    }
    used += cost;
    byServer.set(ref.server, [...(byServer.get(ref.server) ?? []), pinned.text]);
  }
  const corpus = await readSmallCorpus(sessions, states, pinnedKeys, settings.INLINE_CORPUS_CHARS, reuseSince);
  for (const { server, uri, text } of corpus ?? []) {
    byServer.set(server, [...(byServer.get(server) ?? []), text]);
    inlined.add(key(server, uri));
  }
  return { byServer, inlined, wholeCorpus: corpus !== undefined, notices };
}

/**
 * A pinned skill's SKILL.md (verified as every read of a skill's file is:
 * ServerLink.read) and the list of its files; a notice when the server no
 * longer offers it or the read fails (a pin never fails a turn: the user
 * chose it, and is told).
 */
async function readPinnedSkill(
  sessions: McpSessions,
  states: ServerState[],
  ref: SkillRef,
  reuseSince: number,
): Promise<{ text: string } | { notice: string }> {
  const state = states.find((s) => s.id === ref.server);
  const found = state && isUsable(state) ? findSkill([state], ref.name) : undefined;
  if (!found)
    return {
      notice: `Pinned skill "${ref.name}" of server "${ref.server}" is not offered now${state && !isUsable(state) ? ' (the server is unavailable)' : ''}; it was skipped.`,
    };
  try {
    const view = await viewResource(
      sessions,
      { server: ref.server, uri: found.skill.uri },
      { windowChars: Number.MAX_SAFE_INTEGER, images: false, maxImageBytes: 0, reuseSince },
    );
    return { text: loadedSkill(ref.server, found.skill, view.model.text, true) };
  } catch (error) {
    return {
      notice: `Pinned skill "${ref.name}" of server "${ref.server}" was skipped: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

const key = (server: string, uri: string) => `${server}\u0000${uri}`;

/** More listed resources than this are never read to find out whether they are a small corpus. */
const MAX_CORPUS_RESOURCES = 40;

/**
 * Every text resource of the connected servers (not pinned already), rendered
 * whole, when together they fit `budget` characters; undefined when they do
 * not, or when a size is not listed (finding out would mean reading every
 * resource of every server at each turn), or when one cannot be read (the
 * catalog is the safe answer). Read through the cache, so always current.
 */
async function readSmallCorpus(
  sessions: McpSessions,
  states: ServerState[],
  pinned: Set<string>,
  budget: number,
  reuseSince: number,
) {
  if (budget <= 0) return undefined;
  const candidates = states
    .filter((s) => isUsable(s))
    // Binaries are never part of an inlined corpus: they stay described in the catalog.
    .flatMap((s) =>
      s.resources
        .filter((r) => !pinned.has(key(s.id, r.uri)) && isTextMime(r.mimeType))
        .map((r) => ({ server: s.id, uri: r.uri, size: r.size })),
    );
  if (!candidates.length || candidates.length > MAX_CORPUS_RESOURCES) return undefined;
  if (candidates.some((c) => c.size === undefined) || candidates.reduce((sum, c) => sum + c.size!, 0) > budget)
    return undefined;
  const texts = await Promise.all(
    candidates.map((c) =>
      viewResource(sessions, c, {
        windowChars: Number.MAX_SAFE_INTEGER,
        images: false,
        maxImageBytes: 0,
        reuseSince,
      }).then(
        (v) => v.model.text,
        () => undefined,
      ),
    ),
  );
  // Sizes are bytes and the server's word: the rendered text is what must fit.
  if (texts.some((t) => t === undefined) || texts.reduce((sum, t) => sum + t!.length, 0) > budget * 1.25)
    return undefined;
  return candidates.map((c, i) => ({ server: c.server, uri: c.uri, text: texts[i]! }));
}
