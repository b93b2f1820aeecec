// Serves the chat-clients app (test/browser/clients/app.ts, bundled by
// esbuild on start) on 127.0.0.1: the frontend origin of the client tests.
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';

/** The chat widget embedded the way a SaaS page does it, from the service's origin, with a token from the page's backend. */
const widgetPage = (service: string, token: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>widget</title><script src="${service}/widget/mcp-ondemand-chat.js" defer></script></head>` +
  `<body><mcp-ondemand-chat endpoint="${service}" token="${token}" persist="none" heading="Help"></mcp-ondemand-chat></body></html>`;

const HTML =
  '<!doctype html><html><head><meta charset="utf-8"><title>chat clients</title></head><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>';

export async function startClientPage(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('./app.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    define: { 'process.env.NODE_ENV': '"development"' },
    logLevel: 'warning',
  });
  const script = bundle.outputFiles[0]!.text;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/widget')
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(widgetPage(url.searchParams.get('service')!, url.searchParams.get('token')!));
    else if (path === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(HTML);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) };
}
