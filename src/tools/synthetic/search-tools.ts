import type { ToolResultOutput } from '@ai-sdk/provider-utils';
import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { terms } from '../../prompt/relevance';
import { relevanceOf, type ToolEntry } from '../tool-entries';
import type { ToolLoading } from '../tool-offer';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(z.object({ query: z.string().min(1).describe('What the tool should do, in a few words') }));

/** Tools one search hands over, at most (each found definition is input tokens for the rest of the conversation). */
const FOUND_MAX = 5;

/** What search_tools found (the history keeps this; the model is given it as its provider loads tools). */
export interface SearchToolsOutput {
  query: string;
  tools: Array<{ name: string; description: string }>;
}

/**
 * `search_tools`: when a conversation's servers offer more tool definitions than fit MCP_TOOLS_TOKEN_BUDGET, the
 * model is given some at once (tools/tool-offer.ts) and finds the others here, by what they do — the way
 * list_resources finds resources the catalog does not show. What it finds is loaded without changing the request's
 * tools array (the cached prefix), as the provider allows: `tool_reference` blocks (Anthropic), `additional_tools`
 * (OpenAI: stream.ts attaches them to this result, `withAdditionalTools`), or the definitions as text, called through
 * `call_tool` (any other model).
 */
export const searchTools: SyntheticTool = {
  name: 'search_tools',
  group: 'tools',
  offeredWhen: (facts) => facts.hiddenTools > 0,
  sentence: () => 'Not every server tool is offered to you at once: search_tools finds the others by what they do.',
  create: (host) =>
    tool({
      description:
        'Find server tools that are not offered to you yet, by what they do. The tools found can be called from your next step.',
      inputSchema: INPUT,
      execute: async ({ query }): Promise<SearchToolsOutput> => {
        const wanted = terms(query);
        const hidden = host.mcpTools?.offer.hidden ?? new Set<string>();
        const found = (host.mcpTools?.entries ?? [])
          .filter((entry) => hidden.has(entry.name))
          .map((entry) => ({ entry, relevance: relevanceOf(wanted, entry) }))
          .filter((f) => f.relevance > 0)
          .sort((a, b) => b.relevance - a.relevance);
        // Close matches only: a tool matching half as well as the best is noise the model would pay for.
        const best = found[0]?.relevance ?? 0;
        const tools = found
          .filter((f) => f.relevance >= best / 2)
          .slice(0, FOUND_MAX)
          .map(({ entry }) => ({ name: entry.name, description: entry.definition.description }));
        return { query, tools };
      },
      toModelOutput: ({ output }: { output: SearchToolsOutput }): ToolResultOutput =>
        searchToolsModelOutput(output, host.mcpTools?.offer.loading ?? 'dispatcher', host.mcpTools?.entries ?? []),
    }),
};

/** The result as the model gets it: loaded by reference, listed (their definitions come as `additional_tools`), or defined in full. */
export function searchToolsModelOutput(
  output: SearchToolsOutput,
  loading: ToolLoading,
  entries: ToolEntry[],
): ToolResultOutput {
  // A result saved before search_tools returned objects: its text, as it was.
  if (typeof output === 'string') return { type: 'text', value: output };
  if (!output.tools.length) return { type: 'text', value: `No server tool matches "${output.query}".` };
  switch (loading) {
    case 'references':
      return {
        type: 'content',
        value: output.tools.map((t) => ({
          type: 'custom' as const,
          providerOptions: { anthropic: { type: 'tool-reference', toolName: t.name } },
        })),
      };
    case 'additional-tools':
      return { type: 'json', value: { found: output.tools, note: 'These tools can be called from your next step.' } };
    case 'dispatcher': {
      const byName = new Map(entries.map((e) => [e.name, e]));
      const lines = output.tools.map((t) => {
        const parameters = byName.get(t.name)?.definition.parameters ?? {};
        return `${t.name}: ${t.description.replace(/\s+/g, ' ')}\n  arguments (JSON Schema): ${JSON.stringify(parameters)}`;
      });
      return {
        type: 'text',
        value: [
          `${output.tools.length} tool(s) matching "${output.query}". Call one with call_tool, {"name": "<tool>", "arguments": {…}}:`,
          ...lines,
        ].join('\n'),
      };
    }
  }
}
