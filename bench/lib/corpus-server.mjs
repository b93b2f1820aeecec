// An MCP server (SDK v2, Streamable HTTP, in Node) serving the benchmark
// corpora as text resources, each corpus on its own path:
// http://127.0.0.1:<port>/c10k/mcp, /c50k/mcp, /c500k/mcp, /c5m/mcp.
// Resources are listed with title, description, mimeType and size, so the
// catalog the model sees is what a real documentation server would give.
// It counts the resources/read calls that reach it (a check on the cache).
//
//   node bench/lib/corpus-server.mjs 8803      # standalone, all corpora
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { corpus, CORPUS_NAMES } from './corpora.mjs';

// Reads may be reused for 5 minutes and shared: documentation that does not
// change during a run (a realistic hint; without one the service re-reads
// every turn, which costs time here but not model bytes).
/** @type {{ ttlMs: number, cacheScope: 'public' }} */
const HINT = { ttlMs: 300_000, cacheScope: 'public' };

function buildServer(c) {
  const server = new McpServer(
    { name: `corpus-${c.name}`, title: `Benchmark corpus ${c.name}`, version: '1.0.0' },
    {
      capabilities: { resources: {} },
      instructions: 'Internal documentation of the team. Read a document before answering from it.',
      cacheHints: { 'resources/list': HINT, 'server/discover': HINT },
    },
  );
  for (const doc of c.docs) {
    server.registerResource(
      doc.slug,
      doc.uri,
      { title: doc.title, description: doc.description, mimeType: doc.mimeType, size: doc.size, cacheHint: HINT },
      () => ({
        contents: [{ uri: doc.uri, mimeType: doc.mimeType, text: doc.text }],
      }),
    );
  }
  return server;
}

/**
 * Starts the server on 127.0.0.1:`port` with `names` (default: all corpora).
 * Returns the URL of each corpus and the count of `resources/read` per corpus.
 * `corpusOf`: where a name's corpus comes from (default: corpora.mjs; bench:code serves its own).
 */
export async function startCorpusServer({ port, names = CORPUS_NAMES, corpusOf = corpus }) {
  const reads = Object.fromEntries(names.map((n) => [n, 0]));
  const handlers = new Map(
    names.map((name) => {
      const c = corpusOf(name);
      // A fresh McpServer per request (the SDK's stateless serving): 2026 and 2025 clients both work.
      const handler = createMcpHandler(() => buildServer(c), { onerror: () => {} });
      return [`/c${name}/mcp`, { name, node: toNodeHandler(handler, { onerror: () => {} }), handler }];
    }),
  );
  const server = http.createServer((req, res) => {
    const entry = handlers.get(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (!entry) return void res.writeHead(404).end();
    if (req.headers['mcp-method'] === 'resources/read') reads[entry.name]++;
    void entry.node(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: (name) => `http://127.0.0.1:${port}/c${name}/mcp`,
    reads: () => ({ ...reads }),
    async close() {
      for (const { handler } of handlers.values()) await handler.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.argv[2] ?? 8803);
  await startCorpusServer({ port });
  console.log(CORPUS_NAMES.map((n) => `http://127.0.0.1:${port}/c${n}/mcp`).join('\n'));
}
