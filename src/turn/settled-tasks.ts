import type { UIMessage, UIMessageChunk } from 'ai';
import type { TaskNotice } from '../../shared/api/stream';
import { isTaskPlaceholder } from '../tools/task-placeholder';
import { plainInvalidInput } from '../tools/tool-failure';

/**
 * The calls of the answer that ended as tasks, as the chunks that say so — for the stream of the turn that goes on
 * after them. A task's result is written into the saved answer by the task follower (turn/tasks/), outside any
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

/**
 * The turn's stream as clients get it, in one stage (each stage costs CPU per chunk, which a long answer streamed token
 * by token feels): an invalid tool call's error in one sentence (tools/tool-failure.ts `plainInvalidInput`); and for
 * tasks, a call that became a task leaves its tool part running, and its placeholder output
 * becomes a `data-task` part (id: the call's) that the conversation updates as the task moves, until the result
 * replaces both; and `resent` (settledTaskChunks) goes right after the `start` chunk (before it, a resuming client
 * would drop it).
 */
export function taskParts<C extends UIMessageChunk>(
  resent: readonly UIMessageChunk[],
  /** Chunks that end the message, written before its `finish` (a used-up budget's notice): one stage, not two. */
  ending: () => readonly UIMessageChunk[] = () => [],
  /** Sees every chunk of the model's stream as it passes (the answer's sources: sources.ts). */
  observe: (chunk: C) => void = () => {},
): TransformStream<C, C> {
  let started = resent.length === 0;
  return new TransformStream({
    transform(chunk, controller) {
      observe(chunk);
      if (chunk.type === 'finish') for (const extra of ending()) controller.enqueue(extra as C);
      if (chunk.type === 'tool-output-available' && isTaskPlaceholder(chunk.output)) {
        const { server, tool, task } = chunk.output;
        const now = Date.now();
        const data: TaskNotice = {
          toolCallId: chunk.toolCallId,
          server,
          tool,
          ...task,
          startedAt: now,
          updatedAt: now,
        };
        controller.enqueue({ type: 'data-task', id: chunk.toolCallId, data } as unknown as C);
        return;
      }
      // The step's invalid tool call, worded as the tool's failure (its text is the AI SDK's chain of errors).
      if (chunk.type === 'tool-input-error') {
        const plain = plainInvalidInput(chunk.errorText);
        if (plain !== undefined) chunk = { ...chunk, errorText: plain };
      }
      controller.enqueue(chunk);
      if (started || chunk.type !== 'start') return;
      started = true;
      for (const extra of resent) controller.enqueue(extra as C);
    },
  });
}
