import type { LanguageModelV4Middleware, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import { errorFields, logEvent, type LogFields, type LogLevel } from '../observability/log';
import { observed, openSpan, prefixed } from '../observability/tracing';
import type { ToolEntry } from '../tools/tool-entries';
import { noModelStep } from './no-model-step';

/*
 * What an operator sees of a turn's model calls and tool executions
 * (src/observability/): one `model.call` span and log line per model request
 * — provider, model, tokens in (and how many the provider read from or wrote
 * to its prompt cache) and out, finish reason, outcome — with the provider's
 * fetch as its child, and one `tool.call` per tool execution — tool, server,
 * outcome — with the MCP requests it makes as children. Never prompt text,
 * tool inputs or outputs.
 *
 * Taken from the loop's own seams — a model middleware and the tools'
 * `execute` — rather than the AI SDK's telemetry integrations: those copy,
 * filter and redact every lifecycle event of every step (prompt and tools
 * included) before an integration sees it, which cost a few ms of CPU a turn
 * (BENCHMARKS.md, "CPU per turn").
 */

/** What a request's end tells the turn's meter (usage/meter.ts): the provider's usage, or none (stopped, failed). */
export type ModelRequestEnded = (ended: {
  usage: Extract<LanguageModelV4StreamPart, { type: 'finish' }>['usage'] | undefined;
  /** Characters of text, reasoning and tool input streamed (for an estimate when the provider reported nothing). */
  streamedChars: number;
  /** The provider accepted the request (its stream began): a request refused before that was not billed. */
  started: boolean;
  prompt: unknown;
}) => void;

/** The turn's meter as a model request sees it (usage/meter.ts TurnMeter). */
export interface RequestMeter {
  /** Before the request: a budget that refuses it (then it is not made), or undefined. */
  beforeRequest(request: { prompt: unknown; tools?: unknown }): Promise<unknown>;
  requestEnded: ModelRequestEnded;
}

/**
 * A span and a log line per model request; the span is open while the request's stream is read. With `meter`, the
 * request is first reserved against the budgets — one refused is not made: the step says nothing and the turn ends
 * there (turn/stream.ts stops on the used-up budget) — and the same stage hands each request's usage to the meter:
 * one stage per chunk, not two (a stage costs CPU on every chunk of a long answer).
 */
export function modelCallTelemetry(meter?: RequestMeter): LanguageModelV4Middleware {
  const metered = meter?.requestEnded;
  return {
    specificationVersion: 'v4',
    wrapStream: async ({ doStream, model, params }) => {
      if (meter && (await meter.beforeRequest({ prompt: params.prompt, tools: params.tools })) !== undefined) {
        logEvent('model.call', { provider: model.provider, model: model.modelId, outcome: 'budget_exceeded' });
        return noModelStep.doStream(params);
      }
      const fields: LogFields = { provider: model.provider, model: model.modelId };
      const span = openSpan('model.call', prefixed('model', fields));
      const started = Date.now();
      let ended = false;
      let streamedChars = 0;
      let streaming = false;
      let usage: Extract<LanguageModelV4StreamPart, { type: 'finish' }>['usage'] | undefined;
      const onAbort = () => end({ outcome: 'aborted' });
      const end = (final: LogFields, level: LogLevel = 'info') => {
        if (ended) return;
        ended = true;
        metered?.({ usage, streamedChars, started: streaming, prompt: params.prompt });
        params.abortSignal?.removeEventListener('abort', onAbort);
        const all = { ...fields, ...final, durationMs: Date.now() - started };
        span.end(prefixed('model', all));
        logEvent('model.call', all, level);
      };
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await span.run(doStream);
      } catch (error) {
        end(errorFields(error), 'warn');
        throw error;
      }
      streaming = true;
      params.abortSignal?.addEventListener('abort', onAbort, { once: true });
      const watch = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (
            metered &&
            (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-input-delta')
          )
            streamedChars += part.delta.length;
          if (part.type === 'finish') {
            usage = part.usage;
            end(finishFields(part));
          } else if (part.type === 'error') end(errorFields(part.error), 'warn');
          controller.enqueue(part);
        },
        flush: () => end({ outcome: 'error', error: 'the model stream ended without a finish' }, 'warn'),
      });
      // pipeThrough, written out: a stream that errors (the provider cut off mid-answer) reaches no `flush`, and only the
      // pipe's promise says so — the request's end is reported then (its usage estimated from what streamed).
      result.stream.pipeTo(watch.writable).catch((error: unknown) => end(errorFields(error), 'warn'));
      return { ...result, stream: watch.readable };
    },
  };
}

function finishFields(part: Extract<LanguageModelV4StreamPart, { type: 'finish' }>): LogFields {
  const { inputTokens, outputTokens } = part.usage;
  const finishReason = part.finishReason.unified;
  return {
    finishReason,
    inputTokens: inputTokens.total,
    cacheReadTokens: inputTokens.cacheRead,
    cacheWriteTokens: inputTokens.cacheWrite,
    outputTokens: outputTokens.total,
    outcome: finishReason === 'error' ? 'error' : 'ok',
  };
}

/**
 * A failed program's error, for its log line: the first line only (which limit stopped it, or that it threw). The rest
 * is what the program threw and logged, for the model — what it read, maybe: a customer's data, never logged.
 */
const programFailure = (error: unknown): LogFields => {
  const fields = errorFields(error);
  return { ...fields, error: String(fields.error).split('\n', 1)[0] };
};

/**
 * The turn's tools with each execution observed (`tool.call`). `mcpTools`
 * name each MCP tool's server; a synthetic tool's `server` argument counts
 * only when it is one of `servers` (the model writes it).
 */
export function withToolTelemetry(
  tools: ToolSet,
  { mcpTools, servers }: { mcpTools: ToolEntry[]; servers: string[] },
): ToolSet {
  const serverOfTool = new Map(mcpTools.map((entry) => [entry.name, entry.server]));
  const known = new Set(servers);
  const serverOf = (tool: string, input: unknown): string | undefined => {
    const argument = (input as { server?: unknown } | undefined)?.server;
    return serverOfTool.get(tool) ?? (typeof argument === 'string' && known.has(argument) ? argument : undefined);
  };
  const observedTools: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    observedTools[name] = execute
      ? {
          ...tool,
          execute: (input, options) =>
            observed(
              'tool.call',
              'tool',
              { tool: name, server: serverOf(name, input) },
              async () => execute(input, options),
              name === 'run_code' ? programFailure : errorFields,
            ),
        }
      : tool;
  }
  return observedTools;
}
