// A Streamable HTTP bridge to a stdio-only MCP server (TEST_PORT_BASE + 51, `/mcp`): the real
// `@modelcontextprotocol/server-filesystem`, a child process (`node …/dist/index.js <folder>`) reached over stdio by an
// SDK v2 client, served over HTTP by an SDK v2 low-level `Server` (createMcpHandler, both eras: 2025 requests answered
// statelessly) that forwards every request of what the child declares (tools, resources, prompts) and returns its
// answer unchanged. The service speaks Streamable HTTP only; this is how a stdio server reaches it in tests
// (`bridgeStdioServer`: server-pdf too, test/infra/pdf-server.ts).
//
// The folder (a temp dir, `inject('filesystemFolder')`), for test/documents-in-tools.test.ts:
//   report.pdf   3 pages, title "Field report"; page 2: "The inspection found 7 cracked bolts on the east span."
//   manual.pdf   40 pages of about 700 characters each (longer than one READ_WINDOW_CHARS window); page 31 names the
//                torque of the anchor bolts
//   fake.pdf     named .pdf, its bytes plain text: no document
//   data.bin     binary bytes, no document
//   notes.txt    text
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { makePdf } from './pdf-fixtures';

export const STDIO_BRIDGE_PORT_OFFSET = 51;

const FILESYSTEM_ENTRY = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

/** The manual's page `n` (1-based): its own words, and enough of them that 40 pages pass one window. */
export function manualPage(n: number): string[] {
  const lines = [`# Section ${n}`];
  for (let i = 1; i <= 7; i++)
    lines.push(`Paragraph ${i} of section ${n} explains routine maintenance of the span in plain words.`);
  if (n === 31) lines.push('The anchor bolts are tightened to 480 newton metres.');
  return lines;
}

/** Writes the folder's files; returns its path (real, so the server's own path checks agree with ours). */
function makeFolder(): string {
  const folder = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-filesystem-')));
  const report = makePdf({
    title: 'Field report',
    pages: [
      ['# Summary', 'The east span was inspected in November.'],
      ['# Findings', 'The inspection found 7 cracked bolts on the east span.'],
      ['# Next steps', 'Replace the bolts before the spring.'],
    ],
  });
  writeFileSync(join(folder, 'report.pdf'), report);
  writeFileSync(
    join(folder, 'manual.pdf'),
    makePdf({ title: 'Maintenance manual', pages: Array.from({ length: 40 }, (_, i) => manualPage(i + 1)) }),
  );
  writeFileSync(join(folder, 'fake.pdf'), 'This file is plain text that only claims to be a PDF.\n');
  writeFileSync(
    join(folder, 'data.bin'),
    Uint8Array.from({ length: 512 }, (_, i) => (i * 37 + 11) & 0xff),
  );
  writeFileSync(join(folder, 'notes.txt'), 'Bring the torque wrench.\n');
  return folder;
}

export async function startStdioBridge(port: number): Promise<{ url: string; folder: string; close(): Promise<void> }> {
  const folder = makeFolder();
  const bridge = await bridgeStdioServer({ name: 'filesystem-bridge', args: [FILESYSTEM_ENTRY, folder], port });
  return {
    url: bridge.url,
    folder,
    close: async () => {
      await bridge.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * Any stdio MCP server (`node <args>`, a child process) served over Streamable HTTP on 127.0.0.1:`port`, `/mcp`: every
 * request of what the child declares (tools, resources, prompts) forwarded and its answer returned unchanged; lists
 * kept 60 s. The child gets no environment but PATH, and no roots (what it may read is on its command line).
 */
export async function bridgeStdioServer(options: {
  name: string;
  args: string[];
  port: number;
}): Promise<{ url: string; close(): Promise<void> }> {
  const { name, args, port } = options;
  // Not process.env: the child needs nothing of the test run's environment.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '' },
    stderr: 'ignore',
  });
  // No roots capability: the folder on the command line is what the server may read.
  const client = new Client({ name: 'stdio-bridge', version: '1.0.0' });
  await client.connect(transport);
  const declared = client.getServerCapabilities() ?? {};
  const hint = { ttlMs: 60_000, cacheScope: 'public' as const };

  const server = () => {
    const bridged = new Server(
      { name, version: '1.0.0' },
      {
        capabilities: {
          ...(declared.tools ? { tools: {} } : {}),
          ...(declared.resources ? { resources: {} } : {}),
          ...(declared.prompts ? { prompts: {} } : {}),
        },
        ...(client.getInstructions() ? { instructions: client.getInstructions() } : {}),
        cacheHints: {
          'server/discover': hint,
          'tools/list': hint,
          'resources/list': hint,
          'resources/templates/list': hint,
          'prompts/list': hint,
        },
      },
    );
    if (declared.tools) {
      bridged.setRequestHandler('tools/list', async () => ({ tools: (await client.listTools()).tools }));
      bridged.setRequestHandler('tools/call', ({ params }) => client.callTool(params) as never);
    }
    if (declared.resources) {
      bridged.setRequestHandler('resources/list', async () => ({
        resources: (await client.listResources()).resources,
      }));
      bridged.setRequestHandler('resources/templates/list', async () => ({
        resourceTemplates: (await client.listResourceTemplates()).resourceTemplates,
      }));
      bridged.setRequestHandler('resources/read', ({ params }) => client.readResource(params) as never);
    }
    if (declared.prompts) {
      bridged.setRequestHandler('prompts/list', async () => ({ prompts: (await client.listPrompts()).prompts }));
      bridged.setRequestHandler('prompts/get', ({ params }) => client.getPrompt(params) as never);
    }
    return bridged;
  };
  const handler = createMcpHandler(server, { onerror: () => {} });
  const node = toNodeHandler(handler, { onerror: () => {} });
  const httpServer = http.createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] === '/mcp') return void node(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => httpServer.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      await handler.close();
      await client.close();
    },
  };
}
