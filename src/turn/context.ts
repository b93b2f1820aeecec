import { extensions } from '../mcp/extensions';
import type { ToolSet } from 'ai';
import type { Settings } from '../config';
import type { ServerState } from '../mcp/catalog/catalog';
import type { McpSessions } from '../mcp/sessions';
import { mcpTools, type McpToolHost } from '../tools/mcp-tools';
import type { LargeResultStore } from '../tools/large-results';
import { SYNTHETIC_TOOL_NAMES, syntheticTools } from '../tools/synthetic';
import type { ToolEntry } from '../tools/tool-entries';
import { offeredTools, toolOffer as offerTools, type ToolOffer } from '../tools/tool-offer';
import { readPinned, type PinnedContent } from '../prompt/pinned';
import { catalogPlan } from '../prompt/catalog-plan';
import type { ContextPlan } from '../prompt/cost-planner';
import type { ResolvedModel } from '../models/resolve';
import type { SkillRef } from '../../shared/api/conversations';
import type { Programs } from '../sandbox/programs';
import type { RunOutcome } from '../sandbox/run-program';
import { programWorthIt } from '../prompt/cost-planner';
import { mayExceed } from '../prompt/catalog-lines';
import { isTextMime } from '../mcp/contents';
import { documentTextChars } from '../documents/document-texts';
import { usdOfRun } from '../config/price-cards';

/** What the model is given for one turn: the catalogs, the tools, and the pinned resources. */
export interface TurnContext {
  states: ServerState[];
  /** Every tool the turn may offer; `streamTurn` chooses which are active at each step. */
  tools: ToolSet;
  /** The MCP tools among `tools`, and which of them are offered at once (tool-offer.ts). */
  mcpToolEntries: ToolEntry[];
  toolOffer: ToolOffer;
  modelPrompts: (server: string) => boolean;
  pinned: PinnedContent;
  /** The cost planner's plan: what is inlined (in `pinned`), and how long the provider should keep the prefix. */
  plan: ContextPlan;
  /** Programs (run_code) this turn: the mode, and whether the planner finds a run worth offering; absent: off. */
  programs?: { mode: 'auto' | 'on'; worthIt: boolean } | undefined;
}

export interface TurnContextOptions {
  settings: Settings;
  acceptsImages: boolean;
  turnStartedAt: number;
  largeResults?: LargeResultStore | undefined;
  onAppCall?: McpToolHost['onAppCall'];
  /** A tool call's progress, and a tool call that became a task (tools/mcp-tools.ts). */
  onProgress?: McpToolHost['onProgress'];
  onTaskStarted?: McpToolHost['onTaskStarted'];
  /** The skills the conversation pins: loaded into the system prompt (prompt/pinned.ts). */
  pinnedSkills?: SkillRef[] | undefined;
  /** The model's price card and cache style, and the time between the conversation's turns: the cost planner's input; how its provider loads tools. */
  model?: Pick<ResolvedModel, 'card' | 'promptCache' | 'toolSearch'> | undefined;
  /** The conversation's opening message: what the MCP tools offered at once are chosen by (tool-offer.ts). */
  openingText?: string | undefined;
  gapsMs?: readonly number[] | undefined;
  /** Programs (run_code) this turn may run (sandbox/programs.ts), and who hears of each run (usage). */
  programs?: Programs | undefined;
  onProgramRun?: ((run: RunOutcome) => void) | undefined;
}

/**
 * Gathers a turn's context: catalogs listed again where the freshness
 * contract calls them stale (a server whose copies serve is not connected
 * for it: ServerLink.available), the synthetic tools (with this turn's resource
 * byte budget) plus each server's MCP tools, and the pinned resources (or
 * the whole corpus, when it is small; never MCP Apps views) and skills. `onAppCall` hears of the calls of tools with a view (MCP Apps). `turnStartedAt` lets the reads of
 * this turn share what a server marks stale at once (ttlMs 0); the next turn
 * reads again.
 */
export async function turnContext(
  sessions: McpSessions,
  {
    settings,
    acceptsImages,
    turnStartedAt,
    largeResults,
    onAppCall,
    onProgress,
    onTaskStarted,
    pinnedSkills,
    model = {},
    gapsMs = [],
    openingText = '',
    programs,
    onProgramRun,
  }: TurnContextOptions,
): Promise<TurnContext> {
  const states = modelStates(await sessions.catalog(turnStartedAt, { connect: false }));
  const modelPrompts = (server: string) => sessions.servers.find((s) => s.id === server)?.modelPrompts ?? false;
  const readBudget = { remaining: settings.MAX_RESOURCE_BYTES_PER_TURN, limit: settings.MAX_RESOURCE_BYTES_PER_TURN };
  const mcp = mcpTools(
    {
      sessions,
      states,
      configs: sessions.servers,
      settings,
      acceptsImages,
      largeResults,
      onAppCall,
      onProgress,
      onTaskStarted,
    },
    SYNTHETIC_TOOL_NAMES,
  );
  // Chosen for the conversation, not the turn: the tools array is the first segment of the cached prefix.
  const toolOffer = offerTools(mcp.entries, openingText, settings.MCP_TOOLS_TOKEN_BUDGET, model.toolSearch);
  const synthetic = syntheticTools({
    sessions,
    states,
    settings,
    acceptsImages,
    modelPrompts,
    readBudget,
    turnStartedAt,
    largeResults,
    mcpTools: { entries: mcp.entries, tools: mcp.tools, offer: toolOffer },
    programs: programs && { ...programs, onRun: onProgramRun },
  });
  const tools = { ...offeredTools(mcp.tools, toolOffer), ...synthetic };
  const plan = catalogPlan(states, { model, gapsMs, settings });
  const pinned = await readPinned(sessions, states, {
    configs: sessions.servers,
    settings,
    reuseSince: turnStartedAt,
    skills: pinnedSkills,
    inline: plan.inlined,
  });
  return {
    states,
    tools,
    mcpToolEntries: mcp.entries,
    toolOffer,
    modelPrompts,
    pinned,
    plan,
    ...(programs
      ? { programs: { mode: programs.mode, worthIt: programsWorthIt(states, settings, model, programs.limits.cpuMs) } }
      : {}),
  };
}

/** Whether a run would cost less than reading the longest text once (prompt/cost-planner.ts programWorthIt). */
function programsWorthIt(
  states: ServerState[],
  settings: Settings,
  model: Pick<ResolvedModel, 'card'>,
  cpuMs: number,
): boolean {
  const documents = settings.DOCUMENT_CONVERTER !== 'off';
  let longestChars: number | undefined;
  let longOrUnknown = false;
  for (const state of states)
    for (const r of state.resources) {
      if (mayExceed(r, settings.READ_WINDOW_CHARS, documents)) longOrUnknown = true;
      const chars = isTextMime(r.mimeType) ? r.size : documentTextChars(state, r);
      if (chars !== undefined && chars > (longestChars ?? 0)) longestChars = chars;
    }
  return programWorthIt({
    longestChars,
    longOrUnknown,
    card: model.card,
    runUsd: usdOfRun(cpuMs),
    turns: settings.PLANNER_TURNS,
  });
}

/** The servers' states as the model is shown them: what the extensions keep from it (MCP Apps views, skill files) taken out. */
export const modelStates = (states: ServerState[]): ServerState[] => extensions.forModel(states);
