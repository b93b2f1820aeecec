import type { ToolProgress } from '../../shared/api/stream';
import { isUnfinishedToolCall, STOPPED_TOOL_TEXT } from '../../shared/stopped';
import { noteProgress } from './task-card-state';
import type { Message, ToolPart } from './types';

/** A chunk of the AI SDK UI message stream (the fields the widget reads). */
export interface StreamChunk {
  type: string;
  id?: string;
  messageId?: string;
  delta?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approvalId?: string;
  /** What the service says of an MCP tool call (its server, its own name, a changed definition): never the model's. */
  toolMetadata?: ToolPart['toolMetadata'];
  data?: unknown;
  transient?: boolean;
  messageMetadata?: Record<string, unknown>;
}

/**
 * The chunks of a server-sent-events body. Written here rather than taken
 * from `ai` (whose reader would be most of the widget's size): the format is
 * `data: <json>` events ending with `data: [DONE]`. Any line ending (LF,
 * CRLF, CR) is accepted; a last event without its blank line still counts.
 * If the reader stops early (an error, the element removed), the body is
 * cancelled so it does not keep streaming in the background.
 */
export async function* sseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let complete = false;
  const events = function* (final: boolean) {
    // A trailing CR may be the first half of a CRLF split across reads: keep it for the next one.
    const text = final ? buffer : buffer.replace(/\r$/, '');
    const rest = buffer.slice(text.length);
    const blocks = text.replace(/\r\n?/g, '\n').split('\n\n');
    buffer = (final ? '' : blocks.pop()!) + rest;
    for (const block of blocks) {
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data && data !== '[DONE]') yield JSON.parse(data) as StreamChunk;
    }
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        buffer += decoder.decode();
        yield* events(true);
        complete = true;
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      yield* events(false);
    }
  } finally {
    if (!complete) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * Applies one chunk to the assistant message being streamed, the way the AI
 * SDK's own reader builds a `UIMessage`, so a live message and one loaded
 * from history render the same. Returns the error text to show, if the
 * chunk carries one.
 */
export function applyChunk(message: Message, chunk: StreamChunk): { error?: string } | undefined {
  const tool = (id: string | undefined) =>
    message.parts.find((p): p is ToolPart => 'toolCallId' in p && p.toolCallId === id);
  if (chunk.messageMetadata) message.metadata = { ...message.metadata, ...chunk.messageMetadata };
  switch (chunk.type) {
    case 'start':
      if (chunk.messageId) message.id = chunk.messageId;
      return;
    case 'text-start':
      message.parts.push({ type: 'text', text: '' });
      return;
    case 'text-delta': {
      const last = message.parts[message.parts.length - 1];
      if (last?.type === 'text') (last as { text: string }).text += chunk.delta ?? '';
      else message.parts.push({ type: 'text', text: chunk.delta ?? '' });
      return;
    }
    case 'tool-input-start':
    case 'tool-input-available': {
      const existing = tool(chunk.toolCallId);
      if (existing) {
        existing.input = chunk.input ?? existing.input;
        existing.state = chunk.type === 'tool-input-available' ? 'input-available' : existing.state;
        if (chunk.toolMetadata) existing.toolMetadata = chunk.toolMetadata;
      } else {
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId ?? '',
          state: chunk.type === 'tool-input-available' ? 'input-available' : 'input-streaming',
          input: chunk.input,
          ...(chunk.toolMetadata ? { toolMetadata: chunk.toolMetadata } : {}),
        });
      }
      return;
    }
    case 'tool-approval-request': {
      const part = tool(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'approval-requested', approval: { id: chunk.approvalId ?? '' } });
      return;
    }
    case 'tool-output-available': {
      const part = tool(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'output-available', output: chunk.output });
      return;
    }
    case 'tool-output-error':
    case 'tool-input-error': {
      // An invalid tool call (input error) may arrive with no part before it.
      const part = tool(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'output-error', errorText: chunk.errorText });
      else
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId ?? '',
          state: 'output-error',
          input: chunk.input,
          errorText: chunk.errorText ?? '',
        });
      return;
    }
    case 'tool-output-denied': {
      const part = tool(chunk.toolCallId);
      if (part) part.state = 'output-denied';
      return;
    }
    case 'data-progress':
      // A long call's progress (transient: never stored): kept beside the message for its card while it streams.
      if (chunk.data && typeof (chunk.data as ToolProgress).toolCallId === 'string')
        noteProgress(message, chunk.data as ToolProgress, Date.now());
      return;
    case 'error':
      return { error: chunk.errorText ?? 'The answer failed.' };
    case 'abort':
      // Stopped: settled as the service saves it (a call without a result is not shown as still running).
      message.metadata = { ...message.metadata, finishReason: 'stopped', stopped: true };
      for (const part of message.parts)
        if (isUnfinishedToolCall(part)) Object.assign(part, { state: 'output-error', errorText: STOPPED_TOOL_TEXT });
      return;
    default:
      // Data parts belong to the message, as in the AI SDK (so a replay or a reload shows them once);
      // one with an id replaces the earlier part of that type and id (a question, then its answer).
      if (chunk.type.startsWith('data-') && !chunk.transient) {
        const same =
          chunk.id === undefined
            ? undefined
            : message.parts.find((p) => p.type === chunk.type && (p as { id?: string }).id === chunk.id);
        if (same) (same as { data?: unknown }).data = chunk.data;
        else
          message.parts.push({
            type: chunk.type,
            ...(chunk.id === undefined ? {} : { id: chunk.id }),
            data: chunk.data,
          });
      }
      return;
  }
}
