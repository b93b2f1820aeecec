import type { UIMessageChunk } from 'ai';

/**
 * The chunks of the turn being streamed, kept in memory so a client that
 * was cut off can pick the stream up again (`GET …/stream`): it gets
 * every chunk so far, then the rest live. Chunks go into this buffer whether
 * or not a client is reading, so a disconnect never stops the turn.
 */
export class LiveStream {
  private readonly chunks: UIMessageChunk[] = [];
  private readonly readers = new Set<ReadableStreamDefaultController<UIMessageChunk>>();
  private finished = false;
  private markFinished!: () => void;
  /** Resolves when the turn's stream has ended (completed, stopped or failed, and saved). */
  readonly ended = new Promise<void>((resolve) => (this.markFinished = resolve));

  /** `notices` (data chunks) are sent right after the stream's `start` chunk. */
  constructor(
    source: ReadableStream<UIMessageChunk>,
    private readonly notices: UIMessageChunk[] = [],
  ) {
    void this.pump(source);
  }

  get done(): boolean {
    return this.finished;
  }

  /** The turn asked the client about this tool call: its approval, or its input (a tool the client runs). */
  asked(toolCallId: string): boolean {
    return this.chunks.some(
      (chunk) =>
        (chunk.type === 'tool-approval-request' || chunk.type === 'tool-input-available') &&
        chunk.toolCallId === toolCallId,
    );
  }

  /** A new reader: everything so far, then live chunks until the turn ends. */
  reader(): ReadableStream<UIMessageChunk> {
    let self: ReadableStreamDefaultController<UIMessageChunk>;
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        self = controller;
        for (const chunk of this.chunks) controller.enqueue(chunk);
        if (this.finished) controller.close();
        else this.readers.add(controller);
      },
      cancel: () => {
        this.readers.delete(self);
      },
    });
  }

  private async pump(source: ReadableStream<UIMessageChunk>) {
    const iterator = source.getReader();
    const add = (chunk: UIMessageChunk) => {
      this.chunks.push(chunk);
      for (const reader of this.readers) reader.enqueue(chunk);
    };
    try {
      for (;;) {
        const { done, value } = await iterator.read();
        if (done) break;
        for (const chunk of value.type === 'start' ? [value, ...this.notices] : [value]) add(chunk);
      }
    } catch {
      // The UI message stream turns a turn's failures into chunks; a source that fails anyway must not end as a
      // stream that looks complete (nor as an unhandled rejection): readers get an error chunk.
      add({ type: 'error', errorText: 'The turn stream broke off' });
    } finally {
      this.finished = true;
      this.markFinished();
      for (const reader of this.readers) reader.close();
      this.readers.clear();
    }
  }
}
