import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { terms } from '../../context/relevance';
import { relevanceOf } from '../tool-entries';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(z.object({ query: z.string().min(1).describe('What the tool should do, in a few words') }));

/**
 * `search_tools`: when a conversation's servers offer more tool definitions
 * than fit MCP_TOOLS_TOKEN_BUDGET, the model is given the most relevant ones
 * (tool-offer.ts) and finds the rest here, the way list_resources finds
 * resources the catalog does not show. What it finds is offered from the
 * next step on.
 */
export const searchTools: SyntheticTool = {
  name: 'search_tools',
  group: 'tools',
  offeredWhen: (facts) => facts.hiddenTools > 0,
  sentence: () => 'Not every server tool is offered to you at once: search_tools finds the others by what they do.',
  create: (ctx) =>
    tool({
      description:
        'Find server tools that are not offered to you yet, by what they do. The tools found can be called from your next step.',
      inputSchema: INPUT,
      execute: async ({ query }) => {
        const wanted = terms(query);
        const found = (ctx.mcpTools?.entries ?? [])
          .map((entry) => ({ entry, relevance: relevanceOf(wanted, entry) }))
          .filter((f) => f.relevance > 0)
          .sort((a, b) => b.relevance - a.relevance)
          .slice(0, 8)
          .map((f) => f.entry);
        ctx.mcpTools?.found(found.map((entry) => entry.name));
        if (!found.length) return `No server tool matches "${query}".`;
        const lines = found.map(
          (entry) =>
            `${entry.name}: ${entry.title ?? ''}${entry.title && entry.description ? ' — ' : ''}${(entry.description ?? '').replace(/\s+/g, ' ').slice(0, 160)}`,
        );
        return [`${found.length} tool(s) matching "${query}", now available to call:`, ...lines].join('\n');
      },
    }),
};
