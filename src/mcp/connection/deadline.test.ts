import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { anySignal, PausableDeadline } from './deadline';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PausableDeadline', () => {
  it('aborts after its time limit, with the given reason', () => {
    const reason = new Error('Request timed out');
    const deadline = new PausableDeadline(100, () => reason);
    vi.advanceTimersByTime(99);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
  });

  it('does not count while paused, and counts only the time left once resumed', () => {
    const deadline = new PausableDeadline(100, () => 'timeout');
    vi.advanceTimersByTime(60);
    deadline.pause();
    vi.advanceTimersByTime(10_000); // the user thinking
    expect(deadline.signal.aborted).toBe(false);
    deadline.resume();
    vi.advanceTimersByTime(39);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('restart (a progress report) gives the full time again, up to the hard total', () => {
    const deadline = new PausableDeadline(100, () => 'timeout', { ms: 250, reason: () => 'too long in all' });
    vi.advanceTimersByTime(90);
    deadline.restart();
    vi.advanceTimersByTime(90);
    expect(deadline.signal.aborted).toBe(false);
    deadline.restart();
    vi.advanceTimersByTime(69); // 249 ms in all
    expect(deadline.signal.aborted).toBe(false);
    deadline.restart();
    vi.advanceTimersByTime(1);
    expect(deadline.signal.reason).toBe('too long in all');
  });

  it('without progress the time limit stands; cleared, nothing fires', () => {
    const deadline = new PausableDeadline(100, () => 'timeout', { ms: 1_000, reason: () => 'too long in all' });
    vi.advanceTimersByTime(100);
    expect(deadline.signal.reason).toBe('timeout');
    const cleared = new PausableDeadline(100, () => 'timeout', { ms: 150, reason: () => 'too long in all' });
    cleared.clear();
    vi.advanceTimersByTime(1_000);
    expect(cleared.signal.aborted).toBe(false);
  });

  it('nested pauses: counting starts again only when the last one ends', () => {
    const deadline = new PausableDeadline(100, () => 'timeout');
    deadline.pause();
    deadline.pause();
    deadline.resume();
    vi.advanceTimersByTime(1_000);
    expect(deadline.signal.aborted).toBe(false);
    deadline.resume();
    vi.advanceTimersByTime(100);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('a resume without a pause changes nothing', () => {
    const deadline = new PausableDeadline(100, () => 'timeout');
    vi.advanceTimersByTime(50);
    deadline.resume();
    vi.advanceTimersByTime(50);
    expect(deadline.signal.aborted).toBe(true);
  });

  it('cleared: never aborts', () => {
    const deadline = new PausableDeadline(100, () => 'timeout');
    deadline.clear();
    vi.advanceTimersByTime(1_000);
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('anySignal', () => {
  it('aborts when any of its signals does, with that reason; absent signals are ignored', () => {
    const a = new AbortController();
    const b = new AbortController();
    const signal = anySignal(a.signal, undefined, b.signal);
    expect(signal.aborted).toBe(false);
    b.abort('user cancelled');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('user cancelled');
  });
});
