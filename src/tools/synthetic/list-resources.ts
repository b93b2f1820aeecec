import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { resourceLine } from '../../context/catalog-lines';
import { score, terms } from '../../context/relevance';
import { pick } from './context';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    server: z.string().optional(),
    query: z.string().optional().describe('Words to look for in titles, URIs and descriptions'),
    cursor: z.string().optional().describe('From the previous page'),
  }),
);

const PAGE = 50;

/** The resources the catalog does not show (it is pruned past its budget): all, or the matches of a query, a page at a time. */
export const listResources: SyntheticTool = {
  name: 'list_resources',
  group: 'discover',
  offeredWhen: (facts) => facts.resources > facts.resourcesShown,
  sentence: () => 'list_resources (with a query) finds resources the catalog does not show.',
  create: (ctx) =>
    tool({
      description: 'List resources (all servers, or one), 50 at a time. With a query, the most relevant come first and only matches are listed.',
      inputSchema: INPUT,
      execute: async ({ server, query, cursor }) => {
        let entries = pick(ctx.states, server).flatMap((s) => s.resources.map((resource) => ({ server: s.id, resource })));
        if (query) {
          const wanted = terms(query);
          entries = entries
            .map((e) => ({
              ...e,
              relevance: score(wanted, {
                fields: [
                  [e.resource.title ?? e.resource.name, 3],
                  [e.resource.uri, 2],
                  [e.resource.description, 1],
                ],
              }),
            }))
            .filter((e) => e.relevance > 0)
            .sort((a, b) => b.relevance - a.relevance);
        }
        const start = cursor ? decodeCursor(cursor) : 0;
        const page = entries.slice(start, start + PAGE);
        const next = start + PAGE < entries.length ? encodeCursor(start + PAGE) : undefined;
        const lines = page.map((e) => `${resourceLine(e.resource)} [server ${e.server}]`);
        const summary = `${entries.length} resource(s)${query ? ` matching "${query}"` : ''}; showing ${start + 1}-${start + page.length}.`;
        return [
          entries.length ? summary : `No resources${query ? ` match "${query}"` : ''}.`,
          ...lines,
          next ? `More: call list_resources again with cursor "${next}".` : '',
        ]
          .filter(Boolean)
          .join('\n');
      },
    }),
};

const encodeCursor = (offset: number) => btoa(`o:${offset}`);

function decodeCursor(cursor: string): number {
  try {
    const match = /^o:(\d+)$/.exec(atob(cursor));
    if (match) return Number(match[1]);
  } catch {
    // fall through
  }
  throw new Error(`Invalid cursor "${cursor}": use the one the previous page gave`);
}
