// The demo's task tracker guidelines served by an MCP server outside our
// workerd: SDK v2 (`@modelcontextprotocol/server`) in Node on 127.0.0.1, so a
// benchmark of ours counts only our CPU (the demo server runs inside our
// workerd, and its CPU would count as ours). One URL, both eras, as an SDK
// server that keeps 2025 sessions serves them (test/infra/v2-servers.ts,
// "stateful"): 2026-07-28 requests through `createMcpHandler` (stateless,
// `subscriptions/listen`), 2025-11-25 through a session of its own
// (`isLegacyRequest` → `WebStandardStreamableHTTPServerTransport`: GET stream,
// `resources/subscribe`). Cache hints as the demo server sends them:
// discover and lists public for an hour, the guidelines private for 30 s.
//
//   node bench/lib/guidelines-server.mjs 8830     # standalone: http://127.0.0.1:8830/mcp
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export const GUIDELINES_URI = 'task://guidelines';
const GUIDELINES = `Team guidelines (Acme Tasks)

1. Every task has one owner. Unassigned tasks are picked up at the daily stand-up.
2. Estimate in hours, never more than 8 for a single task: split anything bigger.
3. Close a task only when its change is merged and deployed to staging.
4. Bugs found in production jump the queue: they are planned before any feature work.
5. Keep work in progress low: no more than 2 open tasks per person at a time.
`;
const HOUR = 3_600_000;
/** A larger document beside them, as the demo has (its 12 KB test matrix): the corpus is too big to inline in the prompt. */
const MATRIX_URI = 'docs://test-matrix';
const MATRIX = Array.from(
  { length: 200 },
  (_, i) => `| product ${i} | release 4.${i % 20} | tested on staging and production, owner team ${i % 7} |`,
).join('\n');

/** What the server serves now: `edit()` changes the guidelines (the soak's updates) and notifies whoever follows them. */
const state = { guidelines: GUIDELINES };

/**
 * One server instance (2026: per request; 2025: per session). A 2025
 * session's `resources/subscribe` is recorded in `subscriptions`, so an edit
 * can notify it.
 */
function buildServer(subscriptions) {
  const server = new McpServer(
    { name: 'guidelines', title: 'Team guidelines', version: '1.0.0' },
    {
      capabilities: { resources: { subscribe: true, listChanged: true } },
      instructions: 'The team guidelines. Read them before answering questions about how the team works.',
      cacheHints: {
        'server/discover': { ttlMs: HOUR, cacheScope: 'public' },
        'resources/list': { ttlMs: HOUR, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: HOUR, cacheScope: 'public' },
      },
    },
  );
  server.registerResource(
    'guidelines',
    GUIDELINES_URI,
    {
      title: 'Team guidelines',
      description: 'How the team plans, estimates and closes work',
      mimeType: 'text/plain',
      size: GUIDELINES.length,
      cacheHint: { ttlMs: 30_000, cacheScope: 'private' },
    },
    () => ({ contents: [{ uri: GUIDELINES_URI, mimeType: 'text/plain', text: state.guidelines }] }),
  );
  server.registerResource(
    'test-matrix',
    MATRIX_URI,
    {
      title: 'Release test matrix',
      description: 'Products, releases and where they were tested',
      mimeType: 'text/markdown',
      size: MATRIX.length,
      cacheHint: { ttlMs: 5 * 60_000, cacheScope: 'public' },
    },
    () => ({ contents: [{ uri: MATRIX_URI, mimeType: 'text/markdown', text: MATRIX }] }),
  );
  if (subscriptions) {
    server.server.setRequestHandler('resources/subscribe', ({ params }) => {
      subscriptions.add(params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', ({ params }) => {
      subscriptions.delete(params.uri);
      return {};
    });
  }
  return server;
}

/** Starts the server on 127.0.0.1:`port`; `url` is its endpoint, `sessions()` the open 2025 sessions, `requests()` requests per MCP method, `edit(text)` changes the guidelines. */
export async function startGuidelinesServer({ port }) {
  const sessions = new Map();
  const methods = {};
  const modern = createMcpHandler(() => buildServer(), { onerror: () => {} });
  const legacy = async (request) => {
    const id = request.headers.get('mcp-session-id');
    if (id) {
      const session = sessions.get(id);
      if (!session)
        return Response.json(
          { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
          { status: 404 },
        );
      return session.handleRequest(request);
    }
    const subscriptions = new Set();
    const server = buildServer(subscriptions);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, Object.assign(transport, { mcp: server, subscriptions })),
      onsessionclosed: (sid) => void sessions.delete(sid),
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  const node = toNodeHandler(
    { fetch: async (request) => ((await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request)) },
    { onerror: () => {} },
  );
  const server = http.createServer((req, res) => {
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return void res.writeHead(404).end();
    const method = req.headers['mcp-method'];
    if (method) methods[method] = (methods[method] ?? 0) + 1;
    void node(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    sessions: () => sessions.size,
    /** Changes the guidelines: 2026 listen streams and the 2025 sessions subscribed to them hear of it. */
    edit(text) {
      state.guidelines = text;
      modern.notify.resourceUpdated(GUIDELINES_URI);
      for (const session of sessions.values()) {
        if (session.subscriptions.has(GUIDELINES_URI))
          void session.mcp.server.sendResourceUpdated({ uri: GUIDELINES_URI }).catch(() => {});
      }
    },
    requests: () => ({ ...methods }),
    async close() {
      await modern.close().catch(() => {});
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await startGuidelinesServer({ port: Number(process.argv[2] ?? 8830) });
  console.log(url);
}
