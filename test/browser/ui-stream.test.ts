// The widget's SSE reader and chunk reducer (widget/src/ui-stream.ts), in
// Node: the byte-level cases a browser test cannot aim at.
import { describe, expect, it } from 'vitest';
import { applyChunk, sseChunks, type StreamChunk } from '../../widget/src/ui-stream';
import type { Message } from '../../widget/src/types';

/** A body delivered in the given pieces, as a network may split it. */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

async function chunks(stream: ReadableStream<Uint8Array>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of sseChunks(stream)) out.push(chunk);
  return out;
}

describe('the widget reading a UI message stream', () => {
  it('reads events split anywhere, with LF, CRLF or CR line endings, and a last event without its blank line', async () => {
    const events = [
      'data: {"type":"start","messageId":"m1"}',
      'data: {"type":"text-delta","id":"t","delta":"héllo"}',
      'data: [DONE]',
    ];
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = events.join(eol + eol) + eol + eol;
      // Split inside a CRLF and inside a multi-byte character.
      const bytes = new TextEncoder().encode(text);
      const cut =
        text.indexOf('\r\n') > 0 ? new TextEncoder().encode(text.slice(0, text.indexOf('\r\n') + 1)).length : 10;
      const split = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, cut));
          const e = bytes.indexOf(0xc3);
          controller.enqueue(bytes.slice(cut, e + 1));
          controller.enqueue(bytes.slice(e + 1));
          controller.close();
        },
      });
      expect(
        (await chunks(split)).map((c) => c.delta ?? c.type),
        JSON.stringify(eol),
      ).toEqual(['start', 'héllo']);
    }
    expect(await chunks(body('data: {"type":"finish"}'))).toEqual([{ type: 'finish' }]);
  });

  it('builds the message as the AI SDK does: text, tool steps, approvals, invalid tool calls, data parts, metadata', () => {
    const message: Message = { id: '', role: 'assistant', parts: [] };
    const apply = (chunk: StreamChunk) => applyChunk(message, chunk);
    apply({ type: 'start', messageId: 'm1' });
    apply({ type: 'data-notice', data: { message: 'Pinned resource skipped' } });
    apply({
      type: 'tool-input-available',
      toolCallId: 'a',
      toolName: 'read_resource',
      input: { uri: 'task://guidelines' },
    });
    apply({ type: 'tool-output-available', toolCallId: 'a', output: { text: 'Guidelines' } });
    apply({
      type: 'tool-input-error',
      toolCallId: 'b',
      toolName: 'demo__create_task',
      input: {},
      errorText: 'title is required',
    });
    apply({ type: 'tool-input-available', toolCallId: 'c', toolName: 'demo__create_task', input: { title: 'x' } });
    apply({ type: 'tool-approval-request', toolCallId: 'c', approvalId: 'ap1' });
    apply({ type: 'text-start', id: 't' });
    apply({ type: 'text-delta', id: 't', delta: 'Hello ' });
    apply({ type: 'text-delta', id: 't', delta: 'world' });
    expect(apply({ type: 'error', errorText: 'model failed' })).toEqual({ error: 'model failed' });
    apply({ type: 'finish', messageMetadata: { finishReason: 'step-limit' } });
    expect(message).toEqual({
      id: 'm1',
      role: 'assistant',
      metadata: { finishReason: 'step-limit' },
      parts: [
        { type: 'data-notice', data: { message: 'Pinned resource skipped' } },
        {
          type: 'tool-read_resource',
          toolCallId: 'a',
          state: 'output-available',
          input: { uri: 'task://guidelines' },
          output: { text: 'Guidelines' },
        },
        {
          type: 'tool-demo__create_task',
          toolCallId: 'b',
          state: 'output-error',
          input: {},
          errorText: 'title is required',
        },
        {
          type: 'tool-demo__create_task',
          toolCallId: 'c',
          state: 'approval-requested',
          input: { title: 'x' },
          approval: { id: 'ap1' },
        },
        { type: 'text', text: 'Hello world' },
      ],
    });
  });
});
