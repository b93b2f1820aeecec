import { settledTaskChunks, taskParts } from './settled-tasks';
import { describeTurnError } from './turn-error';
import { noModelStep } from './no-model-step';
import { predictedReadStep } from './predicted-read-step';
import { SourceCollector } from './sources';
import {
  convertToModelMessages,
  createUIMessageStream,
  streamText,
  wrapLanguageModel,
  type InferUIMessageChunk,
  type ModelMessage,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { plainInvalidInput, withToolFailures } from '../tools/tool-failure';
import { isTaskPlaceholder } from '../tools/task-placeholder';
import type { ToolEntry } from '../tools/tool-entries';
import { withAnswerLanguage } from '../prompt/answer-language';
import type { PinnedContent } from '../prompt/pinned';
import type { ContextPlan } from '../prompt/cost-planner';
import { SYNTHETIC_TOOLS, READING_TOOL_NAMES } from '../tools/synthetic';
import { activeTools, type ToolOffer, withAdditionalTools } from '../tools/tool-offer';
import { coalesceDeltas } from './coalesce-deltas';
import { LiveStream } from './live-stream';
import type { Settings } from '../config';
import type { ServerState } from '../mcp/catalog/catalog';
import type { ResolvedModel } from '../models/resolve';
import { promptCachePlan } from '../models/prompt-cache';
import { elideReads } from '../prompt/read-elision';
import { isUnfinishedToolCall, STOPPED_TOOL_TEXT } from '../../shared/stopped';
import { buildSystemPrompt } from '../prompt/system-prompt';
import { modelCallTelemetry, withToolTelemetry } from './telemetry';
import { type Exceeded, exceededText } from '../usage/budgets';
import type { TurnMeter } from '../usage/meter';

export interface StreamTurnInput {
  /** The conversation to answer: the history plus the new user message, or, to continue after an approval, the history alone. */
  messages: UIMessage[];
  states: ServerState[];
  model: ResolvedModel;
  /** The conversation's id: what keeps its requests on one provider cache (prompt-cache.ts). */
  conversation?: string | undefined;
  tools: ToolSet;
  /** The MCP tools among `tools`, and which are offered at once (turn/context.ts, tools/tool-offer.ts). */
  mcpToolEntries?: ToolEntry[];
  toolOffer?: ToolOffer;
  settings: Settings;
  modelPrompts: (server: string) => boolean;
  /** Pinned resources of this turn, and what the cost planner inlined; notices about skipped ones. */
  pinned?: PinnedContent;
  /** The cost planner's plan: the cache lifetime asked of the provider (prompt/cost-planner.ts). */
  plan?: ContextPlan | undefined;
  /** Programs (run_code) this turn: the mode and the planner's verdict (turn/context.ts); absent: off. */
  programs?: { mode: 'auto' | 'on'; worthIt: boolean } | undefined;
  /** The reads of the conversation's first this-many user turns are one-line notes (a compaction: turn/runner.ts). */
  compactedTurns?: number | undefined;
  /**
   * Steps the answer being continued already took (after an approval, a client tool's result, a task's end): MAX_STEPS
   * counts the whole turn, not each run of it (`TurnMetadata.steps`).
   */
  priorSteps?: number | undefined;
  /** Called once, with the whole conversation, only when the turn completed. */
  onComplete: (messages: UIMessage[]) => void;
  /** Called once when the turn ended without completing (the model or a step failed), with the failure when known. */
  onFailed?: (error: unknown) => void;
  /** Stops the turn (the user pressed stop): reaches the model request and every tool's MCP request. */
  abortSignal?: AbortSignal;
  /** What the turn's requests and tool runs cost, and whether a budget is used up (usage/meter.ts). */
  meter?: TurnMeter | undefined;
  /** Called once, with the whole conversation (the partial answer settled, see `settleStopped`), when the turn was stopped. */
  onStopped?: (messages: UIMessage[]) => void;
  /** Data chunks sent at the start of the answer (a server the user must connect, say). */
  notices?: UIMessageChunk[];
  /** Receives the function that adds chunks of our own to the answer's stream (a server's question to the user). */
  onWriter?: (write: (chunk: UIMessageChunk) => void) => void;
}

/** Finish metadata on the assistant message: what a UI shows as "done", "stopped at the step limit", tokens used. */
export interface TurnMetadata {
  model: string;
  /** The last step's finish reason, as the `finish` chunk says it; `stopped` when the user stopped the turn. */
  finishReason: string;
  /** Every tool step of the turn was used: the last step answered without tools (see STEP_LIMIT_NOTE). */
  stepLimitReached?: boolean;
  /** Model steps the answer took, across its continuations (MAX_STEPS counts them all). */
  steps?: number;
  /** The user stopped the turn: the answer is partial. */
  stopped?: boolean;
  /** A tool call became a task (MCP Tasks): the answer goes on when it ends. */
  waitingForTasks?: boolean;
  /** A budget was used up during the turn: it ended after the step it was in (a `data-notice` says so). */
  budgetExceeded?: Exceeded;
  usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined };
}

