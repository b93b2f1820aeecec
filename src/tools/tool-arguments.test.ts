import { describe, expect, it } from 'vitest';
import { toolArgumentsCheck } from './tool-arguments';

const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string' },
    verbose: { type: 'boolean' },
    maybe: { type: ['string', 'null'] },
    anything: {},
  },
  required: ['region'],
};

describe('toolArgumentsCheck', () => {
  const check = toolArgumentsCheck(SCHEMA);

  it('drops a null for an optional argument that does not take null: the model leaving it out', () => {
    expect(check({ region: 'us-east1', verbose: null })).toEqual({ success: true, value: { region: 'us-east1' } });
  });

  it('keeps a null the schema allows, and one whose schema says no type', () => {
    expect(check({ region: 'eu', maybe: null, anything: null })).toEqual({
      success: true,
      value: { region: 'eu', maybe: null, anything: null },
    });
  });

  it('still refuses a null for a required argument, naming it', () => {
    const result = check({ region: null });
    expect(result.success).toBe(false);
    expect(!result.success && result.error.message).toMatch(/argument "region"/);
  });
});
