import type { Transport } from '@modelcontextprotocol/client';
import { hookIncoming } from '../../connection/incoming';
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';

/** The Tasks extension's id (declared through extension.ts). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The SDK v2 client refuses a 2026 `tools/call` answered with
 * `resultType: "task"` (MCP Tasks, SEP-2663) — `UNSUPPORTED_RESULT_TYPE`,
 * before any caller schema — so no task would ever reach us. This sits
 * between the transport and the SDK (as lenient-results.ts does) and hands
 * such an answer over as a result the SDK accepts: `resultType: "complete"`,
 * no content, `isError` (which spares it the SDK's outputSchema check), and
 * the task itself under TASK_RESULT_KEY in `_meta`, which McpSessions reads
 * (`taskOf`). Only answers to our own 2026 `tools/call` requests are touched:
 * a task for any other method is invalid (the SEP), and the SDK says so.
 */

/** Where a task answer travels inside the result the SDK sees (our own key: no server sends it). */
export const TASK_RESULT_KEY = 'mcp-ondemand/task';

/** Requests remembered while unanswered (a request never answered must not grow this for good). */
const MAX_PENDING = 1_000;

export function acceptTaskResults<T extends Transport>(transport: T): T {
  const calls = new Set<string | number>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message && message.method === 'tools/call') {
      const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
      if (typeof meta?.[PROTOCOL_VERSION_META_KEY] === 'string') {
        if (calls.size >= MAX_PENDING) calls.delete(calls.values().next().value!);
        calls.add(message.id);
      }
    }
    return send(message, options);
  };
  // Inside the lenient layer (mcp/connection/incoming.ts): it has mended the message before this sees it.
  return hookIncoming(transport, (message, next) => {
    if (
      'id' in message &&
      message.id !== undefined &&
      calls.delete(message.id as string | number) &&
      'result' in message
    ) {
      const result = message.result as Record<string, unknown>;
      if (result.resultType === 'task') {
        const { resultType: _task, content: _content, _meta, ...task } = result;
        message = {
          ...message,
          result: {
            resultType: 'complete',
            content: [],
            isError: true,
            _meta: { ...(_meta as object), [TASK_RESULT_KEY]: task },
          },
        };
      }
    }
    next(message);
  });
}
