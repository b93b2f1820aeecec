// An MCP server (SDK v2, Streamable HTTP, in Node) serving the documents of bench/lib/docs-corpus.mjs as a document
// server would: each as a blob resource (the HTML page as text/html text) with its MIME type and size, one document
// per path (http://127.0.0.1:<port>/<key>/mcp: pdf, docx, xlsx, html), so each conversation's catalog holds the one
// document it is about. /all/mcp serves all four, and `copies` more of each under docs://copy/<n>/… (new URIs: the
// CPU measurement's conversions of a document the service has not seen). It counts the resources/read calls per URI
// that reach it: a document is converted once per version, so these are the conversions.
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { documents } from './docs-corpus.mjs';

// Documents that do not change during a run: reads may be reused for 5 minutes and shared.
/** @type {{ ttlMs: number, cacheScope: 'public' }} */
const HINT = { ttlMs: 300_000, cacheScope: 'public' };

const copyUri = (doc, n) => doc.uri.replace('docs://bench/', `docs://copy/${n}/`);

function buildServer(docs) {
  const server = new McpServer(
    { name: 'bench-documents', title: 'Company documents', version: '1.0.0' },
    {
      capabilities: { resources: {} },
      instructions:
        'Company documents: handbooks, guides, workbooks and web pages. Read a document before answering from it.',
      cacheHints: { 'resources/list': HINT, 'server/discover': HINT },
    },
  );
  for (const doc of docs) {
    const html = doc.format === 'html';
    const base64 = html ? undefined : Buffer.from(doc.bytes).toString('base64');
    const text = html ? new TextDecoder().decode(doc.bytes) : undefined;
    server.registerResource(
      doc.name ?? doc.slug,
      doc.uri,
      {
        title: doc.title,
        description: doc.description,
        mimeType: doc.mimeType,
        size: doc.bytes.byteLength,
        cacheHint: HINT,
      },
      () => ({
        contents: [
          html
            ? { uri: doc.uri, mimeType: doc.mimeType, text }
            : { uri: doc.uri, mimeType: doc.mimeType, blob: base64 },
        ],
      }),
    );
  }
  return server;
}

/**
 * Starts the server on 127.0.0.1:`port`. `url(key)`: the path serving document `key` (or `all`); `copyUri(key, n)`:
 * the n-th copy's URI on /all/mcp; `reads()`: resources/read per URI so far.
 */
export async function startDocsServer({ port, copies = 0 }) {
  const docs = documents();
  const reads = {};
  const withCopies = [
    ...docs,
    ...Array.from({ length: copies }, (_, n) =>
      docs.map((d) => ({ ...d, uri: copyUri(d, n + 1), name: `${d.slug}-copy-${n + 1}` })),
    ).flat(),
  ];
  const paths = new Map([...docs.map((d) => [`/${d.key}/mcp`, [d]]), ['/all/mcp', withCopies]]);
  const handlers = new Map(
    [...paths].map(([path, list]) => {
      const handler = createMcpHandler(() => buildServer(list), { onerror: () => {} });
      return [path, { node: toNodeHandler(handler, { onerror: () => {} }), handler }];
    }),
  );
  const server = http.createServer((req, res) => {
    const entry = handlers.get(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (!entry) return void res.writeHead(404).end();
    if (req.headers['mcp-method'] === 'resources/read') {
      // The URI rides in the Mcp-Name header (2026-07-28); a 2025 request would carry it in the body only.
      const uri = String(req.headers['mcp-name'] ?? '?');
      reads[uri] = (reads[uri] ?? 0) + 1;
    }
    void entry.node(req, res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: (key) => `http://127.0.0.1:${port}/${key}/mcp`,
    copyUri: (key, n) =>
      copyUri(
        docs.find((d) => d.key === key),
        n,
      ),
    reads: () => ({ ...reads }),
    async close() {
      for (const { handler } of handlers.values()) await handler.close().catch(() => {});
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
