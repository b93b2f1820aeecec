import { exports } from 'cloudflare:workers';
import { Client, StreamableHTTPClientTransport, type Notification } from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';

export const DEMO_URL = 'http://localhost/demo/mcp';

/**
 * An official MCP SDK (v2) client talking Streamable HTTP to the Worker's
 * /demo/mcp route: 2026-07-28 by default (`server/discover`), or a 2025-11-25
 * session (`initialize`) when a test needs that era.
 */
export async function connectDemoClient(
  name = 'test-client',
  { protocol = 'auto' }: { protocol?: 'auto' | '2025-11-25' } = {},
) {
  const notifications: Notification[] = [];
  const client = new Client(
    { name, version: '1.0.0' },
    {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: protocol === 'auto' ? 'auto' : 'legacy' },
    },
  );
  client.fallbackNotificationHandler = async (notification) => void notifications.push(notification);
  const transport = new StreamableHTTPClientTransport(new URL(DEMO_URL), {
    fetch: (input, init) => exports.default.fetch(input, init),
  });
  await client.connect(transport);
  return { client, transport, notifications };
}

/** Titles of every task on the demo server, asked by a separate client (what a user would check). */
export async function demoTaskTitles(): Promise<string[]> {
  const { client } = await connectDemoClient('checker');
  const result = await client.callTool({ name: 'list_tasks', arguments: { status: 'all' } });
  await client.close();
  return (result.structuredContent as { tasks: Array<{ title: string }> }).tasks.map((t) => t.title);
}

/** Polls until `read` gives a value (notifications arrive asynchronously over SSE). */
export async function waitFor<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
