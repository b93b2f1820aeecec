import type { ToolSet } from 'ai';
import { relevanceOf, type ToolEntry } from '../tools/tool-search';
import { terms } from '../context/relevance';
import type { Offer } from '../context/system-prompt';

/** The synthetic tools, each offered only when the catalog gives it something to do (system-prompt.ts decides). */
const SYNTHETIC = ['read_resource', 'search_resource', 'list_resources', 'list_resource_templates', 'invoke_prompt', 'search_tools'] as const;

/**
 * MCP tool definitions past `budget` (estimated tokens, re-sent at every
 * step): the ones most relevant to the conversation's recent text are
 * offered, in catalog order; `search_tools` finds the rest. Under budget,
 * all of them — the same list every step and turn while nothing changes.
 */
export function chooseMcpTools(entries: ToolEntry[], recentText: string, budget: number): { offered: Set<string>; hidden: number } {
  if (entries.reduce((sum, e) => sum + e.cost, 0) <= budget) return { offered: new Set(entries.map((e) => e.name)), hidden: 0 };
  const query = terms(recentText);
  const ranked = entries
    .map((entry, order) => ({ entry, order, relevance: relevanceOf(query, entry) }))
    .sort((a, b) => b.relevance - a.relevance || a.order - b.order);
  const offered = new Set<string>();
  let used = 0;
  for (const { entry } of ranked) {
    if (used + entry.cost > budget) continue;
    offered.add(entry.name);
    used += entry.cost;
  }
  return { offered, hidden: entries.length - offered.size };
}

/** The names of the tools active in a step: offered synthetic tools, chosen or found MCP tools, and every other tool (the client's). */
export function activeTools(tools: ToolSet, offer: Offer, mcp: { entries: ToolEntry[]; offered: Set<string>; found: Set<string> }): string[] {
  const isMcp = new Set(mcp.entries.map((e) => e.name));
  return Object.keys(tools).filter((name) => {
    if ((SYNTHETIC as readonly string[]).includes(name)) return offer[name as (typeof SYNTHETIC)[number]];
    if (isMcp.has(name)) return mcp.offered.has(name) || mcp.found.has(name);
    return true;
  });
}
