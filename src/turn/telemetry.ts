import type { LanguageModelV4Middleware, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import { errorFields, logEvent, type LogFields, type LogLevel } from '../observability/log';
import { observed, openSpan, prefixed } from '../observability/tracing';
import type { ToolEntry } from '../tools/tool-entries';

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

/** A span and a log line per model request; the span is open while the request's stream is read. */
export function modelCallTelemetry(): LanguageModelV4Middleware {
  return {
    specificationVersion: 'v4',
    wrapStream: async ({ doStream, model, params }) => {
      const fields: LogFields = { provider: model.provider, model: model.modelId };
      const span = openSpan('model.call', prefixed('model', fields));
      const started = Date.now();
      let ended = false;
      const onAbort = () => end({ outcome: 'aborted' });
      const end = (final: LogFields, level: LogLevel = 'info') => {
        if (ended) return;
        ended = true;
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
      params.abortSignal?.addEventListener('abort', onAbort, { once: true });
      const watch = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === 'finish') end(finishFields(part));
          else if (part.type === 'error') end(errorFields(part.error), 'warn');
          controller.enqueue(part);
        },
        flush: () => end({ outcome: 'error', error: 'the model stream ended without a finish' }, 'warn'),
      });
      return { ...result, stream: result.stream.pipeThrough(watch) };
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
            observed('tool.call', 'tool', { tool: name, server: serverOf(name, input) }, async () =>
              execute(input, options),
            ),
        }
      : tool;
  }
  return observedTools;
}
