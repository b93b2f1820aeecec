import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import { ApiError } from '../../../errors';
import type { ServerState } from '../../../../shared/api/catalog';

export type { Skill } from '@modelcontextprotocol/client/ext/skills';

/** One file of a skill (MCP Skills extension, SEP-2640) as its list entry gives it. */
export interface SkillFileRef {
  server: string;
  skill: Skill;
  /** The file is the skill's own SKILL.md (its frontmatter must equal the entry's). */
  manifest: boolean;
  /** Its listed digest and size; undefined for a `"dynamic"` skill (content generated: nothing to verify). */
  listed?: { uri: string; digest: string; size: number } | undefined;
}

/** The directory a skill's files live under: its SKILL.md URI without `/SKILL.md`. */
export const skillRoot = (skill: Pick<Skill, 'uri'>) => skill.uri.replace(/\/SKILL\.md$/i, '');

/** A skill's name (its frontmatter's; the extension requires it to be its directory's last segment). */
export const skillName = (skill: Skill) => skill.frontmatter.name;

/** Bytes of every listed file of a skill (undefined for a `"dynamic"` one). */
export function skillBytes(skill: Skill): number | undefined {
  return skill.resources === 'dynamic' ? undefined : skill.resources.reduce((sum, file) => sum + file.size, 0);
}

/** URIs compare as the extension says: percent-encoding normalised (either side may encode a name its own way). */
function canonical(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}

/**
 * Which skill of `state` a URI is a file of, if any: its SKILL.md, a listed
 * file, or (for a listed skill) a file under its directory that its entry
 * does not list — `listed` undefined and not `dynamic`, which the caller
 * refuses (reading an unlisted file of a skill is a verification failure).
 */
export function skillFileOf(
  state: Pick<ServerState, 'id' | 'skills'>,
  uri: string,
): (SkillFileRef & { unlisted: boolean }) | undefined {
  const wanted = canonical(uri);
  for (const skill of state.skills ?? []) {
    const manifest = canonical(skill.uri) === wanted;
    if (!manifest && !wanted.startsWith(`${canonical(skillRoot(skill))}/`)) continue;
    if (skill.resources === 'dynamic') return { server: state.id, skill, manifest, unlisted: false };
    const listed = skill.resources.find((file) => canonical(file.uri) === wanted);
    return { server: state.id, skill, manifest, listed, unlisted: listed === undefined };
  }
  return undefined;
}

/** A skill of the catalogs by server (optional when one server has it) and name. */
export function findSkill(
  states: Array<Pick<ServerState, 'id' | 'skills'>>,
  name: string,
  server?: string,
): { server: string; skill: Skill } | undefined {
  for (const state of states) {
    if (server !== undefined && state.id !== server) continue;
    const skill = (state.skills ?? []).find((s) => skillName(s) === name);
    if (skill) return { server: state.id, skill };
  }
  return undefined;
}

/** Each of `refs` is a skill the catalogs offer (an operator's `skills` setting applied); else 404 `skill_not_found`, saying what there is. */
export function requireSkills(
  states: Array<Pick<ServerState, 'id' | 'skills'>>,
  refs: Array<{ server: string; name: string }>,
): void {
  for (const ref of refs) {
    if (findSkill(states, ref.name, ref.server)) continue;
    const offered = states.find((s) => s.id === ref.server)?.skills?.map(skillName) ?? [];
    throw new ApiError(
      404,
      'skill_not_found',
      `MCP server "${ref.server}" offers no skill "${ref.name}"${offered.length ? ` (it offers: ${offered.slice(0, 20).join(', ')}${offered.length > 20 ? ', …' : ''})` : ''}`,
    );
  }
}
