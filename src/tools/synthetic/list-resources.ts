import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { resourceLine } from '../../prompt/catalog-lines';
import { fieldsOf } from '../../prompt/relevance';
import { pick } from './tool-host';
import { listingPage } from './paged-listing';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    server: z.string().optional(),
    query: z.string().optional().describe('Words to look for in titles, URIs and descriptions'),
    cursor: z.string().optional().describe('From the previous page'),
  }),
);

/** The resources the catalog does not show (it is pruned past its budget): all, or the matches of a query, a page at a time. */
export const listResources: SyntheticTool = {
  name: 'list_resources',
  group: 'discover',
  offeredWhen: (facts) => facts.resources > facts.resourcesShown,
  sentence: () => 'list_resources (with a query) finds resources the catalog does not show.',
  create: (host) =>
    tool({
      description:
        'List resources (all servers, or one), 50 at a time. With a query, the most relevant come first and only matches are listed.',
      inputSchema: INPUT,
      execute: async ({ server, query, cursor }) =>
        listingPage({
          entries: pick(host.states, server).flatMap((s) =>
            s.resources.map((resource) => ({ server: s.id, resource })),
          ),
          query,
          cursor,
          fields: ({ resource }) => fieldsOf.resource(resource),
          line: ({ server: id, resource }) =>
            `${resourceLine(resource, { documents: host.settings.DOCUMENT_CONVERTER !== 'off' })} [server ${id}]`,
          noun: 'resource',
          tool: 'list_resources',
        }),
    }),
};
