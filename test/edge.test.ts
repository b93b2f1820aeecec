import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/json-depth';
import { api, createConversation } from './helpers/api';

const errorOf = async (response: Response) => (await response.json<{ error: { code: string; message: string } }>()).error;
const post = (path: string, body: string) => api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('JSON bodies: nesting is bounded at the edge', () => {
  it('100,000 levels inside prompt arguments are a 400 naming the limit, not a 500 from the Durable Object', async () => {
    const id = await createConversation();
    const levels = 100_000;
    const response = await post(`/v1/conversations/${id}/prompts/run?preview=1`, `{"server":"demo","name":"plan_day","arguments":{"hours":${'['.repeat(levels)}${']'.repeat(levels)}}}`);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('invalid_json');
    expect(error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('the limit is generous: brackets inside strings do not count, and real nesting up to it passes the parser', async () => {
    const id = await createConversation();
    // Inside a string: not nesting.
    const inString = await post(`/v1/conversations/${id}/prompts/run?preview=1`, JSON.stringify({ server: 'demo', name: 'plan_day', arguments: { hours: '[[[['.repeat(1000) } }));
    expect(inString.status).not.toBe(500);
    expect((await errorOf(inString)).message).not.toContain('deeper than');
    // At the limit (the body's own two levels included): parsed, then refused by the schema, not for depth.
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const atLimit = await post(`/v1/conversations/${id}/prompts/run?preview=1`, `{"server":"demo","name":"plan_day","arguments":{"hours":${deep(MAX_JSON_DEPTH - 2)}}}`);
    expect((await errorOf(atLimit)).message).not.toContain('deeper than');
    const past = await post(`/v1/conversations/${id}/prompts/run?preview=1`, `{"server":"demo","name":"plan_day","arguments":{"hours":${deep(MAX_JSON_DEPTH - 1)}}}`);
    expect(past.status).toBe(400);
    expect((await errorOf(past)).message).toContain('deeper than');
  });
});
