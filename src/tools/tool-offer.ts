import type { ModelMessage, ToolResultPart, ToolSet } from 'ai';
import { relevanceOf, type ToolEntry } from '../tools/tool-entries';
import { terms } from '../prompt/relevance';
import { SYNTHETIC_TOOL_NAMES } from './synthetic';

/**
 * How the MCP tools past MCP_TOOLS_TOKEN_BUDGET reach the model without the tools array changing (it is the first
 * segment of the provider's cached prefix: any change re-writes everything after it):
 * - `references` (Anthropic): every tool is declared, the hidden ones with `defer_loading`; `search_tools` answers
 *   with `tool_reference` blocks, which load them;
 * - `additional-tools` (OpenAI Responses): the hidden ones are left out of the request's tools
 *   (`omitFromRequestTools`); `search_tools`' result carries their definitions (`additional_tools`);
 * - `dispatcher` (every other model): the hidden ones are not offered; `search_tools` returns their definitions as
 *   text and `call_tool` runs them.
 */
export type ToolLoading = 'references' | 'additional-tools' | 'dispatcher';

/** Which MCP tools the model sees at once, for the whole conversation while the servers' tool lists stand. */
export interface ToolOffer {
  loading: ToolLoading;
  offered: ReadonlySet<string>;
  /** The MCP tools past the budget: found with search_tools. */
  hidden: ReadonlySet<string>;
}

/**
 * The MCP tools offered at once: all of them under `budget` (estimated tokens); past it, the most relevant to the
 * conversation's opening message that fit, in catalog order — chosen by the opening message, not the latest, so the
 * choice (and the tools array) holds for the whole conversation.
 */
export function toolOffer(
  entries: ToolEntry[],
  openingText: string,
  budget: number,
  /** How the model's provider loads tools mid-conversation (models/tool-search.ts), if it can. */
  native: 'anthropic' | 'openai' | undefined,
): ToolOffer {
  const loading = native === 'anthropic' ? 'references' : native === 'openai' ? 'additional-tools' : 'dispatcher';
  const all = new Set(entries.map((e) => e.name));
  if (entries.reduce((sum, e) => sum + e.cost, 0) <= budget) return { loading, offered: all, hidden: new Set() };
  const query = terms(openingText);
  const ranked = entries
    .map((entry, order) => ({ entry, order, relevance: relevanceOf(query, entry) }))
    .sort((a, b) => b.relevance - a.relevance || a.order - b.order);
  const chosen = new Set<string>();
  let used = 0;
  for (const { entry } of ranked) {
    if (used + entry.cost > budget) continue;
    chosen.add(entry.name);
    used += entry.cost;
  }
  // Catalog order, whatever the ranking: the same array for the same choice.
  const offered = new Set(entries.filter((e) => chosen.has(e.name)).map((e) => e.name));
  return { loading, offered, hidden: new Set([...all].filter((name) => !offered.has(name))) };
}

/** The conversation's opening message: the first user message's text. */
export function openingText(messages: ReadonlyArray<{ role: string; parts: ReadonlyArray<{ type: string }> }>): string {
  const first = messages.find((m) => m.role === 'user');
  return (first?.parts ?? []).map((p) => (p.type === 'text' ? (p as unknown as { text: string }).text : '')).join(' ');
}

/** The turn's tools as the provider is given them: the hidden MCP tools marked as `offer.loading` says. */
export function offeredTools(tools: ToolSet, offer: ToolOffer): ToolSet {
  if (!offer.hidden.size || offer.loading === 'dispatcher') return tools;
  const marked: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (!offer.hidden.has(name)) {
      marked[name] = tool;
      continue;
    }
    const mark: Record<string, Record<string, boolean>> = offer.loading === 'references'
      ? { anthropic: { deferLoading: true } }
      : { openai: { omitFromRequestTools: true } };
    marked[name] = { ...tool, providerOptions: { ...tool.providerOptions, ...mark } };
  }
  return marked;
}

/**
 * The names of the tools active in every step of the turn: the synthetic tools the system prompt offered (each only
 * when the catalog gives it something to do), the offered MCP tools — and the hidden ones too where the provider
 * loads them (they must be active to run) — and every other tool (the client's). The same list at every step.
 */
export function activeTools(
  tools: ToolSet,
  offeredSynthetic: ReadonlySet<string>,
  mcp: { entries: ToolEntry[]; offer: ToolOffer },
): string[] {
  const isMcp = new Set(mcp.entries.map((e) => e.name));
  return Object.keys(tools).filter((name) => {
    if (SYNTHETIC_TOOL_NAMES.has(name)) return offeredSynthetic.has(name);
    if (isMcp.has(name)) return mcp.offer.loading !== 'dispatcher' || mcp.offer.offered.has(name);
    return true;
  });
}

/**
 * OpenAI (`additional-tools`): each search_tools result carries the definitions of the hidden tools it found
 * (`providerOptions.openai.additionalTools`: an `additional_tools` item right after it), at every request — so a
 * request replays the earlier ones exactly and the found tools stay callable for the rest of the conversation. A
 * tool no longer hidden (the servers' lists changed) is not added again.
 */
export function withAdditionalTools(messages: ModelMessage[], offer: ToolOffer, entries: ToolEntry[]): ModelMessage[] {
  const byName = new Map(entries.map((e) => [e.name, e]));
  return messages.map((message) => {
    if (message.role !== 'tool' || !message.content.some(isSearchResult)) return message;
    return {
      ...message,
      content: message.content.map((part) => {
        if (!isSearchResult(part) || part.output.type !== 'json') return part;
        const found = (part.output.value as { found?: Array<{ name?: unknown }> } | null)?.found ?? [];
        const definitions = found.flatMap(({ name }) => {
          const entry = typeof name === 'string' && offer.hidden.has(name) ? byName.get(name) : undefined;
          return entry
            ? [
                {
                  type: 'function' as const,
                  name: entry.name,
                  description: entry.definition.description,
                  parameters: entry.definition.parameters,
                },
              ]
            : [];
        });
        return definitions.length
          ? { ...part, providerOptions: { ...part.providerOptions, openai: { additionalTools: definitions } } }
          : part;
      }),
    } as ModelMessage;
  });
}

const isSearchResult = (part: { type: string; toolName?: string }): part is ToolResultPart =>
  part.type === 'tool-result' && part.toolName === 'search_tools';
