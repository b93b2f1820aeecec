import type { McpServerConfig, Settings } from '../config';
import { ApiError } from '../errors';
import { logEvent } from '../observability/log';
import { isUsable, type ServerState } from '../mcp/catalog/catalog';
import { isTextMime } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { findSkill } from '../mcp/extensions';
import type { SkillRef } from '../../shared/api/conversations';
import { viewResource } from './resource-view';
import { loadedSkill } from './skill-notes';
import { estimateTokens } from './tokens';

export interface PinnedContent {
  /** Rendered (wrapped) content per server, in pin order. */
  byServer: Map<string, string[]>;
  /** `server\u0000uri` of the resources the cost planner inlined: the catalog does not list them (pins stay listed). */
  inlined: Set<string>;
  /** Every text resource of the servers is in the prompt: nothing is left to read but templates and binaries. */
  wholeCorpus: boolean;
  /** Optional pins that could not be read: said in the stream, so nobody is misled. */
  notices: string[];
}

export interface PinOptions {
  configs: McpServerConfig[];
  settings: Pick<Settings, 'PINNED_TOKEN_BUDGET' | 'PIN_PRIORITY_THRESHOLD'>;
  /** The resources the cost planner puts in the prompt (prompt/cost-planner.ts), read through the cache. */
  inline?: ReadonlyArray<{ server: string; uri: string }> | undefined;
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
  { configs, settings, reuseSince, skills = [], inline = [] }: PinOptions,
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
  for (const { server, uri, text } of await readInlined(sessions, inline, pinnedKeys, reuseSince)) {
    byServer.set(server, [...(byServer.get(server) ?? []), text]);
    inlined.add(key(server, uri));
  }
  const texts = states
    .filter((s) => isUsable(s))
    .flatMap((s) => s.resources.filter((r) => isTextMime(r.mimeType)).map((r) => key(s.id, r.uri)));
  const wholeCorpus = texts.length > 0 && texts.every((k) => inlined.has(k) || pinnedKeys.has(k));
  return { byServer, inlined, wholeCorpus, notices };
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

/**
 * The planned resources (not pinned already), rendered whole, through the cache: always current. One that cannot be
 * read is left out, and keeps its catalog line (the model can still read it, and hear why it failed).
 */
async function readInlined(
  sessions: McpSessions,
  planned: ReadonlyArray<{ server: string; uri: string }>,
  pinned: Set<string>,
  reuseSince: number,
): Promise<Array<{ server: string; uri: string; text: string }>> {
  const wanted = planned.filter((r) => !pinned.has(key(r.server, r.uri)));
  const texts = await Promise.all(
    wanted.map((r) =>
      viewResource(sessions, r, {
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
  return wanted.flatMap((r, i) => (texts[i] === undefined ? [] : [{ ...r, text: texts[i]! }]));
}
