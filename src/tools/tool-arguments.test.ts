import { describe, expect, it } from 'vitest';
import { modelSchema, toolArgumentsCheck } from './tool-arguments';

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

describe('modelSchema: one byte string per schema, whatever order its keys came in', () => {
  // The demo server's create_task as the SDK hands it over in each era (2026 keeps the server's order).
  const modern = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { title: { type: 'string', minLength: 1 }, assignee: { description: 'Owner', type: 'string' } },
    required: ['title'],
  };
  const legacy = {
    type: 'object',
    properties: { title: { minLength: 1, type: 'string' }, assignee: { type: 'string', description: 'Owner' } },
    required: ['title'],
    $schema: 'https://json-schema.org/draft/2020-12/schema',
  };

  it('the same JSON for both orders; the arguments keep the server’s order', () => {
    expect(JSON.stringify(modelSchema(legacy))).toBe(JSON.stringify(modelSchema(modern)));
    expect(Object.keys(modelSchema(modern).properties)).toEqual(['title', 'assignee']);
    expect(JSON.stringify(modelSchema(modern))).toBe(
      '{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"title":{"minLength":1,"type":"string"},"assignee":{"description":"Owner","type":"string"}},"required":["title"],"type":"object"}',
    );
  });

  it('orders nested schemas too (items, anyOf, $defs), keeps arrays and the names of definitions as they were', () => {
    const schema = {
      type: 'object',
      $defs: { z: { type: 'string', format: 'date' }, a: { format: 'uri', type: 'string' } },
      properties: {
        when: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/z', description: 'd' }] },
        tags: { items: { type: 'string', enum: ['b', 'a'] }, type: 'array' },
      },
    };
    expect(JSON.stringify(modelSchema(schema))).toBe(
      '{"$defs":{"z":{"format":"date","type":"string"},"a":{"format":"uri","type":"string"}},"properties":{"when":{"anyOf":[{"type":"null"},{"$ref":"#/$defs/z","description":"d"}]},"tags":{"items":{"enum":["b","a"],"type":"string"},"type":"array"}},"type":"object"}',
    );
  });

  it('leaves the listed object as it was, and gives the same object for it every time', () => {
    const before = JSON.stringify(legacy);
    expect(modelSchema(legacy)).toBe(modelSchema(legacy));
    expect(JSON.stringify(legacy)).toBe(before);
  });
});
