import { productionUrlProblem } from '../config';

/** Redirects followed for one OAuth request (metadata behind a CDN, say); each hop is checked again. */
const MAX_HOPS = 3;

/**
 * The fetch every OAuth request goes through (discovery, registration,
 * token, revocation). URLs come from metadata the servers publish, so each
 * one, and each redirect hop, must pass the rules MCP server URLs pass in
 * production: https to a public host (unless ALLOW_PRIVATE_MCP_URLS, for
 * development and tests). Nothing else of ours is sent along: no static
 * server headers, no cookies.
 */
export function guardedFetch(allowPrivate: boolean): typeof fetch {
  return async (input, init) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      const problem = urlProblem(url, allowPrivate);
      if (problem) throw new TypeError(`Refused to fetch ${url.origin}${url.pathname}: ${problem}`);
      const response = await fetch(url, request);
      const location = response.headers.get('location');
      if (response.status < 300 || response.status > 399 || !location) return response;
      if (hop + 1 >= MAX_HOPS) throw new TypeError(`Too many redirects from ${url.origin}${url.pathname}`);
      // Only reads follow a redirect (RFC 9110: a 303 turns anything into a GET, which a token request must never become).
      if ((request.method ?? 'GET').toUpperCase() !== 'GET') return response;
      url = new URL(location, url);
      request = { ...request, body: null };
    }
  };
}

export function urlProblem(url: URL, allowPrivate: boolean): string | undefined {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `scheme ${url.protocol} is not allowed`;
  return allowPrivate ? undefined : productionUrlProblem(url.href);
}
