import { describe, expect, it } from 'vitest';
import { windowEnd } from './window-end';

const lines = (n: number, width = 9) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(width, '.')).join('\n');

describe('windowEnd', () => {
  it('ends after the last whole line when one ends in the window’s last fifth', () => {
    const text = lines(20); // 10 characters a line (with its newline)
    expect(windowEnd([{ text }], 0, 45)).toBe(40);
    expect(text.slice(0, 40).endsWith('\n')).toBe(true);
    // The next window starts there, and ends on a line too.
    expect(windowEnd([{ text }], 40, 45)).toBe(80);
  });

  it('cuts at the window’s size when no line ends in its last fifth (one long line)', () => {
    const text = 'x'.repeat(500);
    expect(windowEnd([{ text }], 0, 100)).toBe(100);
    const late = `${'x'.repeat(50)}\n${'y'.repeat(449)}`; // a newline at 50: too early for a window of 100
    expect(windowEnd([{ text: late }], 0, 100)).toBe(100);
  });

  it('prefers a page start to a line end', () => {
    const text = lines(30);
    const document = { from: 'application/pdf', bytes: 1, parts: { kind: 'page' as const, starts: [0, 90, 200] } };
    expect(windowEnd([{ text, document }], 0, 100)).toBe(90);
    expect(windowEnd([{ text, document }], 90, 100)).toBe(190); // page 3 starts past this window: a line end
  });

  it('the whole rest when it fits; edges counted across entries', () => {
    expect(windowEnd([{ text: 'short' }], 0, 100)).toBe(5);
    const entries = [{ text: 'a'.repeat(85) }, { text: 'b'.repeat(100) }];
    expect(windowEnd(entries, 0, 100)).toBe(85); // the first entry ends in the last fifth
    expect(windowEnd(entries, 85, 100)).toBe(185);
  });
});
