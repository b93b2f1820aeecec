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
  data?: unknown;
}

/**
 * The chunks of a server-sent-events body, in order. Written here rather than
 * taken from `ai` (whose reader would be most of the widget's size): the
 * format is `data: <json>` events ending with `data: [DONE]`.
 */
export async function* sseChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = event
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (!data || data === '[DONE]') continue;
        yield JSON.parse(data) as StreamChunk;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * Applies one chunk to the assistant message being streamed, the way the AI
 * SDK's own reader builds a `UIMessage`, so a live message and one loaded
 * from history render the same. Returns a notice or error text to show, if
 * the chunk carries one.
 */
export function applyChunk(message: Message, chunk: StreamChunk): { notice?: string; error?: string } | undefined {
  const tool = (id: string | undefined) => message.parts.find((p): p is ToolPart => 'toolCallId' in p && p.toolCallId === id);
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
      } else {
        message.parts.push({
          type: `tool-${chunk.toolName}`,
          toolCallId: chunk.toolCallId ?? '',
          state: chunk.type === 'tool-input-available' ? 'input-available' : 'input-streaming',
          input: chunk.input,
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
      const part = tool(chunk.toolCallId);
      if (part) Object.assign(part, { state: 'output-error', errorText: chunk.errorText });
      return;
    }
    case 'tool-output-denied': {
      const part = tool(chunk.toolCallId);
      if (part) part.state = 'output-denied';
      return;
    }
    case 'error':
      return { error: chunk.errorText ?? 'The answer failed.' };
    default:
      if (chunk.type.startsWith('data-')) {
        const text = (chunk.data as { message?: unknown } | undefined)?.message;
        if (typeof text === 'string') return { notice: text };
      }
      return;
  }
}