/**
 * One turn of the tool loop: the system prompt (catalog, never contents),
 * the history, the model with synthetic and MCP tools, up to MAX_STEPS
 * steps. Returns the AI SDK UI message stream as a LiveStream (SSE-ready,
 * resumable), so `useChat` works unchanged.
 */
export async function streamTurn(input: StreamTurnInput): Promise<LiveStream> {
  const messages = input.messages;
  const recentUserText = messages
    .filter((m) => m.role === 'user')
    .slice(-3)
    .flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')))
    .join(' ');
  const mcp = {
    entries: input.mcpToolEntries ?? [],
    offer: input.toolOffer ?? { loading: 'dispatcher' as const, offered: new Set<string>(), hidden: new Set<string>() },
  };
  const prompt = buildSystemPrompt({
    servers: input.states,
    conversationText: recentUserText,
    modelPrompts: input.modelPrompts,
    settings: input.settings,
    mcpTools: {
      any: mcp.entries.length > 0,
      hidden: mcp.offer.hidden.size,
      dispatcher: mcp.offer.loading === 'dispatcher',
    },
    offerable: SYNTHETIC_TOOLS,
    programs: input.programs,
    ...(input.pinned
      ? { pinned: input.pinned.byServer, inlined: input.pinned.inlined, wholeCorpus: input.pinned.wholeCorpus }
      : {}),
  });
  const system = prompt.text;
  // The same tools at every step and turn (tool-offer.ts): what search_tools finds is loaded, never added here.
  const active = activeTools(input.tools, prompt.offered, mcp);
  const loaded = (messages: ModelMessage[]) =>
    mcp.offer.loading === 'additional-tools' && mcp.offer.hidden.size
      ? withAdditionalTools(messages, mcp.offer, mcp.entries)
      : messages;
  // The catalog entries relevant to this message, when the system prompt cannot show them all, go with the message;
  // then the read the message clearly needs, made before the first step (predicted-read-step.ts), unless the model
  // picks every read itself (the offline stand-in).
  const predicted =
    input.settings.PREDICTED_READS === 'on' && input.model.readsAhead !== false
      ? await predictedReadStep({
          messages,
          states: input.states,
          tools: input.tools,
          offered: prompt.offered,
          inlined: input.pinned?.inlined ?? new Set(),
          windowChars: input.settings.READ_WINDOW_CHARS,
          abortSignal: input.abortSignal,
        })
      : undefined;
  // A read made ahead is a tool run like the model's own: counted, by the layer that served it.
  if (predicted) input.meter?.toolExecuted(predicted.output, false);
  const initialMessages = [
    ...withRelevantEntries(
      await convertToModelMessages(withAnswerLanguage(messages), { tools: input.tools }),
      prompt.relevant,
    ),
    ...(predicted?.messages ?? []),
  ];

  // With a prompt cache, earlier reads are sent again as they were (each request extends the one before it), until a
  // compaction; without one, they become notes past their budgets (read-elision.ts).
  const cached = input.model.promptCache !== undefined;
  const budgets = {
    turnBudget: cached ? Number.POSITIVE_INFINITY : input.settings.TURN_READS_BUDGET_CHARS,
    earlierBudget: cached ? Number.POSITIVE_INFINITY : input.settings.EARLIER_READS_BUDGET_CHARS,
    readingTools: READING_TOOL_NAMES,
    compactedTurns: input.compactedTurns,
  };
  const cache = promptCachePlan(input.model.promptCache, input.conversation, {
    ttl: input.plan?.ttl,
    card: input.model.card,
  });
  const maxSteps = input.settings.MAX_STEPS;
  const priorSteps = input.priorSteps ?? 0;
  let failed: { error: unknown } | undefined;
  /** Steps of the whole answer: those it took before this continuation, and this run's. */
  let steps = priorSteps;
  /** A tool call of this turn became a task: the turn stops after its step and goes on when the task ends. */
  let waitingForTasks = false;
  /** The budget this turn used up, once it has (then fixed: the notice and the metadata say the same). */
  let budget: Exceeded | undefined;
  const budgetHit = () => (budget ??= input.meter?.exceeded());
  /**
   * At the end: the budget that ended the turn — at a step boundary (above), or by refusing a request, which leaves a
   * step with no tool call, after which no stop condition is asked.
   */
  const budgetAtEnd = () => (budget ??= input.meter?.refusal);
  const result = streamText({
    // A span and a log line per model call (turn-telemetry.ts), over the deltas merged per ~30 ms before the
    // pipeline: CPU follows time, not tokens (coalesce-deltas.ts).
    model: wrapLanguageModel({
      model: input.model.model as Parameters<typeof wrapLanguageModel>[0]['model'],
      // Each request's tokens to the turn's meter (usage/meter.ts), as the provider reported them.
      // Each request reserved against the budgets before it is made (usage/meter.ts), and its tokens to the meter.
      middleware: [modelCallTelemetry(input.meter), coalesceDeltas(input.settings.STREAM_COALESCE_MS)],
    }),
    system: cache.system(system),
    messages: initialMessages,
    // A span and a log line per tool execution (names and outcomes; never inputs or outputs).
    // Every tool's failure worded as one (tool-failure.ts), then observed.
    tools: withToolTelemetry(withToolFailures(input.tools), {
      mcpTools: mcp.entries,
      servers: input.states.map((s) => s.id),
    }),
    activeTools: active,
    ...(cache.providerOptions ? { providerOptions: cache.providerOptions } : {}),
    // MAX_STEPS steps may use tools; one more, without them, answers with what the tools gave. A step where a call became
    // a task (MCP Tasks) is the last: the model must not see its placeholder; the conversation continues the turn with the
    // task's result (src/turn/tasks/).
    // A budget used up (usage/budgets.ts) ends the turn after the step it is in, with a notice (below). Steps count
    // across the answer's continuations: approving calls one at a time does not restart them.
    stopWhen: [
      ({ steps }) => priorSteps + steps.length > maxSteps,
      () => waitingForTasks,
      () => budgetHit() !== undefined,
    ],
    // Every step is sent the conversation with reads elided (read-elision.ts), rebuilt from the untouched messages,
    // its last message marked for the provider's prompt cache; the tools search_tools found loaded (OpenAI: tool-offer.ts).
    prepareStep: ({ stepNumber, initialMessages, responseMessages }) => {
      // A call approved in the previous request ran before this first step and became a task: nothing to ask the model.
      if (stepNumber === 0 && waitingForTasks) return { model: noModelStep, activeTools: [] };
      const messages = loaded(withPlainToolErrors(elideReads([...initialMessages, ...responseMessages], budgets)));
      if (priorSteps + stepNumber < maxSteps) return { messages: cache.messages(messages) };
      // The step past the limit: with a prompt cache, the same tools and system prompt (the cached prefix), told in a message.
      if (cache.lastStep === 'keep-tools')
        return {
          messages: cache.messages([...messages, { role: 'user', content: stepLimitNote(maxSteps) }]),
          toolChoice: 'none' as const,
        };
      return {
        messages,
        activeTools: [],
        toolChoice: 'none' as const,
        system: `${system}\n\n${stepLimitNote(maxSteps)}`,
      };
    },
    ...(input.abortSignal ? { abortSignal: input.abortSignal } : {}),
    onError: ({ error }) => {
      failed = { error };
    },
    onStepFinish: () => {
      steps++;
    },
    // Every execution, a step's or an approved call's run before the first step (which no step reports).
    onToolExecutionEnd: ({ toolOutput }) => {
      const becameTask = toolOutput.type === 'tool-result' && isTaskPlaceholder(toolOutput.output);
      if (becameTask) waitingForTasks = true;
      input.meter?.toolExecuted(toolOutput.type === 'tool-result' ? toolOutput.output : undefined, becameTask);
    },
  });

  const notices: UIMessageChunk[] = [
    ...(input.notices ?? []),
    ...(input.pinned?.notices ?? []).map((message) => ({ type: 'data-notice' as const, data: { message } })),
  ];
  // What the answer read, said before its end as a `data-sources` part (sources.ts).
  const sources = new SourceCollector({
    states: input.states,
    messages,
    pinned: [...(input.pinned?.byServer.values() ?? [])].flat(),
    maxInlineChars: input.settings.SOURCE_TEXT_MAX_CHARS,
  });
  for (const chunk of predicted?.chunks ?? []) sources.observe(chunk);
  const stream = createUIMessageStream<UIMessage<TurnMetadata>>({
    originalMessages: messages as UIMessage<TurnMetadata>[],
    generateId: () => crypto.randomUUID(),
    execute: ({ writer }) => {
      input.onWriter?.((chunk) => writer.write(chunk as never));
      writer.merge(
        result
          .toUIMessageStream<UIMessage<TurnMetadata>>({
            messageMetadata: ({ part }) => {
              if (part.type !== 'finish') return undefined;
              return {
                model: input.model.spec,
                finishReason: part.finishReason,
                steps,
                ...(steps > maxSteps ? { stepLimitReached: true } : {}),
                ...(waitingForTasks ? { waitingForTasks: true } : {}),
                ...(budgetAtEnd() ? { budgetExceeded: budget } : {}),
                usage: {
                  inputTokens: part.totalUsage.inputTokens,
                  outputTokens: part.totalUsage.outputTokens,
                  totalTokens: part.totalUsage.totalTokens,
                },
              };
            },
            onError: (error) => describeTurnError(error),
          })
          // One stage for tasks (a stage per chunk costs CPU on a long answer): placeholders become data-task parts,
          // and the calls that ended as tasks are re-sent after the start chunk.
          .pipeThrough(
            taskParts<InferUIMessageChunk<UIMessage<TurnMetadata>>>(
              [...settledTaskChunks(messages), ...(predicted?.chunks ?? [])],
              () => {
                const ended = budgetAtEnd();
                const notice = ended ? [{ type: 'data-notice', data: { message: exceededText(ended) } } as const] : [];
                return [...sources.chunks(), ...notice];
              },
              (chunk) => sources.observe(chunk),
            ),
          ),
      );
    },
    onFinish: ({ messages: finalMessages, outcome, isAborted }) => {
      if (isAborted || outcome.status === 'aborted' || input.abortSignal?.aborted)
        input.onStopped?.(settleStopped(finalMessages, input.model.spec));
      // The merged model stream declares no outcome to this outer stream: a failure shows as `failed` (streamText's onError) or a failed outcome.
      else if (!failed && outcome.status !== 'failed') input.onComplete(finalMessages);
      else input.onFailed?.(failed?.error);
    },
    onError: (error) => describeTurnError(error),
  });
  return new LiveStream(stream, notices);
}

