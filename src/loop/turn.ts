import { convertToModelMessages, stepCountIs, streamText, type ToolSet, type UIMessage } from 'ai';
import { LiveStream } from './live-stream';
import type { Settings } from '../config';
import type { ServerState } from '../mcp/catalog';
import type { ResolvedModel } from './models';
import { elideEarlierReads } from './earlier-reads';
import { buildSystemPrompt } from './system-prompt';

export interface TurnInput {
  /** The conversation to answer: the history plus the new user message, or, to continue after an approval, the history alone. */
  messages: UIMessage[];
  states: ServerState[];
  model: ResolvedModel;
  tools: ToolSet;
  settings: Settings;
  modelPrompts: (server: string) => boolean;
  /** Pinned resources of this turn, and notices about skipped ones. */
  pinned?: { byServer: Map<string, string[]>; notices: string[] };
  /** Called once, with the whole conversation, only when the turn completed. */
  onComplete: (messages: UIMessage[]) => void;
  /** Called once when the turn ended without completing (the model or a step failed). */
  onFailed?: () => void;
}

/** Finish metadata on the assistant message: what a UI shows as "done", "stopped at the step limit", tokens used. */
export interface TurnMetadata {
  model: string;
  finishReason: string;
  usage?: { inputTokens?: number | undefined; outputTokens?: number | undefined; totalTokens?: number | undefined };
}

/**
 * One turn of the tool loop: the system prompt (catalog, never contents),
 * the history, the model with synthetic and MCP tools, up to MAX_STEPS
 * steps. Returns the AI SDK UI message stream as a LiveStream (SSE-ready,
 * resumable), so `useChat` works unchanged.
 */
export async function runTurn(input: TurnInput): Promise<LiveStream> {
  const messages = input.messages;
  const recentUserText = messages
    .filter((m) => m.role === 'user')
    .slice(-3)
    .flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')))
    .join(' ');
  const system = buildSystemPrompt({
    servers: input.states,
    conversationText: recentUserText,
    modelPrompts: input.modelPrompts,
    settings: input.settings,
    ...(input.pinned ? { pinned: input.pinned.byServer } : {}),
  }).text;

  let failed = false;
  let steps = 0;
  const result = streamText({
    model: input.model.model,
    system,
    messages: await convertToModelMessages(elideEarlierReads(messages, input.settings.EARLIER_READS_BUDGET_CHARS), { tools: input.tools }),
    tools: input.tools,
    stopWhen: stepCountIs(input.settings.MAX_STEPS),
    onError: () => {
      failed = true;
    },
    onStepFinish: () => {
      steps++;
    },
  });

  const notices = (input.pinned?.notices ?? []).map((message) => ({ type: 'data-notice' as const, data: { message } }));
  return new LiveStream(result.toUIMessageStream<UIMessage<TurnMetadata>>({
    originalMessages: messages as UIMessage<TurnMetadata>[],
    generateMessageId: () => crypto.randomUUID(),
    messageMetadata: ({ part }) => {
      if (part.type !== 'finish') return undefined;
      const stoppedAtLimit = steps >= input.settings.MAX_STEPS && part.finishReason === 'tool-calls';
      return {
        model: input.model.spec,
        finishReason: stoppedAtLimit ? 'step-limit' : part.finishReason,
        usage: { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens, totalTokens: part.totalUsage.totalTokens },
      };
    },
    onFinish: ({ messages: finalMessages, outcome }) => {
      if (!failed && outcome.status === 'completed') input.onComplete(finalMessages);
      else input.onFailed?.();
    },
    onError: (error) => describeModelError(error),
  }), notices);
}

/** The error text the stream carries: the cause, without stack traces or credentials. */
function describeModelError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `The model call failed: ${message.replace(/(sk|key|token)[-_A-Za-z0-9]{12,}/gi, '[redacted]').slice(0, 500)}`;
}
