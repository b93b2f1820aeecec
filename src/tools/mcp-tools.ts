import type { CallToolResult } from '@modelcontextprotocol/client';
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { Tool } from '@modelcontextprotocol/client';
import type { AppToolCall } from '../../shared/api/views';
import { toolViewUri, toolVisibleTo } from '../../shared/mcp-apps';
import type { McpServerConfig, Settings } from '../config';
import { isUsable, type ServerState } from '../mcp/catalog/catalog';
import { approvalRule } from '../mcp/catalog/definition-check';
import { modelToolName } from '../mcp/catalog/tool-names';
import { isStartedTask, type McpSessions, type Progress, type StartedTask } from '../mcp/sessions';
import { taskSupportOf, unusableTaskTools } from '../mcp/extensions';
import { taskPlaceholder } from './task-placeholder';
export { isTaskPlaceholder } from './task-placeholder';
import { humanSize } from '../../shared/human-size';
import type { LargeResultStore } from './large-results';
import type { ToolEntry } from './tool-entries';
import { embeddedDocuments } from '../prompt/embedded-documents';
import { estimateTokens } from '../prompt/tokens';
import { modelSchema, toolArgumentsCheck } from './tool-arguments';
import { ToolFailure } from './tool-failure';
import { callOutcome, type McpToolOutput, toModelOutput } from './model-output';
export type { McpToolOutput } from './model-output';

export interface McpToolHost {
  sessions: McpSessions;
  states: ServerState[];
  configs: McpServerConfig[];
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES' | 'VIEW_RESULT_MAX_BYTES'>;
  acceptsImages: boolean;
  /** A tool with a view (MCP Apps) was called, then ended: the turn shows it (a `data-mcp-app` part); the model sees the text only. */
  onAppCall?: ((call: AppToolCall) => void) | undefined;
  /** Where results longer than one window are kept whole (read on with read_resource). */
  largeResults?: LargeResultStore | undefined;
  /** A tool call's progress (a transient `data-progress` part in the step). */
  onProgress?: ((progress: ToolProgress) => void) | undefined;
  /**
   * A tool call became a task: the conversation records it (it throws a
   * ToolFailure when it cannot take one more: the task is then cancelled).
   * Without it, a task cannot be followed and the call fails.
   */
  onTaskStarted?: ((started: ToolTaskStarted) => Promise<void>) | undefined;
}

/** A server's progress report on one tool call of the turn. */
export interface ToolProgress extends Progress {
  toolCallId: string;
  server: string;
  tool: string;
}

/** A tool call that became a task (MCP Tasks), for the conversation to follow. */
export interface ToolTaskStarted {
  toolCallId: string;
  server: string;
  tool: string;
  task: StartedTask;
}

export { modelToolName } from '../mcp/catalog/tool-names';

/**
 * Whether a call of `tool` runs without asking the user: it is listed in the
 * server's `autoApprove`, or annotated `readOnlyHint: true` by a server
 * configured `trustAnnotations` (a server's own annotations are its claims:
 * they decide only for servers the operator trusts) — and its definition is
 * the approved one (pinned when the tenant first listed it, re-confirmed by
 * the operator, or named by digest in `autoApprove`): a tool that changed
 * asks again (mcp/catalog/definition-check.ts). The one rule for the model's
 * calls and a view's (MCP Apps).
 */
export function autoApproved(
  config: Pick<McpServerConfig, 'trustAnnotations' | 'autoApprove'> | undefined,
  tool: Tool,
  definitions: ServerState['definitions'],
): boolean {
  return approvalRule(config, tool, definitions) === 'auto';
}

/**
 * Every MCP tool of every connected server, as `<server>__<tool>`, schemas
 * passed through — but those only a view may call (MCP Apps visibility
 * `['app']`). Calls `autoApproved` run directly; every other call pauses the
 * turn for an approval. `isError` results are thrown, so the model sees an
 * error it can act on. A tool with a view also reports its call and raw
 * result through `onAppCall`.
 */
