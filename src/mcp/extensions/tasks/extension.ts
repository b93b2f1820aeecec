import type { McpExtension } from '../registry';
import { acceptTaskResults, TASKS_EXTENSION } from './task-results';

/**
 * MCP Tasks (2026, SEP-2663; and the 2025-11-25 `tasks/*` methods): a long
 * tool call may come back as a task, which the conversation follows from
 * its alarm (turn/tasks/) and shows as a `data-task` part.
 */
export const tasksExtension: McpExtension = {
  id: TASKS_EXTENSION,
  clientCapability: () => ({}),
  // The SDK would refuse a `tools/call` answered with a task: task-results.ts hands it over as a result it accepts.
  wrapTransport: acceptTaskResults,
};
