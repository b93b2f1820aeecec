import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesceDeltas, coalescing } from './coalesce-deltas';

type Part = LanguageModelV4StreamPart;

const text = (delta: string, id = 't1'): Part => ({ type: 'text-delta', id, delta });
const toolCall: Part = { type: 'tool-call', toolCallId: 'c1', toolName: 'search', input: '{"q":"x"}' };
const finish = { type: 'finish' } as Part;

/** A real timer, taken before the fake ones: lets the reads settle. */
const realSetTimeout = globalThis.setTimeout;
const settled = () => new Promise<void>((resolve) => realSetTimeout(resolve, 0));
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
afterEach(() => void vi.useRealTimers());

/** The transform with a reader always waiting: `out` is what has come out so far. */
function coalesce(windowMs = 30) {
  const transform = coalescing(windowMs);
  const writer = transform.writable.getWriter();
  const reader = transform.readable.getReader();
  const out: Part[] = [];
  const reading = (async () => {
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
  })();
  return {
    out,
    reader,
    write: (...parts: Part[]) => Promise.all(parts.map((part) => writer.write(part))),
    end: () => writer.close().then(() => reading),
  };
}

describe('coalescing', () => {
  it('merges deltas of one part arriving within the window into one chunk, in order', async () => {
    const s = coalesce();
    await s.write({ type: 'text-start', id: 't1' }, text('Hel'));
    vi.advanceTimersByTime(10);
    await s.write(text('lo'));
    vi.advanceTimersByTime(10);
    await s.write(text(' world'), { type: 'text-end', id: 't1' });
    await s.end();
    expect(s.out).toEqual([{ type: 'text-start', id: 't1' }, text('Hello world'), { type: 'text-end', id: 't1' }]);
  });

  it('keeps deltas of different parts or kinds apart', async () => {
    const s = coalesce();
    await s.write(
      text('a', 't1'),
      text('b', 't2'),
      { type: 'reasoning-delta', id: 't2', delta: 'c' },
      { type: 'reasoning-delta', id: 't2', delta: 'd' },
    );
    await s.write(
      { type: 'tool-input-delta', id: 'c1', delta: '{"q":' },
      { type: 'tool-input-delta', id: 'c1', delta: '"x"}' },
    );
    await s.end();
    expect(s.out).toEqual([
      text('a', 't1'),
      text('b', 't2'),
      { type: 'reasoning-delta', id: 't2', delta: 'cd' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"q":"x"}' },
    ]);
  });

  it('any other part flushes the held text first, then passes through unchanged', async () => {
    const s = coalesce();
    await s.write(text('a'), text('b'), toolCall, text('c'), finish);
    await s.end();
    expect(s.out).toEqual([text('ab'), toolCall, text('c'), finish]);
  });

  it('a delta with provider metadata is never merged (and flushes what is held)', async () => {
    const signed: Part = {
      type: 'reasoning-delta',
      id: 'r1',
      delta: '',
      providerMetadata: { anthropic: { signature: 'sig' } },
    };
    const s = coalesce();
    await s.write({ type: 'reasoning-delta', id: 'r1', delta: 'think' }, signed, {
      type: 'reasoning-delta',
      id: 'r1',
      delta: 'more',
    });
    await s.end();
    expect(s.out).toEqual([
      { type: 'reasoning-delta', id: 'r1', delta: 'think' },
      signed,
      { type: 'reasoning-delta', id: 'r1', delta: 'more' },
    ]);
  });

  it('what is held goes out when the window ends, without waiting for the next part', async () => {
    const s = coalesce();
    await s.write(text('a'), text('b'));
    vi.advanceTimersByTime(29);
    await settled();
    expect(s.out).toEqual([]);
    vi.advanceTimersByTime(1);
    await settled();
    expect(s.out).toEqual([text('ab')]);
    await s.write(text('c'));
    await s.end();
    expect(s.out).toEqual([text('ab'), text('c')]);
  });

  it('a delta arriving after the window has passed (timer not yet run) is sent with what is held', async () => {
    const s = coalesce();
    await s.write(text('a'));
    vi.setSystemTime(Date.now() + 30); // the clock moves, the timer has not fired (a busy event loop)
    await s.write(text('b'));
    await settled();
    expect(s.out).toEqual([text('ab')]);
    await s.end();
    expect(s.out).toEqual([text('ab')]);
  });

  it('nothing held is lost when the stream ends', async () => {
    const s = coalesce();
    await s.write(text('last words'));
    await s.end();
    expect(s.out).toEqual([text('last words')]);
  });

  // Was a bug: the window's timer was not cleared when the stream was cancelled (an aborted model request) while a
  // delta was held; it then enqueued into the closed stream and threw from the timer callback, uncaught.
  it('a stream cancelled while a delta is held: the window timer ends quietly', async () => {
    const s = coalesce();
    await s.write(text('a'));
    await s.reader.cancel();
    expect(() => vi.advanceTimersByTime(30)).not.toThrow();
  });
});

describe('coalesceDeltas middleware', () => {
  it("pipes the model's stream through the window and keeps the rest of its result", async () => {
    const stream = new ReadableStream<Part>({
      start(c) {
        for (const part of [text('a'), text('b'), finish]) c.enqueue(part);
        c.close();
      },
    });
    const wrap = coalesceDeltas(30).wrapStream!;
    const result = await wrap({ doStream: async () => ({ stream, response: { id: 'r1' } }) } as unknown as Parameters<
      typeof wrap
    >[0]);
    expect(result.response).toEqual({ id: 'r1' });
    const out: Part[] = [];
    const reader = result.stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    expect(out).toEqual([text('ab'), finish]);
  });

  it('a window of 0 leaves the stream alone', () => {
    expect(coalesceDeltas(0).wrapStream).toBeUndefined();
  });
});