export function mcpTools(host: McpToolHost, taken: ReadonlySet<string>): { tools: ToolSet; entries: ToolEntry[] } {
  const tools: ToolSet = {};
  const entries: ToolEntry[] = [];
  // Names already given (the synthetic tools'), and each MCP tool's as it is named.
  const used = new Set(taken);
  for (const state of host.states) {
    if (!isUsable(state)) continue;
    const config = host.configs.find((c) => c.id === state.id);
    // A tool that runs only as a task is never called without one: not offered where no task can be made or followed.
    const taskOnly = new Set(
      host.onTaskStarted
        ? unusableTaskTools(state)
        : state.tools.filter((t) => taskSupportOf(t) === 'required').map((t) => t.name),
    );
    for (const mcpTool of state.tools) {
      if (!toolVisibleTo(mcpTool, 'model') || taskOnly.has(mcpTool.name)) continue;
      const resourceUri = toolViewUri(mcpTool);
      const name = modelToolName(state.id, mcpTool.name, used);
      const approval = approvalRule(config, mcpTool, state.definitions);
      const description = `[server ${state.id}] ${mcpTool.title ?? mcpTool.name}${mcpTool.description ? `: ${mcpTool.description}` : ''}`;
      // One byte string per definition, however the list was read (tool-arguments.ts modelSchema): the tools array holds.
      const parameters = modelSchema(mcpTool.inputSchema) as Record<string, unknown>;
      entries.push({
        name,
        server: state.id,
        tool: mcpTool.name,
        title: mcpTool.title,
        description: mcpTool.description,
        cost: estimateTokens(`${name}${description}${JSON.stringify(parameters)}`),
        definition: { description, parameters },
      });
      tools[name] = tool({
        description,
        // Arguments that do not fit are answered with a tool error at once: never asked about, never sent (tool-arguments.ts).
        inputSchema: jsonSchema(parameters as Parameters<typeof jsonSchema>[0], {
          validate: toolArgumentsCheck(mcpTool.inputSchema),
        }),
        needsApproval: approval !== 'auto',
        // On the call's parts, never sent to the model: the approval card names the server and the tool as the server
        // does (the model's name may be rewritten or suffixed), and says when the definition changed since it was approved.
        metadata: {
          server: state.id,
          tool: mcpTool.name,
          ...(approval === 'changed' || approval === 'unchecked' ? { definition: approval } : {}),
        },
        execute: async (args: unknown, { abortSignal, toolCallId }): Promise<McpToolOutput> => {
          const input = (args ?? {}) as Record<string, unknown>;
          const app =
            resourceUri && host.onAppCall
              ? appCallReporter(host.onAppCall, {
                  toolCallId,
                  server: state.id,
                  tool: mcpTool.name,
                  resourceUri,
                  input,
                })
              : undefined;
          let outcome: CallToolResult | StartedTask;
          try {
            // A stop cancels the request on the server too (notifications/cancelled, or the aborted HTTP request).
            // Progress is asked for on every call: shown in the step, and it keeps a long call alive (TOOL_CALL_MAX_MS).
            outcome = await host.sessions.callTool(state.id, mcpTool.name, input, {
              signal: abortSignal,
              onProgress:
                host.onProgress &&
                ((progress) => host.onProgress!({ toolCallId, server: state.id, tool: mcpTool.name, ...progress })),
            });
          } catch (error) {
            const failure = abortSignal?.aborted ? error : ToolFailure.mcpRequest(state.id, mcpTool.name, error);
            app?.failed(failure instanceof Error ? failure.message : String(failure));
            throw failure;
          }
          if (isStartedTask(outcome)) {
            // The call became a task (MCP Tasks): the turn ends after this step, and the conversation follows the task
            // (src/turn/tasks/); its result replaces this placeholder before the model sees it.
            if (!host.onTaskStarted)
              throw ToolFailure.mcpRequest(
                state.id,
                mcpTool.name,
                new Error('the server made this call a task, which cannot be followed here'),
              );
            await host.onTaskStarted({ toolCallId, server: state.id, tool: mcpTool.name, task: outcome });
            return taskPlaceholder(state.id, mcpTool.name, outcome);
          }
          // The view gets the raw result; the model, its documents as their text (prompt/embedded-documents.ts).
          app?.ended(outcome, host.settings.VIEW_RESULT_MAX_BYTES);
          const documents = await embeddedDocuments(outcome.content ?? [], host.sessions.documents);
          const answered = callOutcome(state.id, mcpTool.name, outcome, toolCallId, host, documents);
          if (answered.kind === 'error') throw new ToolFailure(answered.errorText);
          return answered.output;
        },
        toModelOutput: ({ output }: { output: McpToolOutput }) => toModelOutput(output),
      });
    }
  }
  return { tools, entries };
}

/**
 * The `onAppCall` reports of one call of a tool with a view: the call now,
 * then its raw result (content, structuredContent, isError — what the view's
 * `tool-result` carries) or why it failed. A result past `maxBytes` is not
 * kept for the view (the history holds it): the view gets an error.
 */
function appCallReporter(report: (call: AppToolCall) => void, call: AppToolCall) {
  report(call);
  return {
    failed: (error: string) => report({ ...call, error }),
    ended: ({ content, structuredContent, isError }: CallToolResult, maxBytes: number) => {
      const result = {
        content,
        ...(structuredContent === undefined ? {} : { structuredContent }),
        ...(isError ? { isError } : {}),
      };
      const bytes = new TextEncoder().encode(JSON.stringify(result)).byteLength;
      report(
        bytes <= maxBytes
          ? { ...call, result }
          : { ...call, error: `The result (${humanSize(bytes)}) is too large to show in the view` },
      );
    },
  };
}
