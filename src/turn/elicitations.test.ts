import { describe, expect, it } from 'vitest';
import { checkedAnswer } from './elicitations';

// SEP-1034's form (the conformance suite's elicitation-sep1034-client-defaults): every field has a default.
const FORM = {
  type: 'object' as const,
  required: [],
  properties: {
    name: { type: 'string' as const, default: 'John Doe' },
    age: { type: 'integer' as const, default: 30 },
    score: { type: 'number' as const, default: 95.5 },
    status: { type: 'string' as const, enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean' as const, default: true },
    note: { type: 'string' as const },
  },
};

describe('checkedAnswer', () => {
  it('fills in the defaults of the fields the person left out, and keeps what they gave', () => {
    expect(checkedAnswer(FORM, { action: 'accept', content: { age: 41, note: 'hi' } })).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 41, score: 95.5, status: 'active', verified: true, note: 'hi' },
    });
    // The person's answer keeps its order (it is shown back as given); the defaults follow.
    expect(Object.keys(checkedAnswer(FORM, { action: 'accept', content: { note: 'a', age: 2 } }).content!)).toEqual([
      'note',
      'age',
      'name',
      'score',
      'status',
      'verified',
    ]);
    expect(checkedAnswer(FORM, { action: 'accept' }).content).toEqual({
      name: 'John Doe',
      age: 30,
      score: 95.5,
      status: 'active',
      verified: true,
    });
  });

  it('a default the server’s own schema refuses is left out, not blamed on the person', () => {
    const bad = { type: 'object' as const, properties: { seats: { type: 'integer' as const, default: 'many' } } };
    expect(checkedAnswer(bad, { action: 'accept', content: {} })).toEqual({ action: 'accept', content: {} });
  });

  it('sends nothing with a decline, and refuses content that does not fit', () => {
    expect(checkedAnswer(FORM, { action: 'decline', content: { age: 1 } })).toEqual({ action: 'decline' });
    expect(() => checkedAnswer(FORM, { action: 'accept', content: { status: 'gone' } })).toThrow(/status/);
  });
});
