import type { Tool } from 'ai';
import type { OfferableTool } from '../../prompt/system-prompt';
import type { ToolHost } from './tool-host';

/**
 * One synthetic tool, whole: its name, when the catalog gives it something
 * to do, its sentence in the system prompt (prompt/system-prompt.ts takes
 * these as data), whether its results are resource text read elision may
 * drop, and how it is made for a turn. Adding a tool is one file and a line
 * in index.ts; everything else derives from the registry.
 */
export interface SyntheticTool extends OfferableTool {
  /** Its results are resource text the model can read again at the edge (prompt/read-elision.ts may replace old ones with a note). */
  reads?: boolean;
  create(host: ToolHost): Tool;
}
