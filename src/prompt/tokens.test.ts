import { describe, expect, it } from 'vitest';
import { estimateTokens } from './tokens';

describe('estimateTokens', () => {
  it('about 3.3 characters a token, rounded up', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('x')).toBe(1);
    expect(estimateTokens('x'.repeat(33))).toBe(10);
    expect(estimateTokens('x'.repeat(34))).toBe(11);
    expect(estimateTokens('x'.repeat(3_300))).toBe(1_000);
  });
});
