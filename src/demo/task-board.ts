import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { VIEW_MIME_TYPE } from '../../shared/mcp-apps';
import { TASK_BOARD_URI, taskBoardHtml } from './content/task-board';
import type { DemoStore } from './store';

/**
 * The demo server's MCP Apps part: the task board view (`ui://demo/task-board`),
 * the tool it belongs to (`show_task_board`) and the tool only the view may
 * call (`board_tasks`). Registered by server.ts where the rest of the
 * resources and tools are, so list orders stay as they were.
 */
export function registerTaskBoardView(server: McpServer, store: DemoStore): void {
  // Not in resources/list (the views of tools need not be; the model has no use for HTML): read by hosts through show_task_board's `_meta.ui`.
  server.registerResource(
    'task-board',
    TASK_BOARD_URI,
    { title: 'Task board', description: 'The interactive view of show_task_board.', mimeType: VIEW_MIME_TYPE },
    () => ({
      contents: [
        {
          uri: TASK_BOARD_URI,
          mimeType: VIEW_MIME_TYPE,
          text: taskBoardHtml(store.guidelines().split('\n')[0] ?? ''),
          _meta: { ui: { prefersBorder: true } },
        },
      ],
    }),
  );
}

export function registerTaskBoardTools(server: McpServer, store: DemoStore): void {
  server.registerTool(
    'show_task_board',
    {
      title: 'Show task board',
      description: 'Shows the open tasks as an interactive board: the user can mark tasks done and add tasks there.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { ui: { resourceUri: TASK_BOARD_URI }, 'ui/resourceUri': TASK_BOARD_URI },
    },
    () => {
      const tasks = store.listTasks('open');
      const lines = tasks.map((t) => `- #${t.id} ${t.title}${t.assignee ? ` (${t.assignee})` : ''}`);
      return {
        content: [
          {
            type: 'text',
            text: tasks.length
              ? `The board shows ${tasks.length} open task(s):\n${lines.join('\n')}`
              : 'The board is empty: no open tasks.',
          },
        ],
        structuredContent: { tasks },
      };
    },
  );

  // The board's own refresh: only its view calls it (visibility ['app']); the model has list_tasks.
  server.registerTool(
    'board_tasks',
    {
      title: 'Board tasks',
      description: 'The open tasks, for the task board view.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { ui: { resourceUri: TASK_BOARD_URI, visibility: ['app'] } },
    },
    () => {
      const tasks = store.listTasks('open');
      return { content: [{ type: 'text', text: `${tasks.length} open task(s)` }], structuredContent: { tasks } };
    },
  );
}
