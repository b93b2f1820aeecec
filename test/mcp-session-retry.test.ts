import { describe, expect, it } from 'vitest';
import { McpSession } from '../src/mcp/session';

/** A session whose live client is a stand-in, so `call` runs without a server. */
function sessionWithClient() {
  const session = new McpSession(
    { id: 'x', url: 'http://127.0.0.1:1/mcp', transport: 'streamable-http' } as ConstructorParameters<typeof McpSession>[0],
    {} as ConstructorParameters<typeof McpSession>[1],
    { MCP_REQUEST_TIMEOUT_MS: 1_000, MCP_MAX_RESPONSE_BYTES: 16 * 1024 * 1024, MCP_MAX_RESULT_DEPTH: 100 },
    { onNotification: () => {} } as unknown as ConstructorParameters<typeof McpSession>[3],
  );
  (session as unknown as { client: object }).client = {};
  return session;
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
describe('McpSession.call on a dropped connection', () => {
  it('retries an idempotent request once', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'));
    await expect(sessionWithClient().call(request)).resolves.toBe('ok');
    expect(attempts()).toBe(2);
  });

  it('gives up after the one retry', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'), 2);
    await expect(sessionWithClient().call(request)).rejects.toThrow('Network connection lost');
    expect(attempts()).toBe(2);
  });

  it('never retries a tool call (it may have run)', async () => {
    const { request, attempts } = flaky(new Error('Network connection lost.'));
    await expect(sessionWithClient().call(request, { idempotent: false })).rejects.toThrow('Network connection lost');
    expect(attempts()).toBe(1);
  });

  it('does not retry other failures', async () => {
    const { request, attempts } = flaky(new Error('boom'));
    await expect(sessionWithClient().call(request)).rejects.toThrow('boom');
    expect(attempts()).toBe(1);
  });
});