/**
 * The messages with an invalid tool call's error (the AI SDK's chained text) as one sentence naming the tool and the
 * argument (tools/tool-failure.ts `plainInvalidInput`). Only this turn's calls carry that text: the history keeps the
 * step's error as its reworded chunk said it (settled-tasks.ts).
 */
function withPlainToolErrors(messages: ModelMessage[]): ModelMessage[] {
  let changed = false;
  const out = messages.map((message) => {
    if (message.role !== 'tool') return message;
    let reworded = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result' || part.output.type !== 'error-text') return part;
      const plain = plainInvalidInput(part.output.value);
      if (plain === undefined) return part;
      reworded = changed = true;
      return { ...part, output: { ...part.output, value: plain } };
    });
    return reworded ? { ...message, content } : message;
  });
  return changed ? out : messages;
}

/** The last user message with `relevant` added as a text part of its own (never stored: the history keeps what the user wrote). */
function withRelevantEntries(messages: ModelMessage[], relevant: string | undefined): ModelMessage[] {
  const last = messages.findLastIndex((m) => m.role === 'user');
  if (!relevant || last < 0) return messages;
  const user = messages[last] as Extract<ModelMessage, { role: 'user' }>;
  const content = typeof user.content === 'string' ? [{ type: 'text' as const, text: user.content }] : user.content;
  return [
    ...messages.slice(0, last),
    { ...user, content: [...content, { type: 'text', text: relevant }] },
    ...messages.slice(last + 1),
  ];
}

