import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

const worker = exports.default;

describe('GET /health', () => {
  it('reports name and version, with a request id', async () => {
    const response = await worker.fetch('http://example.com/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', name: 'mcp-ondemand', version: pkg.version });
    expect(response.headers.get('x-request-id')).toMatch(/.{8,}/);
  });

  it('echoes a caller-supplied request id', async () => {
    const response = await worker.fetch('http://example.com/health', { headers: { 'X-Request-Id': 'trace-abc-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
  });
});

describe('errors', () => {
  it('answers unknown routes with a JSON 404', async () => {
    const response = await worker.fetch('http://example.com/nope', { method: 'PUT' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ error: { code: 'not_found', message: 'No route for PUT /nope' } });
  });
});
