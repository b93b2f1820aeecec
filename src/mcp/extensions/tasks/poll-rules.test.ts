import { describe, expect, it } from 'vitest';
import { pollDelay, taskEnded } from './poll-rules';

describe('the poll rules every task follower uses', () => {
  it('looks again after the server’s pollIntervalMs, kept within the follower’s bounds', () => {
    const bounds = { min: 100, max: 5_000, fallback: 1_000 };
    expect(pollDelay(250, bounds)).toBe(250);
    expect(pollDelay(10, bounds)).toBe(100);
    expect(pollDelay(60_000, bounds)).toBe(5_000);
    expect(pollDelay(undefined, bounds)).toBe(1_000);
    expect(pollDelay(undefined, { min: 500, max: 30_000 })).toBe(500);
  });

  it('stops at completed, failed and cancelled; working and input_required go on', () => {
    expect(['completed', 'failed', 'cancelled'].every((s) => taskEnded(s as never))).toBe(true);
    expect(taskEnded('working')).toBe(false);
    expect(taskEnded('input_required')).toBe(false);
  });
});
