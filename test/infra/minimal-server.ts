// A deliberately small MCP server for the host's edge cases: it announces
// resources only (no tools, no prompts, no subscribe, no listChanged), sends
// the 2026 revision's cache hints on one resource, and records every method
// it receives (GET /__methods) so tests can check that the host never calls
// what a server did not announce. Stateless Streamable HTTP (JSON responses).
// The same port serves /bulk, a server listing 10,000 resources, the large
// and hostile servers of hostile-server.ts (/hostile, /huge-list), GET
// /__reads (URIs those read) and /__memory (workerd's memory; POST resets
// its peak; see workerd-memory.ts).
import http from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  createHostileServer,
  createHugeListServer,
  deepJsonResponse,
  isResourcesList,
  reads,
  readsUri,
  writeHugeList,
  writeUnsizedBinary,
} from './hostile-server';
import { resetWorkerdPeak, workerdMemory } from './workerd-memory';

const RESOURCES = [
  // Top priority for the assistant: pinned by its annotations (PIN_PRIORITY_THRESHOLD defaults to 1).
  {
    uri: 'mini://public-note',
    name: 'public-note',
    mimeType: 'text/plain',
    size: 19,
    annotations: { audience: ['assistant'], priority: 1 },
  },
  { uri: 'mini://private-note', name: 'private-note', mimeType: 'text/plain', size: 20 },
];

/** `alt`: the same URIs with other content (another tenant's server), for cache isolation tests. */
function createServer(alt = false): Server {
  const server = new Server({ name: 'minimal-resources', version: '1.0.0' }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: RESOURCES }));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
    if (params.uri === 'mini://public-note')
      return {
        contents: [
          { uri: params.uri, mimeType: 'text/plain', text: alt ? 'globex-only text.' : 'shared by everyone.' },
        ],
      };
    if (params.uri === 'mini://private-note') {
      // Cache hints of the 2026-07-28 revision: per-user content, one minute.
      return {
        contents: [{ uri: params.uri, mimeType: 'text/plain', text: 'for one user only...' }],
        ttlMs: 60_000,
        cacheScope: 'private',
      };
    }
    throw Object.assign(new Error(`Resource ${params.uri} not found`), { code: -32002 });
  });
  return server;
}

/** `/bulk`: a server with 10,000 resources (500 a page), for catalogs far over any prompt budget. */
const BULK_COUNT = 10_000;
const BULK_PAGE = 500;
const CUSTOMERS = ['Acme', 'Globex', 'Initech', 'Umbrella'];

function createBulkServer(): Server {
  const server = new Server({ name: 'bulk-invoices', version: '1.0.0' }, { capabilities: { resources: {} } });
  server.setRequestHandler(ListResourcesRequestSchema, ({ params }) => {
    const start = params?.cursor ? Number(params.cursor) : 0;
    const end = Math.min(BULK_COUNT, start + BULK_PAGE);
    const resources = [];
    for (let i = start; i < end; i++) {
      resources.push({
        uri: `bulk://invoices/${i}`,
        name: `invoice-${i}`,
        title: `Invoice ${i} for ${CUSTOMERS[i % 4]}`,
        mimeType: 'application/json',
        size: 200 + (i % 50),
      });
    }
    return end < BULK_COUNT ? { resources, nextCursor: String(end) } : { resources };
  });
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
    const id = /^bulk:\/\/invoices\/(\d+)$/.exec(params.uri)?.[1];
    if (id === undefined || Number(id) >= BULK_COUNT)
      throw Object.assign(new Error(`Resource ${params.uri} not found`), { code: -32002 });
    return {
      contents: [
        {
          uri: params.uri,
          mimeType: 'application/json',
          text: JSON.stringify({ invoice: Number(id), customer: CUSTOMERS[Number(id) % 4], total: 100 + Number(id) }),
        },
      ],
    };
  });
  return server;
}

export async function startMinimalServer(port: number): Promise<{ close(): Promise<void> }> {
  const methods: string[] = [];
  const httpServer = http.createServer(async (req, res) => {
    if (req.url === '/__methods') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(methods));
      return;
    }
    if (req.url === '/__reads') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reads));
      return;
    }
    if (req.url === '/__memory') {
      if (req.method === 'POST') resetWorkerdPeak();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(workerdMemory()));
      return;
    }
    if (!['/mcp', '/alt', '/bulk', '/hostile', '/huge-list'].includes(req.url ?? '') || req.method !== 'POST') {
      res.writeHead(405).end(); // stateless: no GET stream, no DELETE
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string } | Array<{ method?: string }>;
    // Only the resources-only servers' methods: the others (/hostile has tools) would blur what the test checks.
    if (req.url === '/mcp' || req.url === '/alt')
      for (const message of Array.isArray(body) ? body : [body]) if (message.method) methods.push(message.method);
    // Answers no SDK server could give (too deep to stringify), or that must stream (of unannounced size).
    if (req.url === '/hostile' && readsUri(body, 'hostile://deep-json')) {
      reads.push('hostile://deep-json');
      res.writeHead(200, { 'content-type': 'application/json' }).end(deepJsonResponse(body.id));
      return;
    }
    if (req.url === '/hostile' && readsUri(body, 'hostile://unsized-binary')) {
      reads.push('hostile://unsized-binary');
      return writeUnsizedBinary(res, body.id);
    }
    if (req.url === '/huge-list' && isResourcesList(body)) return writeHugeList(res, body.id);
    const server =
      req.url === '/bulk'
        ? createBulkServer()
        : req.url === '/hostile'
          ? createHostileServer()
          : req.url === '/huge-list'
            ? createHugeListServer()
            : createServer(req.url === '/alt');
    // /huge-list answers in SSE, the others in JSON: both response paths of the client get a hostile answer.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: req.url !== '/huge-list',
    });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
