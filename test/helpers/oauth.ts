import { exports } from 'cloudflare:workers';
import { inject } from 'vitest';

/** The OAuth test tenant (test/infra/tenants.ts), as its backend calls us for one end user. */
export const oauthUser = (user: string) => ({ authorization: 'Bearer test-key-oauth', 'x-end-user': user });

export const asUrl = inject('oauthAsUrl');
export const rsUrl = inject('oauthRsUrl');

/** The authorization server's control API (test/infra/oauth-servers.ts). */
export async function control<T = unknown>(path: string, body?: unknown): Promise<T> {
  const response = await fetch(
    `${asUrl}/__control/${path}`,
    body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  if (!response.ok) throw new Error(`control ${path}: ${response.status} ${await response.text()}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A request to the Worker from the user's browser (no API token: the popup's requests). */
export const browser = (url: string, init: RequestInit = {}) =>
  exports.default.fetch(url, { redirect: 'manual', ...init });

export interface ConnectSteps {
  /** Our start route's answer (302 to the authorization server, with the cookie). */
  start: Response;
  /** Where it sent the browser. */
  authorizeUrl: URL;
  /** The authorization server's answer (302 back to our callback). */
  callbackUrl: URL;
  cookie: string;
}

/**
 * What a browser does when the user opens a connect link: our start route →
 * the authorization server (which approves at once, as `login`) → our
 * callback, with the cookie the start route set. Returns the callback page.
 */
export async function connectWithLink(
  link: string,
  { login, tamper }: { login?: string; tamper?: (steps: ConnectSteps) => { url: URL; cookie: string } } = {},
): Promise<Response> {
  const steps = await startConnect(link, login);
  const { url, cookie } = tamper ? tamper(steps) : { url: steps.callbackUrl, cookie: steps.cookie };
  return browser(url.href, { headers: cookie ? { cookie } : {} });
}

/**
 * What the connect link's page does (`/oauth/start#<ticket>`): the browser
 * loads it without the fragment, and its script posts the ticket.
 */
export async function openLink(link: string): Promise<Response> {
  const url = new URL(link);
  const page = await browser(`${url.origin}${url.pathname}`);
  if (page.status !== 200 || !(await page.text()).includes('form.submit()'))
    throw new Error(`start page: ${page.status}`);
  return browser(`${url.origin}${url.pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ticket: decodeURIComponent(url.hash.slice(1)) }).toString(),
  });
}

export async function startConnect(link: string, login?: string): Promise<ConnectSteps> {
  const start = await openLink(link);
  if (start.status !== 303) throw new Error(`start: ${start.status} ${await start.text()}`);
  const authorizeUrl = new URL(start.headers.get('location')!);
  if (login) authorizeUrl.searchParams.set('login_hint', login);
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
  const approved = await fetch(authorizeUrl, { redirect: 'manual' });
  if (approved.status !== 302) throw new Error(`authorize: ${approved.status} ${await approved.text()}`);
  return { start, authorizeUrl, callbackUrl: new URL(approved.headers.get('location')!), cookie };
}

/** What a callback page hands to the window that opened the link (its `mcp-ondemand:oauth-code` message), with the origins it is addressed to; undefined for any other page. */
export interface Handover {
  server: string;
  state: string;
  code: string;
  iss?: string;
}
export async function handoverOf(page: Response): Promise<{ handover: Handover; origins: string[] } | undefined> {
  const html = await page.text();
  const handover = /const handover = (\{.*?\});\n/.exec(html)?.[1];
  const origins = /const origins = (\[.*?\]);\n/.exec(html)?.[1];
  if (!handover || !origins) return undefined;
  const { type, ...rest } = JSON.parse(handover) as Handover & { type: string };
  if (type !== 'mcp-ondemand:oauth-code') return undefined;
  return { handover: rest, origins: JSON.parse(origins) as string[] };
}

/** What the window that opened the link does with the handover: completes it as the person signed in there (`user`). */
export const completeConnect = (user: string, { server, ...body }: Handover) =>
  exports.default.fetch(`http://localhost/v1/connections/${server}/complete`, {
    method: 'POST',
    headers: { ...oauthUser(user), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/**
 * Connects `server` for `user` (signed in upstream as `login`) through the
 * API's connect link, as the widget does: the popup's flow, then the
 * handover completed as `user`. Returns the completion's answer, or the
 * callback page when it handed nothing over (a refusal).
 */
export async function connect(user: string, server: string, login = `upstream-${user}`): Promise<Response> {
  const response = await exports.default.fetch(`http://localhost/v1/connections/${server}`, {
    method: 'POST',
    headers: oauthUser(user),
  });
  if (response.status !== 200) throw new Error(`connect link: ${response.status} ${await response.text()}`);
  const { url } = await response.json<{ url: string }>();
  return connectAndComplete(url, user, login);
}

/** The popup's flow for `link`, then the handover completed as `user`; the callback page when it handed nothing over. */
export async function connectAndComplete(link: string, user: string, login?: string): Promise<Response> {
  const page = await connectWithLink(link, login ? { login } : {});
  const handed = await handoverOf(page.clone());
  return handed ? completeConnect(user, handed.handover) : page;
}