/** What the model is told in the extra step past MAX_STEPS (the step where it has no tools). */
export function stepLimitNote(maxSteps: number): string {
  return `You have used all ${maxSteps} tool steps of this turn and can call no more tools now. Answer the user with what you have: say what you read or did, what you found, and what is left undone — the user can ask you to go on.`;
}

/**
 * The conversation after a stop: the partial answer is kept, marked
 * `stopped`, and made valid history — text parts end, a tool call that had
 * no result gets an error result saying it was stopped (the model must not
 * see a call without a result; the user must not think it ran).
 */
export function settleStopped(messages: UIMessage[], model: string): UIMessage[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return messages;
  const parts = last.parts.map((part) => {
    if ((part.type === 'text' || part.type === 'reasoning') && part.state === 'streaming')
      return { ...part, state: 'done' as const };
    if (isUnfinishedToolCall(part))
      return {
        ...part,
        state: 'output-error',
        input: (part as { input?: unknown }).input ?? {},
        errorText: STOPPED_TOOL_TEXT,
      } as unknown as typeof part;
    return part;
  });
  const metadata = {
    ...(last.metadata as object | undefined),
    model,
    finishReason: 'stopped',
    stopped: true,
  } satisfies Partial<TurnMetadata>;
  return [...messages.slice(0, -1), { ...last, parts, metadata }];
}
