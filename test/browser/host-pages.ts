// A SaaS customer's page that embeds the widget from the service's origin,
// with a tiny backend of its own that mints browser tokens (as a tenant's
// backend does; see docs/FRONTENDS.md). Served on 127.0.0.1 from Node.
import { createServer, type Server } from 'node:http';
import { mintToken } from '../../scripts/mint-token.mjs';

export interface HostPageOptions {
  port: number;
  serviceUrl: string;
  /** Tenant id → its token secret; the first is the default. */
  tenants: Record<string, string>;
  /**
   * The widget pinned as the README says (its versioned path and SRI hash,
   * from the service's /widget/manifest.json); without it, the stable alias.
   */
  widget?: { path: string; integrity: string };
}

/**
 * GET /?user=<id>&token=valid|expired|bad[&tenant=<id>][&refresh=manual][&integrity=wrong] — the page, its token as asked
 * (`integrity=wrong`: the pinned script tag with an integrity value of other bytes).
 * GET /token?user=<id>[&tenant=<id>] — a fresh token (the page's refresh on `token-expired`).
 * The page records the widget's events in `window.widgetEvents`.
 */
export function startHostPage(options: HostPageOptions): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${options.port}`);
    const user = url.searchParams.get('user') ?? 'visitor';
    const tenant = url.searchParams.get('tenant') ?? Object.keys(options.tenants)[0]!;
    const token = (minutes: number) =>
      mintToken({ tenant, user, secret: options.tenants[tenant] ?? 'unknown-tenant', minutes });
    if (url.pathname === '/token') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: token(10) }));
    } else if (url.pathname === '/host.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(HOST_SCRIPT);
    } else if (url.pathname === '/') {
      const kind = url.searchParams.get('token') ?? 'valid';
      const value = kind === 'expired' ? token(-1) : kind === 'bad' ? `${token(10).slice(0, -4)}AAAA` : token(10);
      const widget =
        options.widget && url.searchParams.get('integrity') === 'wrong'
          ? { ...options.widget, integrity: WRONG_INTEGRITY }
          : options.widget;
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(page(options.serviceUrl, widget, value, user, tenant));
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${options.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}

const attr = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A well-formed sha384 SRI value of other bytes (the empty string). */
const WRONG_INTEGRITY = 'sha384-OLBgp1GsljhM2TJ+sbHjaiH9txEUvgdDTAzHv2P24donTt6/529l+9Ua0vFImLlb';

const widgetScript = (service: string, widget: HostPageOptions['widget']) =>
  widget
    ? `<script src="${attr(service + widget.path)}" integrity="${attr(widget.integrity)}" crossorigin="anonymous" defer></script>`
    : `<script src="${attr(service)}/widget/mcp-ondemand-chat.js" defer></script>`;

const page = (
  service: string,
  widget: HostPageOptions['widget'],
  token: string,
  user: string,
  tenant: string,
) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme Shop — help</title><link rel="icon" href="data:,">
${widgetScript(service, widget)}
<script src="/host.js" defer></script>
<style>body{font-family:sans-serif;margin:24px;background:#fafaf5} mcp-ondemand-chat{--mcp-accent:#0b7a53;--mcp-height:600px;max-width:520px}</style>
</head><body><h1>Acme Shop</h1><p>Signed in as ${attr(user)}.</p>
<mcp-ondemand-chat endpoint="${attr(service)}" token="${attr(token)}" heading="Acme help" persist="none" data-user="${attr(user)}" data-tenant="${attr(tenant)}"></mcp-ondemand-chat>
</body></html>`;

// The host's side of the contract: listen to the widget's events; on
// token-expired, fetch a new token from its own backend and set it.
const HOST_SCRIPT = `
window.widgetEvents = [];
for (const type of ['mcp-ondemand-conversation', 'mcp-ondemand-message', 'mcp-ondemand-error', 'mcp-ondemand-token-expired']) {
  document.addEventListener(type, (event) => window.widgetEvents.push({ type, detail: event.detail }));
}
window.refreshToken = async () => {
  const chat = document.querySelector('mcp-ondemand-chat');
  const response = await fetch('/token?user=' + encodeURIComponent(chat.dataset.user) + '&tenant=' + encodeURIComponent(chat.dataset.tenant));
  chat.setAttribute('token', (await response.json()).token);
};
// ?refresh=manual leaves it to the test, so it can look at the expired state first.
if (new URLSearchParams(location.search).get('refresh') !== 'manual') {
  document.addEventListener('mcp-ondemand-token-expired', () => window.refreshToken());
}
`;
