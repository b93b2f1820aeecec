import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { ApiError } from '../src/errors';

const load = (MCP_SERVERS: string) => loadConfig({ MCP_SERVERS });

function configError(MCP_SERVERS: string): ApiError {
  try {
    load(MCP_SERVERS);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an invalid_config error');
}

describe('MCP_SERVERS', () => {
  it('defaults to the demo server when empty', () => {
    expect(load('').mcpServers).toEqual([{ id: 'demo', url: '/demo/mcp', transport: 'auto', headers: {} }]);
  });

  it('accepts absolute URLs, transports and secret-named headers', () => {
    const config = load('[{"id":"tracker","url":"https://mcp.example.com/mcp","transport":"sse","headers":{"Authorization":"secret:TRACKER_TOKEN"}}]');
    expect(config.mcpServers[0]).toEqual({
      id: 'tracker',
      url: 'https://mcp.example.com/mcp',
      transport: 'sse',
      headers: { Authorization: 'secret:TRACKER_TOKEN' },
    });
  });

  it.each([
    ['not json', 'MCP_SERVERS is not valid JSON'],
    ['{"id":"x"}', 'MCP_SERVERS is invalid: (root): '],
    ['[{"id":"Bad Id","url":"/x"}]', '[0].id: id must be'],
    ['[{"id":"a","url":"relative/path"}]', '[0].url: url must be absolute or a path of this Worker'],
    ['[{"id":"a","url":"/a"},{"id":"a","url":"/b"}]', '[1].id: duplicate server id "a"'],
    ['[{"id":"a","url":"/a","transport":"stdio"}]', '[0].transport'],
    ['[{"id":"a","url":"/a","token":"x"}]', 'Unrecognized key'],
  ])('rejects %s with a message naming the problem', (raw, expected) => {
    const error = configError(raw);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain(expected);
  });
});
