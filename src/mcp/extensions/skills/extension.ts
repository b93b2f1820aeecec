import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/client/ext/skills';
import type { ServerState } from '../../../../shared/api/catalog';
import type { McpExtension } from '../registry';
import { skillReadGuard } from './read-guard';
import { skillFileOf } from './skills';

/** The template the SDK's skills extension registers for skill files. */
const SKILLS_TEMPLATE_NAME = 'io.modelcontextprotocol/skills';

/**
 * MCP Skills (SEP-2640): a server offers skills (SKILL.md and its files, served
 * as resources); the model finds them with list_skills and loads one, verified
 * as a whole (skill-integrity.ts), with load_skill.
 */
export const skillsExtension: McpExtension = {
  id: SKILLS_EXTENSION_ID,
  // Strict servers answer skills requests only to a client that declared it; not to a server whose skills the
  // operator turned off: it then never spends a request on them.
  clientCapability: (server) => (server.skills === 'off' ? undefined : {}),
  // A skills server serves its files as resources (SEP-2640 requires `resources` with the extension).
  catalogKinds: {
    skills: (capabilities) =>
      Boolean(capabilities.resources) && capabilities.extensions?.[SKILLS_EXTENSION_ID] !== undefined,
  },
  // A skills server says its skills changed as its resources do (SEP-2640 defines no notification of its own).
  listChanged: { 'notifications/resources/list_changed': ['skills'] },
  forModel: withoutSkillFiles,
  guardRead: skillReadGuard,
};

/**
 * A skill's files are not resources to the model: a server lists each
 * SKILL.md among its resources and serves them through a `skill://`
 * template, but a skill is loaded with load_skill (verified as a whole),
 * never read as a document, inlined as corpus or listed twice.
 */
function withoutSkillFiles(state: ServerState): ServerState {
  if (!state.skills?.length) return state;
  const resources = state.resources.filter((r) => !skillFileOf(state, r.uri));
  const resourceTemplates = state.resourceTemplates.filter((t) => t.name !== SKILLS_TEMPLATE_NAME);
  return resources.length === state.resources.length && resourceTemplates.length === state.resourceTemplates.length
    ? state
    : { ...state, resources, resourceTemplates };
}
