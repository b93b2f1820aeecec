import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { LiveStream } from './live-stream';

/** A turn whose chunks the test pushes one by one. */
function scripted(notices?: UIMessageChunk[]) {
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;
  const stream = new LiveStream(new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) }), notices);
  const push = (...chunks: UIMessageChunk[]) => {
    for (const chunk of chunks) controller.enqueue(chunk);
  };
  return { stream, push, end: () => controller.close() };
}

/** Lets the stream's pump take in what was pushed. */
const settled = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function readAll(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return chunks;
}

const start: UIMessageChunk = { type: 'start', messageId: 'a1' };
const textStart: UIMessageChunk = { type: 'text-start', id: 't' };
const delta = (text: string): UIMessageChunk => ({ type: 'text-delta', id: 't', delta: text });
const finish: UIMessageChunk = { type: 'finish' };

describe('LiveStream', () => {
  it('a reader that joins late gets every chunk so far at once, then the rest live', async () => {
    const { stream, push, end } = scripted();
    push(start, textStart, delta('Hel'));
    await settled();
    const late = stream.reader().getReader();
    expect([await late.read(), await late.read(), await late.read()].map((r) => r.value)).toEqual([
      start,
      textStart,
      delta('Hel'),
    ]);
    const next = late.read();
    push(delta('lo'));
    expect((await next).value).toEqual(delta('lo'));
    push(finish);
    end();
    expect(await late.read()).toEqual({ value: finish, done: false });
    expect((await late.read()).done).toBe(true);
  });

  it("sends the notices right after the source's start chunk, to every reader", async () => {
    const notice: UIMessageChunk = { type: 'data-notice', data: { message: 'docs is unreachable' } };
    const { stream, push, end } = scripted([notice]);
    const early = readAll(stream.reader());
    push(start, textStart);
    await settled();
    const late = readAll(stream.reader());
    push(delta('hi'), finish);
    end();
    const expected = [start, notice, textStart, delta('hi'), finish];
    expect(await early).toEqual(expected);
    expect(await late).toEqual(expected);
  });

  it('done and ended only once the source has ended (read or not); a reader after that gets everything and closes', async () => {
    const { stream, push, end } = scripted();
    push(start, finish);
    await settled();
    expect(stream.done).toBe(false);
    let ended = false;
    void stream.ended.then(() => (ended = true));
    await settled();
    expect(ended).toBe(false);
    end();
    await stream.ended;
    expect(stream.done).toBe(true);
    expect(await readAll(stream.reader())).toEqual([start, finish]);
  });

  it('a reader that cancels does not stop the stream for the others, nor drop chunks from the buffer', async () => {
    const { stream, push, end } = scripted();
    const leaving = stream.reader().getReader();
    const staying = readAll(stream.reader());
    push(start, delta('a'));
    expect((await leaving.read()).value).toEqual(start);
    await leaving.cancel();
    push(delta('b'), finish);
    end();
    await stream.ended;
    expect(await staying).toEqual([start, delta('a'), delta('b'), finish]);
    expect(await readAll(stream.reader())).toEqual([start, delta('a'), delta('b'), finish]);
  });

  it('a source that fails ends with an error chunk, never as a stream that looks complete', async () => {
    let controller!: ReadableStreamDefaultController<UIMessageChunk>;
    const stream = new LiveStream(new ReadableStream<UIMessageChunk>({ start: (c) => void (controller = c) }));
    const reading = readAll(stream.reader());
    controller.enqueue(start);
    await settled();
    controller.error(new Error('socket reset'));
    await stream.ended;
    expect(await reading).toEqual([start, { type: 'error', errorText: 'The turn stream broke off' }]);
  });
});
