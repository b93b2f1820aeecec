import { score } from '../context/relevance';

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

export const relevanceOf = (query: string[], entry: ToolEntry) =>
  score(query, {
    fields: [
      [entry.name.replace(/_/g, ' '), 3],
      [entry.title, 3],
      [entry.description, 1],
    ],
  });
