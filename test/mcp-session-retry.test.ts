import { describe, expect, it } from 'vitest';
import { McpServerConfigSchema } from '../src/config/servers';
import { McpConnection, type McpConnectionOptions } from '../src/mcp/connection/connection';
import { extensions } from '../src/mcp/extensions';

/** A connection whose live client is a stand-in, so `call` runs without a server (the failures are injected). */
function sessionWithClient() {
  const connection = new McpConnection({
    config: McpServerConfigSchema.parse({ id: 'x', url: 'http://127.0.0.1:1/mcp', transport: 'streamable-http' }),
    env: {} as McpConnectionOptions['env'],
    extensions: extensions.forConnection({ skills: 'all' }),
    settings: {
      MCP_REQUEST_TIMEOUT_MS: 1_000,
      ELICITATION_TIMEOUT_MS: 60_000,
      TOOL_CALL_MAX_MS: 60_000,
      MCP_MAX_RESPONSE_BYTES: 16 * 1024 * 1024,
      MCP_MAX_RESULT_DEPTH: 100,
      MCP_MAX_LIST_PAGES: 100,
    },
    events: { onNotification: () => {}, onStreamLost: () => {} },
    verdicts: { prior: () => undefined, save: () => {} },
  });
  (connection as unknown as { client: object }).client = { getProtocolEra: () => 'legacy' };
  return connection;
}

/** A request that fails with `error` the first `failures` times, then answers "ok". */
function flaky(error: Error, failures = 1) {
  let attempts = 0;
  const request = async () => {
    attempts++;
    if (attempts <= failures) throw error;
    return 'ok';
  };
  return { request, attempts: () => attempts };
}

// workerd's fetch fails with "Network connection lost." when a pooled
// keep-alive connection was closed by the server as the request went out
// (seen under `npm run bench:load`).
describe('McpConnection.call on a dropped connection', () => {
  it('retries an idempotent request once', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'));
    await expect(sessionWithClient().call(request, { method: 'resources/read' })).resolves.toBe('ok');
    expect(attempts()).toBe(2);
  });

  it('gives up after the one retry', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'), 2);
    await expect(sessionWithClient().call(request, { method: 'resources/read' })).rejects.toThrow(
      'Network connection lost',
    );
    expect(attempts()).toBe(2);
  });

  it('never retries a tool call (it may have run)', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'));
    await expect(sessionWithClient().call(request, { idempotent: false, method: 'tools/call' })).rejects.toThrow(
      'Network connection lost',
    );
    expect(attempts()).toBe(1);
  });

  it('does not retry other failures', async () => {
    const { request, attempts } = flaky(new Error('boom'));
    await expect(sessionWithClient().call(request, { method: 'resources/read' })).rejects.toThrow('boom');
    expect(attempts()).toBe(1);
  });
});
