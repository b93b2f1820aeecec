import { createRoute } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { NONCE, secureHeaders } from 'hono/secure-headers';
import { CLIENT_NAME } from '../../auth/record-provider';
import { newNonce, openState, openTicket, sealState, START_PATH, AUTHORIZATION_TTL_MS } from '../../auth/tickets';
import { vaultOf } from '../../auth/vault';
import { allowedOriginsOf, loadConfig } from '../../config';
import { CALLBACK_PATH, CLIENT_METADATA_PATH, oauthSetup } from '../../config/oauth';
import { z } from 'zod';
import { ClientMetadata } from '../../../shared/api/service';
import { answerPage, handoverPage, startPage as startPageOf } from '../oauth-pages';
import { json, routes } from '../openapi';

/** The cookie that ties an authorization's callback to the browser that started it (one per server, so two can run at once). */
const cookieName = (server: string) => `mcpod_oauth_${server}`;

/** Pages of this flow: no framing, no referrer (the callback URL carries a code), only our own inline script. */
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: [NONCE],
    styleSrc: ["'unsafe-inline'"],
    frameAncestors: ["'none'"],
  },
  referrerPolicy: 'no-referrer',
  crossOriginOpenerPolicy: 'unsafe-none',
});

const tags = ['oauth'];
const page = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

const clientMetadata = createRoute({
  method: 'get',
  path: CLIENT_METADATA_PATH.slice('/oauth'.length),
  tags,
  security: [],
  summary: 'Our OAuth client ID metadata document',
  description:
    'Its URL is our `client_id` at authorization servers that support client ID metadata documents (when `PUBLIC_URL` is https).',
  responses: { 200: json(ClientMetadata, 'The document (cacheable for an hour).') },
});
const startPage = createRoute({
  method: 'get',
  path: START_PATH.slice('/oauth'.length),
  tags,
  security: [],
  summary: 'Open a connect link',
  description:
    'The `connectUrl` of a server that needs the user: `/oauth/start#<ticket>`. The ticket is in the fragment (never sent, never in a request log); this page posts it to `POST /oauth/start`.',
  middleware: [pageHeaders] as const,
  responses: { 200: page('A page that posts the ticket of its fragment.') },
});
const start = createRoute({
  method: 'post',
  path: START_PATH.slice('/oauth'.length),
  tags,
  security: [],
  summary: 'Start connecting (the start page’s form)',
  description: 'Sets a cookie scoped to the callback and sends the browser to the authorization server.',
  middleware: [pageHeaders] as const,
  request: {
    body: {
      content: {
        'application/x-www-form-urlencoded': {
          schema: z.object({
            ticket: z
              .string()
              .max(2_000)
              .optional()
              .meta({ description: 'Sealed: single use, 10 minutes, the caller’s own.' }),
          }),
        },
      },
    },
  },
  responses: { 303: { description: 'To the authorization server.' }, 400: page('The link expired or is not valid.') },
});
const callback = createRoute({
  method: 'get',
  path: '/callback',
  tags,
  security: [],
  summary: 'The authorization server’s redirect back',
  description:
    'Checks `state` and the cookie, exchanges the code; renders a page that tells the window that opened it `{server, ok, error}`.',
  middleware: [pageHeaders] as const,
  request: {
    query: z.object({
      state: z.string().optional(),
      code: z.string().optional(),
      iss: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
    }),
  },
  responses: { 200: page('Connected.'), 400: page('Refused, or not valid.') },
});

/**
 * The browser's side of connecting an account (docs/design/oauth.md), outside
 * `/v1` (a popup carries no API token; the sealed ticket and state do):
 * - `GET /oauth/client-metadata.json`: our client ID metadata document;
 * - `GET /oauth/start#<ticket>`: the connect link, a page that posts the ticket of its fragment to `POST /oauth/start`,
 *   which sets the browser cookie and sends the user to the authorization server;
 * - `GET /oauth/callback`: checks `state` (sealed, this browser's) and hands the code to the window that opened the link,
 *   on our or the tenant's origins only; the person signed in there completes it (`POST /v1/connections/:server/complete`).
 * The callback only ever renders a page: no redirect a third party could steer.
 */
