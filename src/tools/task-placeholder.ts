import type { StartedTask } from '../mcp/extensions';
import type { McpToolOutput } from './model-output';

/*
 * A tool call that became a task (MCP Tasks) returns a placeholder to the tool loop instead of a result: the turn
 * stops after its step (turn/stream.ts), the stream shows it as a `data-task` part (turn/settled-tasks.ts), and the
 * conversation replaces it with the task's result before the model sees it. Its own module, without mcp-tools.ts's
 * imports, so the stream's pure stages can use it.
 */

/** What a call that became a task returns to the tool loop: never shown to the model (the turn stops at this step). */
export function taskPlaceholder(server: string, tool: string, started: StartedTask): McpToolOutput {
  const { status, statusMessage } = started.snapshot;
  return {
    server,
    tool,
    text: `[Running as task ${started.taskId}]`,
    images: [],
    task: { taskId: started.taskId, status, ...(statusMessage ? { statusMessage } : {}) },
  };
}

/** Whether a tool output is a task's placeholder (the step's turn stops there: turn/stream.ts). */
export function isTaskPlaceholder(
  output: unknown,
): output is McpToolOutput & { task: NonNullable<McpToolOutput['task']> } {
  return typeof output === 'object' && output !== null && typeof (output as McpToolOutput).task?.taskId === 'string';
}
