import { tool, zodSchema, type Tool } from 'ai';
import { z } from 'zod';
import { score, terms } from '../context/relevance';

/** An MCP tool as the relevance ranking and `search_tools` see it. */
export interface ToolEntry {
  /** The model's name for it (`<server>__<tool>`). */
  name: string;
  server: string;
  title?: string | undefined;
  description?: string | undefined;
  /** Estimated tokens of its definition (name, description, input schema) in a model request. */
  cost: number;
}

/** Converted to JSON Schema once per isolate (see synthetic.ts). */
const SEARCH_TOOLS_INPUT = zodSchema(z.object({ query: z.string().min(1).describe('What the tool should do, in a few words') }));

export const relevanceOf = (query: string[], entry: ToolEntry) =>
  score(query, {
    fields: [
      [entry.name.replace(/_/g, ' '), 3],
      [entry.title, 3],
      [entry.description, 1],
    ],
  });

/**
 * `search_tools`: when a conversation's servers offer more tool definitions
 * than fit MCP_TOOLS_TOKEN_BUDGET, the model is given the most relevant ones
 * and finds the rest here, the way list_resources finds resources the catalog
 * does not show. The tools it finds are offered from the next step on
 * (`activate`).
 */
export function toolSearch(entries: ToolEntry[], activate: (names: string[]) => void): Tool {
  return tool({
    description: 'Find server tools that are not offered to you yet, by what they do. The tools found can be called from your next step.',
    inputSchema: SEARCH_TOOLS_INPUT,
    execute: async ({ query }) => {
      const wanted = terms(query);
      const found = entries
        .map((entry) => ({ entry, relevance: relevanceOf(wanted, entry) }))
        .filter((f) => f.relevance > 0)
        .sort((a, b) => b.relevance - a.relevance)
        .slice(0, 8)
        .map((f) => f.entry);
      activate(found.map((entry) => entry.name));
      if (!found.length) return `No server tool matches "${query}".`;
      const lines = found.map(
        (entry) =>
          `${entry.name}: ${entry.title ?? ''}${entry.title && entry.description ? ' — ' : ''}${(entry.description ?? '').replace(/\s+/g, ' ').slice(0, 160)}`,
      );
      return [`${found.length} tool(s) matching "${query}", now available to call:`, ...lines].join('\n');
    },
  });
}
