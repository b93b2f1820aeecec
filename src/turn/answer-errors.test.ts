import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import { describe, expect, it } from 'vitest';
import { describeAnswerErrors } from './answer-errors';

const schema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', title: 'Email' },
    name: { type: 'string', minLength: 2, maxLength: 40 },
    seats: { type: 'integer', minimum: 1, maximum: 50, title: 'Seats' },
    ok: { type: 'boolean' },
    plan: { type: 'string', enum: ['free', 'team'] },
    topic: {
      type: 'string',
      oneOf: [
        { const: 'programming', title: 'Python programming language' },
        { const: 'snake', title: 'Python snake species' },
      ],
    },
  },
  required: ['name'],
};

/** What the validator the service uses says of `content`, in words. */
function explain(content: Record<string, unknown>): string {
  const check = new CfWorkerJsonSchemaValidator().getValidator(schema as never)(content);
  expect(check.valid).toBe(false);
  return describeAnswerErrors(schema, check.errorMessage ?? '');
}

describe('why an answer was refused, in words', () => {
  it('names the field by its title and says what it expects', () => {
    expect(explain({ name: 'Ada', email: 'not an address' })).toBe('"Email" (email) must be an email address.');
    expect(explain({ name: 'Ada', seats: 0 })).toBe('"Seats" (seats) must be a whole number from 1 to 50.');
    expect(explain({ name: 'A' })).toBe('"name" must be text of 2 to 40 characters.');
    expect(explain({ name: 'Ada', ok: 'yes' })).toBe('"ok" must be yes or no.');
    expect(explain({ name: 'Ada', plan: 'pro' })).toBe('"plan" must be one of: "free", "team".');
    expect(explain({ name: 'Ada', topic: 'lizard' })).toBe(
      '"topic" must be one of: "programming" (Python programming language), "snake" (Python snake species).',
    );
  });

  it('says a missing field is required', () => {
    expect(explain({})).toBe('"name" is required.');
  });

  it('never passes on the validator’s locations', () => {
    expect(explain({ name: 'Ada', email: 'x' })).not.toMatch(/#\//);
  });
});
