import type { ViewSecurity } from '../../shared/api/views';

/** Most domains kept per list (a view that needs more is asking for too much). */
export const MAX_VIEW_DOMAINS = 32;

const CSP_KEYS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;
const PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;

/** `https://host[:port]` or `https://*.host[:port]`: no path, query, quotes, spaces or semicolons. */
const HTTPS_SOURCE =
  /^https:\/\/(\*\.)?([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(:\d{1,5})?$/;

/**
 * One declared source as the CSP may carry it, or undefined when it is
 * refused: only https origins and `https://*.` wildcards — never a keyword
 * (`'self'`, `'unsafe-eval'`), a scheme (`data:`, `blob:`, `http:`), `*`,
 * and never one of `own` (this service's origins) or a wildcard covering one:
 * a view must not reach our API or be framed as us.
 */
export function viewSource(source: unknown, own: readonly string[]): string | undefined {
  if (typeof source !== 'string') return undefined;
  const candidate = source.trim().toLowerCase().replace(/\/$/, '');
  if (!HTTPS_SOURCE.test(candidate)) return undefined;
  const wildcard = candidate.startsWith('https://*.') ? candidate.slice('https://*'.length) : undefined;
  for (const origin of own) {
    const ours = new URL(origin);
    if (candidate === ours.origin || (wildcard && `.${ours.host}`.endsWith(wildcard))) return undefined;
  }
  return candidate;
}

/**
 * The sandbox a view gets, from the `_meta.ui` its server declared (unchecked
 * input): the CSP domain lists with every refused entry dropped (see
 * `viewSource`), the permissions the spec names, `prefersBorder`. What the
 * widget is told (`ViewLink.security`) and what `viewCsp` enforces.
 * @example viewSecurity({ csp: { connectDomains: ['https://api.acme.dev', "'self'"] } }, ['https://chat.example']) // { csp: { connectDomains: ['https://api.acme.dev'] } }
 */
export function viewSecurity(ui: unknown, own: readonly string[]): ViewSecurity {
  const declared = (ui && typeof ui === 'object' ? ui : {}) as {
    csp?: Record<string, unknown>;
    permissions?: Record<string, unknown>;
    prefersBorder?: unknown;
  };
  const csp: NonNullable<ViewSecurity['csp']> = {};
  for (const key of CSP_KEYS) {
    const list = declared.csp?.[key];
    if (!Array.isArray(list)) continue;
    const kept = [
      ...new Set(list.map((source) => viewSource(source, own)).filter((s): s is string => s !== undefined)),
    ].slice(0, MAX_VIEW_DOMAINS);
    if (kept.length) csp[key] = kept;
  }
  const permissions: NonNullable<ViewSecurity['permissions']> = {};
  for (const key of PERMISSIONS)
    if (declared.permissions?.[key] && typeof declared.permissions[key] === 'object') permissions[key] = {};
  return {
    ...(Object.keys(csp).length ? { csp } : {}),
    ...(Object.keys(permissions).length ? { permissions } : {}),
    ...(typeof declared.prefersBorder === 'boolean' ? { prefersBorder: declared.prefersBorder } : {}),
  };
}

/**
 * The `Content-Security-Policy` of a view's document. `sandbox` gives it an
 * opaque origin even when opened on its own (no storage or cookies of ours,
 * no credentialed call to our API); inline scripts and styles only, plus the
 * declared (already checked) domains; no network without `connectDomains`,
 * no frames, no `<base>`, no form submissions; framed only by `ancestors`.
 * @example viewCsp({}, ['https://chat.example']) // "sandbox allow-scripts allow-forms; default-src 'none'; … frame-ancestors https://chat.example"
 */
export function viewCsp(security: ViewSecurity, ancestors: readonly string[]): string {
  const csp = security.csp ?? {};
  const list = (sources: readonly string[] | undefined, fallback = "'none'") =>
    sources?.length ? sources.join(' ') : fallback;
  const resources = csp.resourceDomains ?? [];
  const withResources = (...first: string[]) => [...first, ...resources].join(' ');
  // Configured origins (the tenant's, ours): trusted, but one malformed entry must not break the header.
  const framers = ancestors.filter((origin) => /^https?:\/\/([a-z0-9.-]+|\[[0-9a-f:]+\])(:\d{1,5})?$/i.test(origin));
  return [
    'sandbox allow-scripts allow-forms',
    "default-src 'none'",
    `script-src ${withResources("'unsafe-inline'")}`,
    `style-src ${withResources("'unsafe-inline'")}`,
    `img-src ${withResources('data:')}`,
    `font-src ${list(resources)}`,
    `media-src ${withResources('data:')}`,
    `connect-src ${list(csp.connectDomains)}`,
    `frame-src ${list(csp.frameDomains)}`,
    `base-uri ${list(csp.baseUriDomains)}`,
    "form-action 'none'",
    `frame-ancestors ${list(framers)}`,
  ].join('; ');
}

/** The headers of a view's document besides its CSP: never cached or sniffed, no referrer, embeddable cross-origin. */
export const VIEW_DOCUMENT_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'cross-origin',
} as const;
