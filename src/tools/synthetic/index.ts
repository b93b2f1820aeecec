import type { ToolSet } from 'ai';
import type { ToolHost } from './tool-host';
import { invokePrompt } from './invoke-prompt';
import { listResourceTemplates } from './list-resource-templates';
import { listResources } from './list-resources';
import { listSkills } from './list-skills';
import { loadSkill } from './load-skill';
import { readResource } from './read-resource';
import { searchResource } from './search-resource';
import { searchTools } from './search-tools';
import { callTool } from './call-tool';
import { runCode } from './run-code';
import type { SyntheticTool } from './tool';

/**
 * The synthetic tools: resolved here, in the Durable Object, through the
 * resource cache — never sent to an MCP server as tool calls, and never
 * waiting for approval (they only read). The order is their sentences'
 * order within each group of the system prompt's base instruction.
 */
export const SYNTHETIC_TOOLS: readonly SyntheticTool[] = [
  readResource,
  searchResource,
  runCode,
  listResources,
  listResourceTemplates,
  invokePrompt,
  loadSkill,
  listSkills,
  searchTools,
  callTool,
];

export const SYNTHETIC_TOOL_NAMES: ReadonlySet<string> = new Set(SYNTHETIC_TOOLS.map((t) => t.name));

/** Tools whose results are resource text the model can read again (read elision may replace old ones with a note). */
export const READING_TOOL_NAMES: ReadonlySet<string> = new Set(
  SYNTHETIC_TOOLS.filter((t) => t.reads).map((t) => t.name),
);

/** Every synthetic tool, made for one turn (which of them are active at a step is tool-offer.ts's call). */
export function syntheticTools(host: ToolHost): ToolSet {
  return Object.fromEntries(SYNTHETIC_TOOLS.map((t) => [t.name, t.create(host)]));
}

export type { ToolHost } from './tool-host';
export type { SyntheticTool } from './tool';
export { closestUris, type ReadResourceOutput } from './read-resource';
export { renderPrompt } from './invoke-prompt';
