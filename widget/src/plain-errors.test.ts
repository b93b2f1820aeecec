import { describe, expect, it } from 'vitest';
import { ChatError } from './api';
import { plainError } from './plain-errors';

describe('plainError', () => {
  it('a used-up budget: the service’s sentence, plainly, and no retry (it would be refused again)', () => {
    const sentence =
      "This workspace's budget of $50.00 a month is used up ($50.12 spent); it resets on 2027-01-01 00:00 UTC.";
    expect(plainError(new ChatError(429, 'budget_exceeded', sentence, 2_000_000))).toEqual({
      title: 'The usage budget is used up.',
      detail: sentence,
      retryable: false,
    });
  });

  it('a rate limit still offers to try again, with the wait', () => {
    expect(plainError(new ChatError(429, 'rate_limited', 'Too many turns.', 7))).toMatchObject({
      retryable: true,
      detail: expect.stringContaining('7 s'),
    });
  });
});