export const oauth = routes()
  .openapi(clientMetadata, (c) => {
    const setup = oauthSetup(c.env);
    return c.json(
      {
        client_id: `${setup.publicUrl.origin}${CLIENT_METADATA_PATH}`,
        client_name: CLIENT_NAME,
        client_uri: setup.publicUrl.origin,
        redirect_uris: [setup.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      200,
      { 'cache-control': 'public, max-age=3600' },
    );
  })
  .openapi(startPage, (c) => startPageOf(c))
  .openapi(start, async (c) => {
    const setup = oauthSetup(c.env);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const ticket = await openTicket(setup, typeof form.ticket === 'string' ? form.ticket : '');
    if (!ticket)
      return answerPage(
        c,
        400,
        'This link has expired or is not valid',
        'Go back to the chat and choose Connect again.',
      );
    const stateNonce = newNonce();
    const state = await sealState(setup, {
      tenant: ticket.tenant,
      user: ticket.user,
      server: ticket.server,
      nonce: stateNonce,
      expiresAt: Date.now() + AUTHORIZATION_TTL_MS,
    });
    const owner = { tenant: ticket.tenant, user: ticket.user };
    const started = await vaultOf(c.env, owner).begin(owner, ticket.server, {
      ticketNonce: ticket.nonce,
      ticketExpiresAt: ticket.expiresAt,
      state,
      stateNonce,
    });
    if (!started.ok)
      return answerPage(c, started.error.status, `Could not connect ${ticket.server}`, started.error.message);
    setCookie(c, cookieName(ticket.server), stateNonce, {
      path: CALLBACK_PATH,
      httpOnly: true,
      secure: setup.publicUrl.protocol === 'https:',
      sameSite: 'Lax', // sent on the authorization server's top-level redirect back to us, not on cross-site subrequests
      maxAge: AUTHORIZATION_TTL_MS / 1000,
    });
    return c.redirect(started.value, 303);
  })
  .openapi(callback, async (c) => {
    const setup = oauthSetup(c.env);
    const ticket = await openState(setup, c.req.query('state') ?? '');
    if (!ticket)
      return answerPage(
        c,
        400,
        'This authorization is not valid',
        'It has expired, was altered, or was not started here. Go back to the chat and choose Connect again.',
      );
    const cookie = getCookie(c, cookieName(ticket.server));
    deleteCookie(c, cookieName(ticket.server), { path: CALLBACK_PATH });
    const owner = { tenant: ticket.tenant, user: ticket.user };
    const vault = vaultOf(c.env, owner);
    // The state must come back to the browser that started it (CSRF: nobody can finish their authorization in your
    // browser). A callback that fails the check ends the authorization: its code, which landed in the wrong browser,
    // can no longer be redeemed by anyone (POST …/complete answers invalid_state).
    if (!cookie || !sameText(cookie, ticket.nonce)) {
      await vault.abandon(ticket.nonce);
      return answerPage(
        c,
        400,
        'This authorization was started in another browser',
        'Go back to the chat and choose Connect again.',
      );
    }
    const error = c.req.query('error');
    if (error) {
      await vault.abandon(ticket.nonce);
      const why =
        error === 'access_denied'
          ? 'Access was not granted.'
          : `The authorization server answered: ${error}${c.req.query('error_description') ? ` (${c.req.query('error_description')})` : ''}.`;
      return answerPage(
        c,
        400,
        `${ticket.server} was not connected`,
        why,
        { server: ticket.server, error: why },
        handoverOrigins(c.env, setup.publicUrl.origin, ticket.tenant),
      );
    }
    const code = c.req.query('code');
    if (!code) return answerPage(c, 400, 'This authorization is not valid', 'The authorization server sent no code.');
    // Not stored here: whoever opens a link approves as themselves, and the link may not be theirs (someone mints a
    // link for their own account and gets you to open and approve it — your grant would land in their vault). The code
    // goes back to the window that opened this one, on the service's or the tenant's own origins only, and the person
    // signed in there completes it (POST /v1/connections/:server/complete): only the link's owner can.
    const handover = {
      server: ticket.server,
      state: c.req.query('state')!,
      code,
      ...(c.req.query('iss') ? { iss: c.req.query('iss') } : {}),
    };
    return handoverPage(c, handover, handoverOrigins(c.env, setup.publicUrl.origin, ticket.tenant));
  });

/** Where a callback may hand its code: this service's own origin (the demo page, the API reference) and the tenant's allowed origins (the pages embedding the widget). */
function handoverOrigins(env: Env, own: string, tenant: string): string[] {
  const allowed = allowedOriginsOf(loadConfig(env), tenant);
  return [...new Set([own, ...allowed])];
}

function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && crypto.subtle.timingSafeEqual(x, y);
}
