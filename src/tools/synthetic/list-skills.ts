import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { skillLine } from '../../prompt/catalog-lines';
import { fieldsOf } from '../../prompt/relevance';
import { skillBytes } from '../../mcp/extensions';
import { pick } from './tool-host';
import { listingPage } from './paged-listing';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    server: z.string().optional(),
    query: z.string().optional().describe('Words to look for in skill names and descriptions'),
    cursor: z.string().optional().describe('From the previous page'),
  }),
);

/** The skills the catalog does not show (it is pruned past its budget): all, or the matches of a query, a page at a time. */
export const listSkills: SyntheticTool = {
  name: 'list_skills',
  group: 'discover',
  offeredWhen: (facts) => facts.skills > facts.skillsShown,
  sentence: () => 'list_skills (with a query) finds skills the catalog does not show.',
  create: (host) =>
    tool({
      description:
        'List skills (all servers, or one), 50 at a time. With a query, the most relevant come first and only matches are listed.',
      inputSchema: INPUT,
      execute: async ({ server, query, cursor }) =>
        listingPage({
          entries: pick(host.states, server).flatMap((s) => (s.skills ?? []).map((skill) => ({ server: s.id, skill }))),
          query,
          cursor,
          fields: ({ skill }) => fieldsOf.skill(skill.frontmatter),
          line: ({ server: id, skill }) => {
            const bytes = skillBytes(skill);
            const files =
              bytes === undefined || skill.resources === 'dynamic'
                ? undefined
                : { count: skill.resources.length, bytes };
            return `${skillLine({ name: skill.frontmatter.name, description: skill.frontmatter.description, files })} [server ${id}]`;
          },
          noun: 'skill',
          tool: 'list_skills',
        }),
    }),
};
