// An MCP server that serves documents (TEST_PORT_BASE + 50, `/mcp`): PDFs made by pdf-fixtures.ts and an HTML page,
// for the document tests (test/documents.test.ts). SDK v2, 2026-07-28 (createMcpHandler; 2025 requests answered
// statelessly), lists kept a minute, each document with its own cache hint:
//   docs://handbook.pdf      12 pages, one topic each (page 7: parental leave), public, 60 s
//   docs://private-plan.pdf  2 pages, private (60 s): its text must never land in a tenant-shared KV key
//   docs://scanned.pdf       3 pages of images, no text layer
//   docs://fake.pdf          declared application/pdf, its bytes are plain text
//   docs://hostile.pdf       title and text written to break out of the wrapper (hostile-server.ts HOSTILE_TEXT)
//   docs://changing.pdf      "version N" on each page; POST /__control/edit makes N + 1 and sends resources/updated
//   docs://release.html      an HTML page with a script and a style
// Control: GET /__control/state → {reads: {uri: count}, version}; POST /__control/edit; POST /__control/reset.
import http from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { HOSTILE_TEXT } from './hostile-text';
import { base64Of, makePdf } from './pdf-fixtures';

export const DOCUMENT_SERVER_PORT_OFFSET = 50;

const TOPICS = [
  'Welcome and how to use this handbook',
  'Working hours and core hours',
  'Remote work and equipment',
  'Expenses and travel',
  'Security and passwords',
  'Holidays and days off',
  'Parental leave',
  'Sick leave',
  'Performance reviews',
  'Training budget',
  'Leaving the company',
  'Contacts',
];
const HANDBOOK = makePdf({
  title: 'Employee handbook',
  pages: TOPICS.map((topic, i) => [
    `# ${topic}`,
    i === 6
      ? 'Parental leave is sixteen weeks, paid in full, for every parent.'
      : `This page covers ${topic.toLowerCase()}.`,
    `Handbook page ${i + 1} of ${TOPICS.length}.`,
  ]),
});
const PRIVATE = makePdf({
  title: 'Board plan',
  pages: [
    ['# Confidential plan', 'Acquire Initech in March, codename BLUEFINCH.'],
    ['# Budget', 'Twelve million.'],
  ],
});
const SCANNED = makePdf({ title: 'Signed contract', pages: [{ image: true }, { image: true }, { image: true }] });
const HOSTILE = makePdf({
  title: `Report${HOSTILE_TEXT}`,
  pages: [[`Quarter results.${HOSTILE_TEXT}`, 'The end.']],
});
const changing = (version: number) =>
  makePdf({ title: 'Price list', pages: [[`# Prices, version ${version}`, `Widgets cost ${version * 10} euros.`]] });
const RELEASE_HTML = `<!doctype html><html><head><title>Release notes</title><style>body { color: red }</style>
<script>window.steal = "SCRIPT-SHOULD-NOT-SHOW";</script></head><body>
<h1>Release notes 4.2</h1><p>The export now keeps <strong>time zones</strong>.</p>
<ul><li>Faster search</li><li>Dark mode</li></ul>
<table><tr><th>Platform</th><th>Status</th></tr><tr><td>iOS</td><td>shipped</td></tr></table>
</body></html>`;

interface State {
  reads: Record<string, number>;
  version: number;
}

export async function startDocumentServer(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const state: State = { reads: {}, version: 1 };
  const hint = (scope: 'public' | 'private') => ({ ttlMs: 60_000, cacheScope: scope });
  const blob = (uri: string, bytes: Uint8Array, scope: 'public' | 'private' = 'public') => ({
    uri,
    bytes: () => bytes,
    mimeType: 'application/pdf',
    scope,
  });
  const documents = [
    blob('docs://handbook.pdf', HANDBOOK),
    blob('docs://private-plan.pdf', PRIVATE, 'private'),
    blob('docs://scanned.pdf', SCANNED),
    blob('docs://fake.pdf', new TextEncoder().encode('Just a text file that calls itself a PDF.')),
    blob('docs://hostile.pdf', HOSTILE),
    {
      uri: 'docs://changing.pdf',
      bytes: () => changing(state.version),
      mimeType: 'application/pdf',
      scope: 'public' as const,
    },
  ];
  const server = () => {
    const mcp = new McpServer(
      { name: 'documents', version: '1.0.0' },
      {
        capabilities: { resources: { subscribe: true, listChanged: true } },
        cacheHints: {
          'resources/list': { ttlMs: 60_000, cacheScope: 'public' },
          'server/discover': { ttlMs: 60_000, cacheScope: 'public' },
        },
      },
    );
    for (const doc of documents) {
      mcp.registerResource(
        doc.uri.slice('docs://'.length),
        doc.uri,
        { mimeType: doc.mimeType, size: doc.bytes().byteLength, cacheHint: hint(doc.scope) } as never,
        () => {
          state.reads[doc.uri] = (state.reads[doc.uri] ?? 0) + 1;
          return { contents: [{ uri: doc.uri, mimeType: doc.mimeType, blob: base64Of(doc.bytes()) }] };
        },
      );
    }
    mcp.registerResource(
      'release.html',
      'docs://release.html',
      { mimeType: 'text/html', cacheHint: hint('public') } as never,
      () => {
        state.reads['docs://release.html'] = (state.reads['docs://release.html'] ?? 0) + 1;
        return { contents: [{ uri: 'docs://release.html', mimeType: 'text/html', text: RELEASE_HTML }] };
      },
    );
    return mcp;
  };
  const handler = createMcpHandler(server, { onerror: () => {} });
  const node = toNodeHandler(handler, { onerror: () => {} });
  const http_ = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (body: unknown) =>
      void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/__control/state') return reply(state);
    if (path === '/__control/edit' && req.method === 'POST') {
      state.version += 1;
      handler.notify.resourceUpdated('docs://changing.pdf');
      return reply(state);
    }
    if (path === '/__control/reset' && req.method === 'POST') {
      Object.assign(state, { reads: {}, version: 1 });
      return reply(state);
    }
    if (path === '/mcp') return void node(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => http_.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http_.closeAllConnections();
        http_.close(() => resolve());
      }),
  };
}
