import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { messagesBefore, TRANSCRIPT_FRAME_BYTES, transcriptWindow } from './transcript';

const message = (id: string, text = `text of ${id}`): UIMessage => ({
  id,
  role: id.startsWith('u') ? 'user' : 'assistant',
  parts: [{ type: 'text', text }],
});
/** A message's size as the frame carries it: its JSON, in UTF-8 bytes. */
const bytes = (m: UIMessage) => new TextEncoder().encode(JSON.stringify(m)).byteLength;

describe('transcriptWindow', () => {
  const history = ['u1', 'u2', 'u3', 'u4'].map((id) => message(id, 'same length'));
  const size = bytes(history[0]!);

  it('everything when it all fits', () => {
    expect(transcriptWindow(history)).toEqual({ messages: history, older: 0 });
    expect(transcriptWindow([])).toEqual({ messages: [], older: 0 });
  });

  it('the newest messages whose bytes fit, a message that exactly fills the frame included, and how many are left out', () => {
    expect(history.every((m) => bytes(m) === size)).toBe(true);
    expect(transcriptWindow(history, 2 * size)).toEqual({ messages: history.slice(2), older: 2 });
    expect(transcriptWindow(history, 2 * size - 1)).toEqual({ messages: history.slice(3), older: 3 });
  });

  it('the newest message goes whatever its size', () => {
    const huge = message('a2', 'x'.repeat(5_000));
    expect(transcriptWindow([message('u1'), huge], 100)).toEqual({ messages: [huge], older: 1 });
  });

  it('counts UTF-8 bytes, not characters', () => {
    const accented = [message('u1', 'é'.repeat(100)), message('a1', 'é'.repeat(100))];
    const chars = JSON.stringify(accented[0]).length;
    expect(bytes(accented[0]!)).toBe(chars + 100);
    expect(transcriptWindow(accented, 2 * chars)).toEqual({ messages: [accented[1]], older: 1 });
  });

  it('by default, one frame of TRANSCRIPT_FRAME_BYTES (1 MiB)', () => {
    const long = ['u1', 'u2', 'u3', 'u4'].map((id) => message(id, 'x'.repeat(300_000)));
    expect(3 * bytes(long[0]!)).toBeLessThan(TRANSCRIPT_FRAME_BYTES);
    expect(4 * bytes(long[0]!)).toBeGreaterThan(TRANSCRIPT_FRAME_BYTES);
    expect(transcriptWindow(long)).toEqual({ messages: long.slice(1), older: 1 });
  });
});

describe('messagesBefore', () => {
  const history = ['u1', 'a1', 'u2', 'a2', 'u3'].map((id) => message(id));
  const ids = (page: ReturnType<typeof messagesBefore>) =>
    page && { ids: page.messages.map((m) => m.id), hasMore: page.hasMore };

  it('pages back from the newest, oldest first, hasMore while older messages remain', () => {
    expect(ids(messagesBefore(history, undefined, 2))).toEqual({ ids: ['a2', 'u3'], hasMore: true });
    expect(ids(messagesBefore(history, 'a2', 2))).toEqual({ ids: ['a1', 'u2'], hasMore: true });
    expect(ids(messagesBefore(history, 'a1', 2))).toEqual({ ids: ['u1'], hasMore: false });
    expect(ids(messagesBefore(history, 'u1', 2))).toEqual({ ids: [], hasMore: false });
    expect(ids(messagesBefore(history, undefined, 50))).toEqual({
      ids: ['u1', 'a1', 'u2', 'a2', 'u3'],
      hasMore: false,
    });
  });

  it('undefined for an unknown `before`', () => {
    expect(messagesBefore(history, 'gone', 2)).toBeUndefined();
  });
});
