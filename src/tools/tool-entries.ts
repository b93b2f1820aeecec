import { fieldsOf, score } from '../prompt/relevance';

/** An MCP tool as the relevance ranking and `search_tools` see it. */
export interface ToolEntry {
  /** The model's name for it (`<server>__<tool>`). */
  name: string;
  server: string;
  /** The server's own name for it. */
  tool: string;
  title?: string | undefined;
  description?: string | undefined;
  /** Estimated tokens of its definition (name, description, input schema) in a model request. */
  cost: number;
  /** Its definition as the model is given it: what search_tools hands over for a tool not offered at once (tool-offer.ts). */
  definition: { description: string; parameters: Record<string, unknown> };
}

export const relevanceOf = (query: string[], entry: ToolEntry) => score(query, { fields: fieldsOf.tool(entry) });
