/**
 * What a stop does to a tool call that had no result yet: the one rule, used
 * by the service when it saves a stopped answer (turn.ts) and by the widget
 * when it sees the stream's `abort` (widget/src/ui-stream.ts), so both show
 * the same thing. Dependency-free: the widget bundles it.
 */
export const STOPPED_TOOL_TEXT =
  'Stopped by the user before this tool call finished; whether it took effect on the server is unknown.';

/** A tool call in one of these states has no result; after a stop it gets an error result. */
const UNFINISHED = new Set(['input-streaming', 'input-available', 'approval-responded']);

export function isUnfinishedToolCall(part: object): boolean {
  const state = (part as { state?: unknown }).state;
  return 'toolCallId' in part && typeof state === 'string' && UNFINISHED.has(state);
}
