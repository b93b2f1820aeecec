import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { START_PATH } from '../auth/tickets';
import type { AppBindings } from './types';

/*
 * The pages of the browser's side of connecting an account (routes/oauth.ts):
 * one small shell, our own inline script under the secure-headers nonce.
 * Values put inside a script are JSON with `<` escaped, so text an
 * authorization server wrote (`</script>…`) stays a string.
 */

const scriptValue = (value: unknown) => raw(JSON.stringify(value).replace(/</g, '\\u003c'));

function flowPage(
  c: Context<AppBindings>,
  status: number,
  title: string,
  body: HtmlEscapedString | Promise<HtmlEscapedString>,
  script: string,
) {
  const nonce = (c.get as (key: string) => string | undefined)('secureHeadersNonce') ?? '';
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${title}</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}h1{font-size:1.3rem}</style></head>
<body><h1>${title}</h1>${body}
<script nonce="${nonce}">
${raw(script)}
</script></body></html>`;
  return c.html(page, status as 200);
}

/**
 * The connect link's page: posts the ticket from its fragment (which no
 * request carried) as a form, so the ticket reaches us in a body, never in
 * a URL a log prints. Without one, says the link is not valid.
 */
export function startPage(c: Context<AppBindings>) {
  return flowPage(
    c,
    200,
    'Connecting…',
    html`<p id="note">Taking you to the sign-in page.</p>
<form id="start" method="post" action="${START_PATH}"><input type="hidden" name="ticket"></form>`,
    `const fragment = location.hash.slice(1);
history.replaceState(null, '', location.pathname); // the ticket leaves the address bar and the history, first
let ticket = '';
try {
  ticket = decodeURIComponent(fragment);
} catch {} // not valid percent-encoding: no ticket, said below (it used to throw here and leave the page waiting)
if (ticket) {
  const form = document.getElementById('start');
  form.elements.ticket.value = ticket;
  form.submit();
} else document.getElementById('note').textContent = 'This link is not valid. Go back to the chat and choose Connect again.';`,
  );
}

/**
 * The callback's page: hands `{server, state, code, iss}` to the window that
 * opened it — one postMessage per allowed origin, each with that exact
 * target, so a page on any other origin that opened the link gets nothing —
 * and waits to be closed by it.
 */
export function handoverPage(
  c: Context<AppBindings>,
  handover: { server: string; state: string; code: string; iss?: string | undefined },
  origins: string[],
) {
  return flowPage(
    c,
    200,
    `Finishing the connection to ${handover.server}`,
    html`<p id="note">The chat window that opened this one finishes it.</p>`,
    `const handover = ${scriptValue({ type: 'mcp-ondemand:oauth-code', ...handover })};
const origins = ${scriptValue(origins)};
if (window.opener) for (const origin of origins) window.opener.postMessage(handover, origin);
else document.getElementById('note').textContent = 'Open the connect link from the chat that asked you to connect: it finishes there.';`,
  );
}

/**
 * A refusal for the popup; with `outcome`, it tells the window that opened it — on the handover's origins only (this
 * service's and the tenant's), as the code's handover is: a page on any other origin that opened the link learns
 * nothing, not even that the person refused.
 */
export function answerPage(
  c: Context<AppBindings>,
  status: number,
  title: string,
  text: string,
  outcome?: { server: string; error: string },
  origins: string[] = [],
) {
  const message = outcome ? scriptValue({ type: 'mcp-ondemand:oauth', ...outcome, ok: false }) : 'null';
  return flowPage(
    c,
    status,
    title,
    html`<p>${text}</p>`,
    `const outcome = ${message};
const origins = ${scriptValue(outcome ? origins : [])};
if (outcome && window.opener) for (const origin of origins) window.opener.postMessage(outcome, origin);`,
  );
}
