import type { ToolSet } from 'ai';
import { relevanceOf, type ToolEntry } from '../tools/tool-entries';
import { terms } from '../context/relevance';
import { SYNTHETIC_TOOL_NAMES } from './synthetic';

/**
 * MCP tool definitions past `budget` (estimated tokens, re-sent at every
 * step): the ones most relevant to the conversation's recent text are
 * offered (a set: only membership matters); `search_tools` finds the rest. Under budget,
 * all of them — the same list every step and turn while nothing changes.
 */
export function chooseMcpTools(
  entries: ToolEntry[],
  recentText: string,
  budget: number,
): { offered: Set<string>; hidden: number } {
  if (entries.reduce((sum, e) => sum + e.cost, 0) <= budget)
    return { offered: new Set(entries.map((e) => e.name)), hidden: 0 };
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

/**
 * The names of the tools active in a step: the synthetic tools the system
 * prompt offered (each only when the catalog gives it something to do),
 * chosen or found MCP tools, and every other tool (the client's).
 */
export function activeTools(
  tools: ToolSet,
  offered: ReadonlySet<string>,
  mcp: { entries: ToolEntry[]; offered: Set<string>; found: Set<string> },
): string[] {
  const isMcp = new Set(mcp.entries.map((e) => e.name));
  return Object.keys(tools).filter((name) => {
    if (SYNTHETIC_TOOL_NAMES.has(name)) return offered.has(name);
    if (isMcp.has(name)) return mcp.offered.has(name) || mcp.found.has(name);
    return true;
  });
}
