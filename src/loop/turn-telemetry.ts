import type { Telemetry } from 'ai';
import { errorFields, logEvent, type LogFields, type LogLevel } from '../observability/log';
import { observed, openSpan, prefixed, type OpenSpan } from '../observability/tracing';
import type { ToolEntry } from '../tools/tool-search';

/**
 * The AI SDK's telemetry hooks for one turn (`streamText`'s
 * `telemetry.integrations`) as Workers tracing spans and log lines
 * (src/observability/): one `model.call` per model request — provider,
 * model, tokens in and out, finish reason, outcome — with the provider's
 * fetch as its child, and one `tool.call` per tool execution — tool,
 * server, outcome — with the MCP requests it makes as children. Never
 * prompt text, tool inputs or outputs.
 *
 * `mcpTools` name each MCP tool's server; a synthetic tool's `server`
 * argument counts only when it is one of `servers` (the model writes it).
 */
export function turnTelemetry({ mcpTools, servers }: { mcpTools: ToolEntry[]; servers: string[] }): Telemetry {
  const serverOfTool = new Map(mcpTools.map((entry) => [entry.name, entry.server]));
  const known = new Set(servers);
  // A turn's model calls come one after another: one is open at a time.
  let call: { span: OpenSpan; fields: LogFields; started: number } | undefined;
  const endCall = (fields: LogFields, level: LogLevel = 'info') => {
    if (!call) return;
    const { span, started } = call;
    const all = { ...call.fields, ...fields, durationMs: Date.now() - started };
    call = undefined;
    span.end(prefixed('model', all));
    logEvent('model.call', all, level);
  };
  const serverOf = (tool: string | undefined, input: unknown): string | undefined => {
    const named = tool === undefined ? undefined : serverOfTool.get(tool);
    const argument = (input as { server?: unknown } | undefined)?.server;
    return named ?? (typeof argument === 'string' && known.has(argument) ? argument : undefined);
  };
  return {
    executeLanguageModelCall: async ({ provider, modelId, execute }) => {
      endCall({ outcome: 'error', error: 'a new model call began before this one ended' }, 'warn');
      const fields = { provider, model: modelId };
      const span = openSpan('model.call', prefixed('model', fields));
      call = { span, fields, started: Date.now() };
      try {
        return await span.run(execute);
      } catch (error) {
        endCall(errorFields(error), 'warn');
        throw error;
      }
    },
    onLanguageModelCallEnd: ({ finishReason, usage }) =>
      endCall({ finishReason, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, outcome: finishReason === 'error' ? 'error' : 'ok' }),
    onStepError: ({ error }) => endCall(errorFields(error), 'warn'),
    onAbort: () => endCall({ outcome: 'aborted' }),
    onError: (error) => endCall(errorFields(error), 'warn'),
    executeTool: ({ toolCall, execute }) =>
      observed('tool.call', 'tool', { tool: toolCall?.toolName, server: serverOf(toolCall?.toolName, toolCall?.input) }, async () => execute()),
  };
}
