import type { Settings } from '../../config';
import type { ServerState } from '../../mcp/catalog/catalog';
import type { McpSessions } from '../../mcp/sessions';
import type { LargeResultStore } from '../large-results';
import type { ToolSet } from 'ai';
import type { ToolEntry } from '../tool-entries';
import type { ToolOffer } from '../tool-offer';
import type { RunLimits } from '../../sandbox/limits';
import type { ProgramInstrumenterRpc } from '../../../shared/programs';
import type { RunOutcome } from '../../sandbox/run-program';

/** What the synthetic tools need from the conversation and the turn. */
export interface ToolHost {
  sessions: McpSessions;
  /** The catalog as of this turn. */
  states: ServerState[];
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES' | 'DOCUMENT_CONVERTER'>;
  /** The model accepts image parts. */
  acceptsImages: boolean;
  /** Whether the model may invoke this server's prompts (config can keep them user-only). */
  modelPrompts: (server: string) => boolean;
  /** Resource bytes the model may still read this turn (MAX_RESOURCE_BYTES_PER_TURN), shared by every read of the turn. */
  readBudget: { remaining: number; limit: number };
  /** When this turn started: reads the server marks stale at once may still be shared within the turn. */
  turnStartedAt: number;
  /** Long tool results of this conversation (`tool-result://…`), read window by window like resources. */
  largeResults?: LargeResultStore | undefined;
  /** The turn's MCP tools and which are offered at once (search_tools finds the others, call_tool may run them). */
  mcpTools?: { entries: ToolEntry[]; tools: ToolSet; offer: ToolOffer } | undefined;
  /** Programs (run_code): the Worker Loader, the limits of a run, who hears of each run (usage); absent when off. */
  programs?:
    | {
        loader: WorkerLoader;
        instrumenter: ProgramInstrumenterRpc;
        limits: RunLimits;
        onRun?: ((run: RunOutcome) => void) | undefined;
      }
    | undefined;
}

/** The servers `server` names (all of them when absent); an unknown one is the model's mistake, said plainly. */
export function pick(states: ServerState[], server: string | undefined): ServerState[] {
  if (server === undefined) return states;
  const found = states.filter((s) => s.id === server);
  if (!found.length) throw new Error(`No server "${server}" (servers: ${states.map((s) => s.id).join(', ')})`);
  return found;
}

/** ApiErrors become plain tool errors: the model sees the message and can act on it. */
export async function asToolError<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw new Error(error instanceof Error ? error.message : String(error));
  }
}
