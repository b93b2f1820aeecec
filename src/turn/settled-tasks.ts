import type { UIMessage, UIMessageChunk } from 'ai';
import type { TaskNotice } from '../../shared/api/stream';

/**
 * The calls of the answer that ended as tasks, as the chunks that say so — for the stream of the turn that goes on
 * after them. A task's result is written into the saved answer by the task follower (conversation/tasks/), outside any
 * stream, so without these an HTTP client never hears that the call finished; and the AI SDK's `resumeStream` starts
 * a fresh message when the last one has no call it would continue (ai 7: only input-streaming, provider-executed or
 * approval-responded calls), which would drop the call from its view. Re-sent, each call is rebuilt or updated in
 * place: `tool-input-available` then its output (or error) and its final `data-task` part, all keyed by the call's id,
 * so a client that already holds the answer sees nothing twice.
 */
export function settledTaskChunks(messages: readonly UIMessage[]): UIMessageChunk[] {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') return [];
  const chunks: UIMessageChunk[] = [];
  for (const part of last.parts) {
    if (part.type !== 'data-task') continue;
    const notice = (part as { data: TaskNotice }).data;
    if (notice.status === 'working' || notice.status === 'input_required') continue;
    const call = last.parts.find(
      (p) => p.type.startsWith('tool-') && (p as { toolCallId?: string }).toolCallId === notice.toolCallId,
    ) as { type: string; input?: unknown; state: string; output?: unknown; errorText?: string } | undefined;
    if (!call || (call.state !== 'output-available' && call.state !== 'output-error')) continue;
    const toolCallId = notice.toolCallId;
    chunks.push({
      type: 'tool-input-available',
      toolCallId,
      toolName: call.type.slice('tool-'.length),
      input: call.input,
    });
    chunks.push(
      call.state === 'output-available'
        ? { type: 'tool-output-available', toolCallId, output: call.output }
        : { type: 'tool-output-error', toolCallId, errorText: call.errorText ?? 'The tool failed.' },
    );
    chunks.push({ type: 'data-task', id: toolCallId, data: notice } as UIMessageChunk);
  }
  return chunks;
}

/** Passes a stream through, with `chunks` right after its `start` chunk (before it, a resuming client would drop them). */
export function afterStart<C extends UIMessageChunk>(chunks: readonly UIMessageChunk[]): TransformStream<C, C> {
  let sent = chunks.length === 0;
  return new TransformStream({
    transform(chunk, controller) {
      controller.enqueue(chunk);
      if (sent || chunk.type !== 'start') return;
      sent = true;
      for (const extra of chunks) controller.enqueue(extra as C);
    },
  });
}
