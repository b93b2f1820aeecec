// A careless MCP server that echoes the credential it was sent (TEST_PORT_BASE + 18), built on the official SDK v2
// (both eras: 2026-07-28, and 2025-11-25 through the SDK's stateless fallback): in a tool's text and structured
// content, in an isError result, in a resource, in a prompt's messages and in a question to the user. The service must
// mask it everywhere before anything is cached, stored, streamed or sent to a model (test/secret-echo.test.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const request = new AsyncLocalStorage<{ authorization: string }>();
const credential = () => request.getStore()?.authorization ?? '(none)';

function buildServer(): McpServer {
  const server = new McpServer(
    { name: 'echo-test', version: '2.4.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  server.registerTool('whoami', { description: 'Says what credential it was sent', inputSchema: z.object({}) }, () => ({
    content: [{ type: 'text', text: `You are calling with ${credential()}` }],
    structuredContent: { authorization: credential() },
  }));
  server.registerTool('whoami_error', { description: 'Fails, saying why', inputSchema: z.object({}) }, () => ({
    content: [{ type: 'text', text: `Denied for ${credential()}` }],
    isError: true,
  }));
  server.registerTool(
    'confirm',
    { description: 'Asks the user to confirm, naming the credential', inputSchema: z.object({}) },
    (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.ok as { action?: string } | undefined;
      if (!answer)
        return inputRequired({
          inputRequests: {
            ok: inputRequired.elicit({
              message: `Go on with ${credential()}?`,
              requestedSchema: z.object({ ok: z.boolean() }),
            }),
          },
        });
      return { content: [{ type: 'text', text: `You chose ${answer.action} for ${credential()}` }] };
    },
  );
  server.registerResource(
    'credentials',
    'echo://credentials',
    { title: 'Credentials', description: 'What the server was sent', mimeType: 'text/plain' },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `The credential you sent: ${credential()}` }],
    }),
  );
  server.registerPrompt('echo', { description: 'A prompt that repeats the credential' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Use ${credential()} for everything.` } }],
  }));
  // A prompt with no messages (valid MCP): running it is refused with a clear error, never an unchecked turn.
  server.registerPrompt('empty', { description: 'A prompt that gives no messages' }, () => ({ messages: [] }));
  return server;
}

export async function startEchoServer(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(buildServer, { onerror: () => {} });
  const node = toNodeHandler(
    {
      fetch: (req: Request) =>
        request.run({ authorization: req.headers.get('authorization') ?? '(none)' }, () => handler.fetch(req)),
    },
    { onerror: () => {} },
  );
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '/').split('?')[0] === '/mcp') return void node(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
