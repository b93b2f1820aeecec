import { jsonSchema, tool, type ToolSet, type UIMessage, type UIMessageChunk } from 'ai';
import { withConnectUrls } from '../auth/connect-urls';
import type { Settings } from '../config';
import { ApiError } from '../errors';
import { takeTurn } from '../limits/turn-limits';
import type { ServerState } from '../mcp/catalog/catalog';
import type { McpSessions } from '../mcp/sessions';
import { logEvent } from '../observability/log';
import type { Owner } from '../owner';
import { CHARS_PER_TOKEN, estimateTokens } from '../prompt/tokens';
import { programMode, programsFor } from '../sandbox/programs';
import { openingText } from '../tools/tool-offer';
import { startMeter, type TurnMeter } from '../usage/meter';
import type { AppToolCall } from '../../shared/api/views';
import { type TurnContext, turnContext } from './context';
import type { ClientTool, TurnHost, TurnRequest, TurnTerms } from './host';
import { PendingStep } from './pending-step';
import { pendingApprovals, regenerationCut, settleOpenToolCalls } from './messages';
import type { TurnMetadata } from './stream';

/*
 * The assembly of one turn: what it is asked (its new input, or the answer it regenerates, or the one it continues),
 * whether it may run (limits, budgets, tasks, approvals), and what it needs — its meter, its catalogs, tools, pins and
 * programs (turn/context.ts), the client's tools, the notices that open its stream. The runner (runner.ts) runs,
 * pauses, continues and ends what this assembles; nothing here holds the turn's state.
 */

/** A turn as assembled, before its user message is written. */
export interface AssembledTurn {
  /** The history as stored when the turn started. */
  stored: UIMessage[];
  /** What the turn builds on (the history, cut for a regeneration, its open calls settled for a new message). */
  base: UIMessage[];
  newMessages: UIMessage[];
  /** A regeneration: the answer replaced once this one completes. */
  replaceFrom?: string | undefined;
  owner: Owner;
  settings: Settings;
  meter: TurnMeter;
  turn: TurnContext;
}

/**
 * A new message (or a regeneration) while tool calls of the answer run as
 * tasks: 409 naming them. Not queued: the model's next step must see the
 * tasks' results right after its calls (providers refuse a tool call
 * without its result), and a queued message would wait unseen for as long
 * as the task takes; Stop cancels them.
 */
function tasksRunning(tasks: Array<{ task: { tool: string; server: string; startedAt: number } }>): ApiError {
  const names = tasks
    .map(
      ({ task: t }) =>
        `"${t.tool}" of MCP server "${t.server}" (running for ${Math.round((Date.now() - t.startedAt) / 1000)} s)`,
    )
    .join(', ');
  return new ApiError(
    409,
    'task_running',
    `A tool call is still running as a task: ${names}. Wait for it to finish (the answer goes on by itself), or stop it.`,
  );
}

/**
 * Assembles a turn in `sessions` for `request`: refused (a 409, a 429) before anything is written when it may not run.
 * `write` sends a part into the running turn's stream (a view's call, a tool's progress); `clientTools` are the chat
 * client's own.
 */
export async function assembleTurn(
  host: TurnHost,
  sessions: McpSessions,
  request: TurnRequest,
  { model, owner, config, settings, pinnedSkills }: TurnTerms,
  { clientTools, write }: { clientTools: ClientTool[]; write: (chunk: UIMessageChunk) => void },
): Promise<AssembledTurn> {
  const { store, largeResults } = host;
  const stored = store.load();
  let base = stored;
  let newMessages: UIMessage[] = [];
  let replaceFrom: string | undefined;
  const tasks = PendingStep.of(stored).of('task');
  if (request.kind !== 'continue' && tasks.length) throw tasksRunning(tasks);
  if (request.kind === 'message') {
    newMessages = request.newMessages;
    if (pendingApprovals(stored).length) {
      throw new ApiError(
        409,
        'approval_pending',
        'A tool call is waiting for approval: answer it with POST /approvals before sending a new message',
      );
    }
    const settled = settleOpenToolCalls(stored);
    if (settled) {
      store.save([settled], false);
      base = [...stored.slice(0, -1), settled];
    }
  } else if (request.kind === 'regenerate') {
    const cut = regenerationCut(stored, request.messageId);
    if (!cut)
      throw new ApiError(
        404,
        'message_not_found',
        request.messageId ? `No message ${request.messageId} to regenerate` : 'There is no answer to regenerate',
      );
    base = stored.slice(0, cut.keep);
    replaceFrom = cut.replaceFrom;
  }
  if (request.kind !== 'continue') await takeTurn(host.env, config, owner);
  // A new turn past a budget is refused here, before anything is written; a continuation finishes what was started.
  const meter = await startMeter(
    {
      owner,
      conversation: host.conversation,
      model,
      config,
      usage: host.usage,
      charsPerToken: CHARS_PER_TOKEN,
    },
    { refuse: request.kind !== 'continue' },
  );
  const turnStartedAt = Date.now();
  // A turn a person asked for sets the pace; a continuation (after an approval, a task) is the same turn to them.
  const gapsMs = host.pace.mark(request.kind === 'message' ? turnStartedAt : undefined);
  const turn = await turnContext(sessions, {
    settings,
    acceptsImages: model.acceptsImages,
    turnStartedAt,
    model,
    gapsMs,
    openingText: openingText([...base, ...newMessages]),
    largeResults,
    onAppCall: (call) => write(appCallPart(call)),
    // A call's progress: a transient part in its step (never saved); a call that became a task: recorded, followed from the alarm.
    onProgress: (progress) =>
      write({
        type: 'data-progress',
        id: progress.toolCallId,
        data: progress,
        transient: true,
      } as UIMessageChunk),
    onTaskStarted: (started) => host.tasks.started(started, sessions),
    onProgramRun: (run) => meter.programRun(run),
    pinnedSkills,
    programs: programsFor(
      host.env,
      programMode(
        settings,
        config.tenants?.find((t) => t.id === owner.tenant),
      ),
      settings,
    ),
  });
  turn.tools = { ...clientToolSet(clientTools, turn.tools), ...turn.tools };
  return { stored, base, newMessages, replaceFrom, owner, settings, meter, turn };
}

/**
 * With a prompt cache, earlier reads are sent again as they were (every request extends the one before it). Once the
 * part of the conversation sent whole passes CONTEXT_BUDGET_TOKENS, a new turn compacts it: the reads of every turn
 * before it become one-line notes — one rewrite of the cached prefix, at a turn boundary, which later requests extend
 * — and the stream says so. Returns how many user turns are compacted.
 */
export function compactionOf(
  compaction: TurnHost['compaction'],
  sent: UIMessage[],
  newTurn: boolean,
  settings: Settings,
): { turns: number; notice?: UIMessageChunk } | undefined {
  const users = sent.flatMap((m, i) => (m.role === 'user' ? [{ id: m.id, index: i }] : []));
  const stored = compaction.get();
  let point = users.findIndex((u) => u.id === stored);
  if (stored !== undefined && point < 0) compaction.set(undefined); // that message left the history
  const from = point < 0 ? 0 : users[point]!.index;
  const tokens = estimateTokens(JSON.stringify(sent.slice(from)));
  if (!newTurn || tokens <= settings.CONTEXT_BUDGET_TOKENS || users.length < 2)
    return point > 0 ? { turns: point } : undefined;
  point = users.length - 1;
  compaction.set(users[point]!.id);
  logEvent('turn.compacted', { turns: point, tokens, budget: settings.CONTEXT_BUDGET_TOKENS });
  return {
    turns: point,
    notice: {
      type: 'data-notice',
      data: {
        message: `This conversation passed its context budget (about ${tokens.toLocaleString('en-US')} tokens, CONTEXT_BUDGET_TOKENS ${settings.CONTEXT_BUDGET_TOKENS.toLocaleString('en-US')}): what was read in its ${point} earlier turn(s) is now a one-line note each for the model, which can read it again; the history keeps it all.`,
      },
    } as UIMessageChunk,
  };
}

/**
 * One `data-auth-required` part per server the user must connect (or grant
 * more access to), with their connect link: the frontend shows a Connect
 * card. Transient — connect links are short-lived capabilities, never stored in the history.
 */
export async function authRequiredNotices(env: Env, owner: Owner, states: ServerState[]): Promise<UIMessageChunk[]> {
  const needing = states.filter(
    (s) => s.status === 'auth_required' || s.authorization?.reason === 'insufficient_scope',
  );
  if (!needing.length) return [];
  const withUrls = await withConnectUrls(env, owner, needing);
  return withUrls.map(
    (state) =>
      ({
        type: 'data-auth-required',
        id: `auth-required-${state.id}`,
        transient: true,
        data: {
          server: state.id,
          reason: state.authorization?.reason ?? 'not_connected',
          ...(state.authorization?.scope ? { scope: state.authorization.scope } : {}),
          connectUrl: state.connectUrl,
        },
      }) as UIMessageChunk,
  );
}

/**
 * A call of a tool with a view (MCP Apps): the widget renders the view and
 * hands it the input, then the result (the same part id again). Not
 * transient: the history keeps it, so a reload shows the view again. The
 * model never sees data parts.
 */
function appCallPart(call: AppToolCall): UIMessageChunk {
  return { type: 'data-mcp-app', id: `mcp-app-${call.toolCallId}`, data: call } as UIMessageChunk;
}

/** Client tools as the model sees them: no `execute` (the turn ends at the call; the client answers). Names of ours win. */
function clientToolSet(tools: ClientTool[], ours: ToolSet): ToolSet {
  const set: ToolSet = {};
  for (const clientTool of tools) {
    if (ours[clientTool.name] || !/^[a-zA-Z0-9_-]{1,64}$/.test(clientTool.name)) continue;
    set[clientTool.name] = tool({
      description: `[runs in the user's app] ${clientTool.description ?? clientTool.name}`,
      inputSchema: jsonSchema(
        (clientTool.parameters ?? { type: 'object', properties: {} }) as Parameters<typeof jsonSchema>[0],
      ),
    });
  }
  return set;
}

/** Steps the answer being continued already took, counted against MAX_STEPS (0 for an answer saved before they were counted). */
export function stepsTaken(messages: UIMessage[]): number {
  const last = messages.at(-1);
  return last?.role === 'assistant' ? ((last.metadata as TurnMetadata | undefined)?.steps ?? 0) : 0;
}
