// An OAuth 2.1 authorization server and an MCP server it protects, for the
// host's "connect an upstream account" flows. Both run in the vitest Node
// process on 127.0.0.1 and share one in-memory state, so the resource server
// checks tokens against the authorization server's records directly (no
// introspection endpoint to fake) and tests read both sides from one place.
//
//   AS  http://127.0.0.1:<asPort>       RFC 8414 metadata, /authorize (auto-approves,
//                                       no login page), /token, /register (RFC 7591),
//                                       /revoke (RFC 7009), /__control/*
//   RS  http://127.0.0.1:<rsPort>/mcp   RFC 9728 metadata, a Bearer gate, then an SDK v2
//                                       server (2026-07-28 and stateless 2025-11-25)
//
// Control (see README.md): GET /__control/state, GET /__control/tokens (raw
// token strings, to scan storage and logs for leaks), POST /__control/config,
// /__control/revoke-subject {subject}, /__control/reset.
import { createHash, type KeyObject, randomBytes, verify } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { clientPublicKey } from './client-keys';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
  type AuthInfo,
  type McpHttpHandler,
  type OAuthMetadata,
  type OAuthTokenVerifier,
  type ScopeChallengeHandler,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

const SCOPES = ['mcp:read', 'mcp:write', 'admin'];
/** What a client gets when it asks for no scope at all (RFC 6749 §3.3 lets the AS pick a default). */
const DEFAULT_SCOPE = ['mcp:read'];
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
/** How a client may authenticate at /token: the registrable methods, and a signed assertion (RFC 7523, pre-registered keys only). */
const TOKEN_AUTH_METHODS = [...AUTH_METHODS, 'private_key_jwt'] as const;
const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CODE_TTL_MS = 60_000;

type AuthMethod = (typeof TOKEN_AUTH_METHODS)[number];

export interface OAuthConfig {
  accessTokenTtlSeconds: number;
  /** Who /authorize logs in as, unless the request carries a login_hint. */
  nextSubject: string;
  /** /authorize redirects back with error=access_denied (the user clicked "Deny"). */
  deny: boolean;
  /** Every refresh_token grant fails with invalid_grant (the provider forgot the grant). */
  failRefresh: boolean;
}

const DEFAULT_CONFIG: OAuthConfig = {
  accessTokenTtlSeconds: 3600,
  nextSubject: 'upstream-user-1',
  deny: false,
  failRefresh: false,
};

interface Client {
  clientId: string;
  secret?: string;
  /** How it may authenticate at /token and /revoke. */
  authMethods: AuthMethod[];
  /** Exact redirect URIs; undefined: any URI `redirectAllowed` accepts (the pre-registered web client). */
  redirectUris?: string[];
  grantTypes: string[];
  /** The scopes it may be granted without a user (client_credentials). */
  scope?: string[];
  preregistered?: boolean;
  /** `private_key_jwt`: the key its assertions are checked with (ES256). */
  publicKey?: KeyObject;
}

/** One user's consent to one client: every token issued from one code (and its refreshes) shares it. */
interface Grant {
  id: string;
  sub: string;
  clientId: string;
  scope: string[];
  resource: string;
  revoked: boolean;
}

interface AccessToken {
  token: string;
  grantId: string;
  scope: string[];
  expiresAt: number;
  revoked: boolean;
}

interface RefreshToken {
  token: string;
  grantId: string;
  /** Rotated away: presenting it again is a replay. */
  used: boolean;
}

interface AuthorizationCode {
  code: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  sub: string;
  scope: string[];
  resource: string;
  expiresAt: number;
  /** Set once redeemed: a second redemption revokes what the first one got. */
  grantId?: string;
}

interface TokenRequestRecord {
  grantType: string | null;
  clientId: string | null;
  clientAuth: AuthMethod | null;
  resourceSent: boolean;
  scope: string | null;
  /** "ok" or the OAuth error code answered. */
  outcome: string;
}

interface McpRequestRecord {
  httpMethod: string;
  /** The JSON-RPC method(s) of the body (comma separated for a batch), null for GET/DELETE. */
  method: string | null;
  authorization: boolean;
  /** Whose valid token it carried; null if none. */
  sub: string | null;
  status: number;
}

class OAuthState {
  config: OAuthConfig = { ...DEFAULT_CONFIG };
  clients = new Map<string, Client>(preregisteredClients().map((client) => [client.clientId, client]));
  codes = new Map<string, AuthorizationCode>();
  grants = new Map<string, Grant>();
  accessTokens = new Map<string, AccessToken>();
  refreshTokens = new Map<string, RefreshToken>();
  authorizeRequests: Array<Record<string, string>> = [];
  tokenRequests: TokenRequestRecord[] = [];
  revocations: Array<{ tokenTypeHint: string | null; clientId: string; sub: string | null; kind: string }> = [];
  /** Client ID metadata documents accepted at /authorize (never fetched: see `cimdClient`). */
  cimdClients: Array<{ clientId: string; redirectUri: string }> = [];
  mcpRequests: McpRequestRecord[] = [];
  /** The `jti` of every client assertion accepted (a replayed one is refused). */
  assertionIds = new Set<string>();
}

function preregisteredClients(): Client[] {
  return [
    {
      clientId: 'preregistered-client',
      secret: 'preregistered-secret',
      authMethods: ['client_secret_basic', 'client_secret_post'],
      grantTypes: ['authorization_code', 'refresh_token'],
      preregistered: true,
    },
    // The same integration authenticated by its key (private_key_jwt), not a shared secret.
    {
      clientId: 'tenant-bot-jwt',
      authMethods: ['private_key_jwt'],
      redirectUris: [],
      grantTypes: ['client_credentials'],
      scope: ['mcp:read'],
      preregistered: true,
      publicKey: clientPublicKey(),
    },
    // The same integration by workload identity federation: a public client whose grant is the platform's token.
    {
      clientId: 'tenant-workload',
      authMethods: ['none'],
      redirectUris: [],
      grantTypes: [JWT_BEARER_GRANT],
      scope: ['mcp:read'],
      preregistered: true,
      publicKey: clientPublicKey(),
    },
    // A tenant's back-end integration: no user, no redirect, read-only.
    {
      clientId: 'tenant-bot',
      secret: 'tenant-bot-secret',
      authMethods: ['client_secret_basic', 'client_secret_post'],
      redirectUris: [],
      grantTypes: ['client_credentials'],
      scope: ['mcp:read'],
      preregistered: true,
    },
  ];
}

/** What both servers share: `state` is replaced wholesale by /__control/reset. */
interface Context {
  issuer: string;
  resource: string;
  allowedRedirectPrefixes?: string[];
  state: OAuthState;
}

/**
 * A request the AS refuses: RFC 6749 §5.2 error JSON. Plain fields, no
 * parameter properties: Node's type stripping (a standalone script importing
 * this file) cannot run those.
 */
class OAuthFailure extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, description: string, headers: Record<string, string> = {}) {
    super(description);
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

const randomString = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function sendFailure(res: ServerResponse, failure: OAuthFailure) {
  sendJson(
    res,
    failure.status,
    { error: failure.error, error_description: failure.message },
    { 'cache-control': 'no-store', ...failure.headers },
  );
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(req);
  try {
    const value: unknown = text ? JSON.parse(text) : {};
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new OAuthFailure(400, 'invalid_request', 'body must be a JSON object');
}

/** Token and revocation requests are forms (RFC 6749 §4.1.3): a client sending JSON is wrong, and should hear it. */
async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthFailure(400, 'invalid_request', 'content-type must be application/x-www-form-urlencoded');
  }
  return new URLSearchParams(await readBody(req));
}

const parseScope = (scope: string | null | undefined) => (scope ?? '').split(' ').filter(Boolean);

function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    revocation_endpoint: `${issuer}/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', JWT_BEARER_GRANT],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...TOKEN_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: ['ES256'],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    scopes_supported: SCOPES,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

// ---------------------------------------------------------------------------
// Clients

/** RFC 7591 dynamic registration. */
function register(ctx: Context, metadata: Record<string, unknown>): Record<string, unknown> {
  const redirectUris = metadata.redirect_uris ?? [];
  if (!Array.isArray(redirectUris) || !redirectUris.every((uri) => typeof uri === 'string' && isAbsoluteUrl(uri))) {
    throw new OAuthFailure(400, 'invalid_redirect_uri', 'redirect_uris must be absolute URLs without a fragment');
  }
  const grantTypes = (metadata.grant_types as string[] | undefined) ?? ['authorization_code', 'refresh_token'];
  if (
    !Array.isArray(grantTypes) ||
    grantTypes.some((type) => type !== 'authorization_code' && type !== 'refresh_token')
  ) {
    throw new OAuthFailure(
      400,
      'invalid_client_metadata',
      'grant_types may hold authorization_code and refresh_token only',
    );
  }
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw new OAuthFailure(400, 'invalid_redirect_uri', 'authorization_code needs at least one redirect URI');
  }
  const authMethod = (metadata.token_endpoint_auth_method as AuthMethod | undefined) ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(authMethod))
    throw new OAuthFailure(
      400,
      'invalid_client_metadata',
      `unsupported token_endpoint_auth_method ${String(authMethod)}`,
    );
  const client: Client = {
    clientId: randomString('client'),
    ...(authMethod === 'none' ? {} : { secret: randomString('secret') }),
    authMethods: [authMethod],
    redirectUris: redirectUris as string[],
    grantTypes,
    ...(typeof metadata.scope === 'string' ? { scope: parseScope(metadata.scope) } : {}),
  };
  ctx.state.clients.set(client.clientId, client);
  return {
    ...metadata,
    client_id: client.clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    ...(client.secret ? { client_secret: client.secret, client_secret_expires_at: 0 } : {}),
    redirect_uris: client.redirectUris,
    grant_types: grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: authMethod,
  };
}

function isAbsoluteUrl(value: string): boolean {
  try {
    return !new URL(value).hash && !value.endsWith('#');
  } catch {
    return false;
  }
}

const isHttpsUrl = (value: string) => URL.canParse(value) && new URL(value).protocol === 'https:';

/**
 * A client identified by its metadata document URL (CIMD). We accept it
 * WITHOUT fetching the document: the client_id would be the Worker under
 * test's own URL, which Node cannot reach. The one check kept is the one that
 * matters for redirects: the redirect URI must be on the client_id's origin.
 * Once seen at /authorize it is a public client at /token.
 */
function cimdClient(clientId: string): Client {
  return { clientId, authMethods: ['none'], grantTypes: ['authorization_code', 'refresh_token'] };
}

function knownClient(ctx: Context, clientId: string): Client | undefined {
  const client = ctx.state.clients.get(clientId);
  if (client) return client;
  if (ctx.state.cimdClients.some((seen) => seen.clientId === clientId)) return cimdClient(clientId);
  return undefined;
}

function redirectAllowed(ctx: Context, client: Client, redirectUri: string): boolean {
  if (client.redirectUris) return client.redirectUris.includes(redirectUri);
  if (!isAbsoluteUrl(redirectUri) || !/^https?:$/.test(new URL(redirectUri).protocol)) return false;
  return !ctx.allowedRedirectPrefixes || ctx.allowedRedirectPrefixes.some((prefix) => redirectUri.startsWith(prefix));
}

/** The client and redirect URI of an authorization request, or why they can't be trusted (then we must not redirect). */
function authorizeClient(ctx: Context, clientId: string, redirectUri: string): Client | string {
  const registered = ctx.state.clients.get(clientId);
  if (registered)
    return redirectAllowed(ctx, registered, redirectUri)
      ? registered
      : 'redirect_uri is not registered for this client';
  if (!isHttpsUrl(clientId)) return 'unknown client_id';
  if (!isAbsoluteUrl(redirectUri) || new URL(redirectUri).origin !== new URL(clientId).origin) {
    return 'redirect_uri must be on the origin of the client_id metadata document';
  }
  ctx.state.cimdClients.push({ clientId, redirectUri });
  return cimdClient(clientId);
}

function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  // RFC 6749 §2.3.1: both halves are form-urlencoded before being joined.
  const unform = (part: string) => decodeURIComponent(part.replaceAll('+', ' '));
  return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
}

/** Client authentication at /token and /revoke: Basic, secret in the body, or client_id alone for a public client. */
function authenticateClient(
  ctx: Context,
  req: IncomingMessage,
  form: URLSearchParams,
): { client: Client; method: AuthMethod } {
  const basic = parseBasic(req.headers.authorization);
  if (form.has('client_assertion') || form.has('client_assertion_type')) {
    if (basic || form.has('client_secret'))
      throw new OAuthFailure(400, 'invalid_request', 'more than one client authentication method');
    return { client: assertedClient(ctx, form), method: 'private_key_jwt' };
  }
  const bodyId = form.get('client_id');
  const bodySecret = form.get('client_secret');
  const invalidClient = (why: string) =>
    new OAuthFailure(401, 'invalid_client', why, basic ? { 'www-authenticate': 'Basic realm="oauth-test"' } : {});
  if (basic && bodySecret !== null)
    throw new OAuthFailure(400, 'invalid_request', 'more than one client authentication method');
  if (basic && bodyId !== null && bodyId !== basic.id)
    throw new OAuthFailure(400, 'invalid_request', 'client_id differs from the Basic credentials');
  const method: AuthMethod = basic ? 'client_secret_basic' : bodySecret !== null ? 'client_secret_post' : 'none';
  const clientId = basic?.id ?? bodyId;
  if (clientId === null) throw invalidClient('no client authentication');
  const client = knownClient(ctx, clientId);
  if (!client) throw invalidClient('unknown client');
  if (!client.authMethods.includes(method))
    throw invalidClient(`this client must authenticate with ${client.authMethods.join(' or ')}`);
  if (method !== 'none' && client.secret !== (basic?.secret ?? bodySecret)) throw invalidClient('wrong client secret');
  return { client, method };
}

/** An ES256 JWS (the parts of a compact JWT) signed by `key`. */
function signedBy(key: KeyObject, header: string, payload: string, signature: string): boolean {
  const input = Buffer.from(`${header}.${payload}`);
  return verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
}

/**
 * `private_key_jwt` (RFC 7523 §3): the assertion is an ES256 JWT signed by the client's registered key, `iss` and
 * `sub` its client id, `aud` this server (its issuer or token endpoint), not expired, its `jti` never seen before.
 */
function assertedClient(ctx: Context, form: URLSearchParams): Client {
  const invalid = (why: string) => new OAuthFailure(401, 'invalid_client', `client assertion: ${why}`);
  if (form.get('client_assertion_type') !== JWT_BEARER_ASSERTION) throw invalid('unsupported client_assertion_type');
  const [header, payload, signature] = (form.get('client_assertion') ?? '').split('.');
  if (!header || !payload || !signature) throw invalid('not a JWT');
  const json = (part: string) => {
    try {
      return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      throw invalid('not a JWT');
    }
  };
  const claims = json(payload);
  if (json(header).alg !== 'ES256') throw invalid('alg must be ES256');
  const client = typeof claims.iss === 'string' ? knownClient(ctx, claims.iss) : undefined;
  if (!client?.publicKey || !client.authMethods.includes('private_key_jwt')) throw invalid('unknown client');
  if (!signedBy(client.publicKey, header, payload, signature)) throw invalid('bad signature');
  if (claims.sub !== client.clientId) throw invalid('sub must be the client id');
  const form_id = form.get('client_id');
  if (form_id !== null && form_id !== client.clientId) throw invalid('client_id differs from the assertion');
  const audiences = [claims.aud].flat();
  if (!audiences.some((aud) => aud === ctx.issuer || aud === `${ctx.issuer}/` || aud === `${ctx.issuer}/token`))
    throw invalid('aud must be this authorization server');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) throw invalid('expired');
  if (typeof claims.jti !== 'string' || ctx.state.assertionIds.has(claims.jti))
    throw invalid('jti missing or replayed');
  ctx.state.assertionIds.add(claims.jti);
  return client;
}

// ---------------------------------------------------------------------------
// /authorize

/** Why an authorization request from a trusted client and redirect URI is refused, if it is: [error, description]. */
function authorizeProblem(ctx: Context, params: URLSearchParams, client: Client): [string, string] | undefined {
  if (params.get('response_type') !== 'code') return ['unsupported_response_type', 'response_type must be code'];
  if (!client.grantTypes.includes('authorization_code'))
    return ['unauthorized_client', 'this client may not use authorization_code'];
  if (!params.get('code_challenge')) return ['invalid_request', 'code_challenge is required (PKCE)'];
  if (params.get('code_challenge_method') !== 'S256') return ['invalid_request', 'code_challenge_method must be S256'];
  if (params.get('resource') !== ctx.resource) return ['invalid_target', `resource must be ${ctx.resource}`];
  return undefined;
}

function authorize(ctx: Context, params: URLSearchParams, res: ServerResponse) {
  ctx.state.authorizeRequests.push(Object.fromEntries(params));
  const redirectUri = params.get('redirect_uri') ?? '';
  const client = authorizeClient(ctx, params.get('client_id') ?? '', redirectUri);
  // Errors are answered here, never redirected: before the redirect URI is
  // trusted that would be an open redirect, and after it a 400 is simpler to assert on.
  if (typeof client === 'string') return sendJson(res, 400, { error: 'invalid_request', error_description: client });
  const problem = authorizeProblem(ctx, params, client);
  if (problem) return sendJson(res, 400, { error: problem[0], error_description: problem[1] });
  const back = new URL(redirectUri);
  if (ctx.state.config.deny) {
    back.searchParams.set('error', 'access_denied');
    back.searchParams.set('error_description', 'The user denied the request');
  } else {
    back.searchParams.set('code', issueCode(ctx, params, client, redirectUri));
  }
  // `state` echoed byte for byte; `iss` per RFC 9207 (the metadata promises it).
  if (params.has('state')) back.searchParams.set('state', params.get('state')!);
  back.searchParams.set('iss', ctx.issuer);
  res.writeHead(302, { location: back.href }).end();
}

function issueCode(ctx: Context, params: URLSearchParams, client: Client, redirectUri: string): string {
  const requested = params.has('scope') ? parseScope(params.get('scope')) : DEFAULT_SCOPE;
  const code: AuthorizationCode = {
    code: randomString('code'),
    clientId: client.clientId,
    redirectUri,
    codeChallenge: params.get('code_challenge')!,
    // No login page: the "user" is whoever the test said would log in next.
    sub: params.get('login_hint') || ctx.state.config.nextSubject,
    scope: requested.filter((scope) => SCOPES.includes(scope)),
    resource: params.get('resource')!,
    expiresAt: Date.now() + CODE_TTL_MS,
  };
  ctx.state.codes.set(code.code, code);
  return code.code;
}

// ---------------------------------------------------------------------------
// /token

function checkResource(ctx: Context, form: URLSearchParams) {
  if (form.has('resource') && form.get('resource') !== ctx.resource)
    throw new OAuthFailure(400, 'invalid_target', `resource must be ${ctx.resource}`);
}

function issueTokens(ctx: Context, grant: Grant, scope: string[], withRefresh: boolean): Record<string, unknown> {
  const ttl = ctx.state.config.accessTokenTtlSeconds;
  const access: AccessToken = {
    token: randomString('at'),
    grantId: grant.id,
    scope,
    expiresAt: Date.now() + ttl * 1000,
    revoked: false,
  };
  ctx.state.accessTokens.set(access.token, access);
  const body: Record<string, unknown> = {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: ttl,
    scope: scope.join(' '),
  };
  if (withRefresh) {
    const refresh: RefreshToken = { token: randomString('rt'), grantId: grant.id, used: false };
    ctx.state.refreshTokens.set(refresh.token, refresh);
    body.refresh_token = refresh.token;
  }
  return body;
}

function authorizationCodeGrant(ctx: Context, client: Client, form: URLSearchParams): Record<string, unknown> {
  const code = ctx.state.codes.get(form.get('code') ?? '');
  if (!code || code.expiresAt < Date.now())
    throw new OAuthFailure(400, 'invalid_grant', 'unknown or expired authorization code');
  if (code.grantId) {
    // RFC 6749 §4.1.2: a replayed code revokes everything it produced.
    revokeGrant(ctx, code.grantId);
    throw new OAuthFailure(400, 'invalid_grant', 'authorization code already used; its tokens are revoked');
  }
  if (code.clientId !== client.clientId)
    throw new OAuthFailure(400, 'invalid_grant', 'code was issued to another client');
  if (form.get('redirect_uri') !== code.redirectUri)
    throw new OAuthFailure(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  const verifier = form.get('code_verifier');
  if (!verifier || s256(verifier) !== code.codeChallenge)
    throw new OAuthFailure(400, 'invalid_grant', 'PKCE verification failed');
  checkResource(ctx, form);
  const grant: Grant = {
    id: randomString('grant'),
    sub: code.sub,
    clientId: client.clientId,
    scope: code.scope,
    resource: code.resource,
    revoked: false,
  };
  ctx.state.grants.set(grant.id, grant);
  code.grantId = grant.id;
  return issueTokens(ctx, grant, grant.scope, true);
}

function refreshTokenGrant(ctx: Context, client: Client, form: URLSearchParams): Record<string, unknown> {
  const refresh = ctx.state.refreshTokens.get(form.get('refresh_token') ?? '');
  const grant = refresh && ctx.state.grants.get(refresh.grantId);
  if (!refresh || !grant || grant.clientId !== client.clientId)
    throw new OAuthFailure(400, 'invalid_grant', 'unknown refresh token');
  if (refresh.used) {
    // Rotation's point: a replayed refresh token means it leaked, so the whole grant goes.
    revokeGrant(ctx, grant.id);
    throw new OAuthFailure(400, 'invalid_grant', 'refresh token already used; the grant is revoked');
  }
  if (grant.revoked) throw new OAuthFailure(400, 'invalid_grant', 'the grant was revoked');
  if (ctx.state.config.failRefresh)
    throw new OAuthFailure(400, 'invalid_grant', 'refresh refused (control: failRefresh)');
  const scope = form.has('scope') ? parseScope(form.get('scope')) : grant.scope;
  if (!scope.every((item) => grant.scope.includes(item)))
    throw new OAuthFailure(400, 'invalid_scope', 'a refresh cannot widen the granted scope');
  checkResource(ctx, form);
  refresh.used = true;
  return issueTokens(ctx, grant, scope, true);
}

function clientCredentialsGrant(ctx: Context, client: Client, form: URLSearchParams): Record<string, unknown> {
  const allowed = client.scope ?? [];
  const scope = form.has('scope') ? parseScope(form.get('scope')) : allowed;
  if (!scope.every((item) => allowed.includes(item)))
    throw new OAuthFailure(400, 'invalid_scope', `this client may have ${allowed.join(' ')} only`);
  checkResource(ctx, form);
  const grant: Grant = {
    id: randomString('grant'),
    sub: client.clientId,
    clientId: client.clientId,
    scope,
    resource: ctx.resource,
    revoked: false,
  };
  ctx.state.grants.set(grant.id, grant);
  // RFC 6749 §4.4.3: no refresh token; the client just asks again.
  return issueTokens(ctx, grant, scope, false);
}

/**
 * RFC 7523 §2.1, the JWT bearer grant (workload identity federation): the assertion is an ES256 JWT from the trusted
 * workload issuer, signed by the client's registered key, for this server, not expired; the client gets its scopes.
 */
function jwtBearerGrant(ctx: Context, client: Client, form: URLSearchParams): Record<string, unknown> {
  const invalid = (why: string) => new OAuthFailure(400, 'invalid_grant', `assertion: ${why}`);
  const [header, payload, signature] = (form.get('assertion') ?? '').split('.');
  if (!header || !payload || !signature || !client.publicKey) throw invalid('not a JWT');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  if (!signedBy(client.publicKey, header, payload, signature)) throw invalid('bad signature');
  if (claims.aud !== ctx.issuer && claims.aud !== `${ctx.issuer}/`) throw invalid('aud must be this server');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) throw invalid('expired');
  return clientCredentialsGrant(ctx, client, form);
}

const GRANTS: Record<string, (ctx: Context, client: Client, form: URLSearchParams) => Record<string, unknown>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
  [JWT_BEARER_GRANT]: jwtBearerGrant,
};

async function token(ctx: Context, req: IncomingMessage, res: ServerResponse) {
  // What was asked, never with what it was asked with (no secrets, codes or tokens).
  const record: TokenRequestRecord = {
    grantType: null,
    clientId: parseBasic(req.headers.authorization)?.id ?? null,
    clientAuth: null,
    resourceSent: false,
    scope: null,
    outcome: 'ok',
  };
  ctx.state.tokenRequests.push(record);
  try {
    const form = await readForm(req);
    const grantType = form.get('grant_type');
    Object.assign(record, {
      grantType,
      clientId: record.clientId ?? form.get('client_id'),
      resourceSent: form.has('resource'),
      scope: form.get('scope'),
    });
    const { client, method } = authenticateClient(ctx, req, form);
    record.clientAuth = method;
    record.clientId = client.clientId; // an assertion names it only inside the JWT
    const grant = grantType === null ? undefined : GRANTS[grantType];
    if (!grant) throw new OAuthFailure(400, 'unsupported_grant_type', `unsupported grant_type ${grantType}`);
    if (!client.grantTypes.includes(grantType!))
      throw new OAuthFailure(400, 'unauthorized_client', `this client may not use ${grantType}`);
    sendJson(res, 200, grant(ctx, client, form), { 'cache-control': 'no-store', pragma: 'no-cache' });
  } catch (err) {
    record.outcome = err instanceof OAuthFailure ? err.error : 'server_error';
    throw err;
  }
}

// ---------------------------------------------------------------------------
// Revocation

function revokeGrant(ctx: Context, grantId: string) {
  const grant = ctx.state.grants.get(grantId);
  if (grant) grant.revoked = true;
}

/** RFC 7009: 200 whether or not the token was known (only a client that fails to authenticate is refused). */
async function revoke(ctx: Context, req: IncomingMessage, res: ServerResponse) {
  const form = await readForm(req);
  const { client } = authenticateClient(ctx, req, form);
  const value = form.get('token') ?? '';
  const access = ctx.state.accessTokens.get(value);
  const refresh = ctx.state.refreshTokens.get(value);
  const grant = ctx.state.grants.get(access?.grantId ?? refresh?.grantId ?? '');
  let kind = access ? 'access_token' : refresh ? 'refresh_token' : 'unknown';
  if (grant && grant.clientId !== client.clientId)
    kind = 'other_client'; // not this client's to revoke
  else if (access) access.revoked = true;
  // A refresh token stands for the grant: its access tokens go with it.
  else if (refresh) revokeGrant(ctx, refresh.grantId);
  ctx.state.revocations.push({
    tokenTypeHint: form.get('token_type_hint'),
    clientId: client.clientId,
    sub: grant?.sub ?? null,
    kind,
  });
  res.writeHead(200, { 'cache-control': 'no-store' }).end();
}

// ---------------------------------------------------------------------------
// Control

const isLive = (ctx: Context, access: AccessToken) => !access.revoked && !ctx.state.grants.get(access.grantId)?.revoked;

function controlState(ctx: Context) {
  const { state } = ctx;
  return {
    config: state.config,
    authorizeRequests: state.authorizeRequests,
    tokenRequests: state.tokenRequests,
    revocations: state.revocations,
    registeredClients: [...state.clients.values()].map((client) => ({
      client_id: client.clientId,
      redirect_uris: client.redirectUris ?? null,
      token_endpoint_auth_method: client.authMethods.join(' '),
      grant_types: client.grantTypes,
      scope: client.scope?.join(' ') ?? null,
      preregistered: client.preregistered ?? false,
    })),
    cimdClients: state.cimdClients,
    // Never the token strings: /__control/tokens has those.
    activeTokens: [...state.accessTokens.values()].map((access) => {
      const grant = state.grants.get(access.grantId)!;
      return {
        sub: grant.sub,
        scope: access.scope.join(' '),
        client_id: grant.clientId,
        resource: grant.resource,
        expiresAt: access.expiresAt,
        revoked: !isLive(ctx, access),
      };
    }),
    mcpRequests: state.mcpRequests,
  };
}

/** Every secret the AS ever handed out, for tests that scan storage dumps and logs for leaks. */
function controlTokens(ctx: Context) {
  const { state } = ctx;
  return {
    accessTokens: [...state.accessTokens.keys()],
    refreshTokens: [...state.refreshTokens.keys()],
    authorizationCodes: [...state.codes.keys()],
    clientSecrets: [...state.clients.values()]
      .filter((client) => !client.preregistered && client.secret)
      .map((client) => client.secret!),
  };
}

async function control(ctx: Context, action: string, req: IncomingMessage, res: ServerResponse) {
  if (req.method === 'GET' && action === 'state') return sendJson(res, 200, controlState(ctx));
  if (req.method === 'GET' && action === 'tokens') return sendJson(res, 200, controlTokens(ctx));
  if (req.method !== 'POST') return void res.writeHead(405).end();
  if (action === 'config') {
    const body = await readJson(req);
    const known = Object.fromEntries(Object.entries(body).filter(([key]) => key in DEFAULT_CONFIG));
    ctx.state.config = { ...ctx.state.config, ...known };
    return sendJson(res, 200, ctx.state.config);
  }
  if (action === 'revoke-subject') {
    // The user revoked our app in the provider's settings: all their tokens die at once.
    const { subject } = await readJson(req);
    const grants = [...ctx.state.grants.values()].filter((grant) => grant.sub === subject);
    for (const grant of grants) grant.revoked = true;
    return sendJson(res, 200, { revokedGrants: grants.length });
  }
  if (action === 'reset') {
    ctx.state = new OAuthState();
    return void res.writeHead(204).end();
  }
  res.writeHead(404).end();
}

async function handleAuthorizationServer(ctx: Context, req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', ctx.issuer);
  const [, first, action] = url.pathname.split('/');
  if (first === '__control') return control(ctx, action ?? '', req, res);
  const route = `${req.method} ${url.pathname}`;
  if (route === 'GET /.well-known/oauth-authorization-server')
    return sendJson(res, 200, authorizationServerMetadata(ctx.issuer), { 'access-control-allow-origin': '*' });
  if (route === 'GET /authorize') return authorize(ctx, url.searchParams, res);
  if (route === 'POST /token') return token(ctx, req, res);
  if (route === 'POST /register')
    return sendJson(res, 201, register(ctx, await readJson(req)), { 'cache-control': 'no-store' });
  if (route === 'POST /revoke') return revoke(ctx, req, res);
  res.writeHead(404).end();
}

// ---------------------------------------------------------------------------
// The protected MCP server

const subjectOf = (ctx: ServerContext) => String(ctx.http?.authInfo?.extra?.sub ?? 'nobody');
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/** admin_report needs `admin`: the SDK answers 403 insufficient_scope before the tool runs (both eras). */
const requireAdmin: ScopeChallengeHandler = ({ authInfo }) =>
  authInfo && !authInfo.scopes.includes('admin') ? { scopes: ['mcp:read', 'admin'] } : undefined;

function buildMcpServer(): McpServer {
  const server = new McpServer(
    { name: 'oauth-protected', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {} } },
  );
  server.registerTool(
    'whoami',
    {
      description: 'Says whose account this server is acting for',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => text(`You are ${subjectOf(ctx)} (scopes: ${ctx.http?.authInfo?.scopes.join(' ') ?? ''})`),
  );
  server.registerTool(
    'admin_report',
    { description: 'An administrator-only report', inputSchema: z.object({}), scopeChallenge: requireAdmin },
    (_args, ctx) => text(`Admin report for ${subjectOf(ctx)}`),
  );
  // Cacheable for a minute (per user): a client that kept copies across authorizations would show the old account's.
  server.registerResource(
    'profile',
    'account://profile',
    {
      mimeType: 'text/plain',
      description: "The signed-in user's profile",
      cacheHint: { ttlMs: 60_000, cacheScope: 'private' },
    },
    (_uri, ctx) => {
      const sub = subjectOf(ctx);
      return {
        contents: [
          {
            uri: 'account://profile',
            mimeType: 'text/plain',
            text: `Profile of ${sub}: display name ${sub}, email ${sub}@upstream.test`,
          },
        ],
      };
    },
  );
  return server;
}

/** Tokens are looked up in the AS's memory; the SDK then checks audience and expiry. */
function tokenVerifier(ctx: Context): OAuthTokenVerifier {
  return {
    verifyAccessToken: async (value): Promise<AuthInfo> => {
      const access = ctx.state.accessTokens.get(value);
      const grant = access && ctx.state.grants.get(access.grantId);
      if (!access || !grant) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Unknown token');
      if (!isLive(ctx, access)) throw new OAuthError(OAuthErrorCode.InvalidToken, 'Token was revoked');
      return {
        token: value,
        clientId: grant.clientId,
        scopes: access.scope,
        expiresAt: access.expiresAt / 1000,
        resource: new URL(grant.resource),
        extra: { sub: grant.sub },
      };
    },
  };
}

async function jsonRpcMethod(request: Request): Promise<string | null> {
  if (request.method !== 'POST') return null;
  try {
    const body: unknown = await request.clone().json();
    const methods = (Array.isArray(body) ? body : [body])
      .map((message) => (message as { method?: unknown })?.method)
      .filter((method) => typeof method === 'string');
    return methods.length ? methods.join(',') : null;
  } catch {
    return null;
  }
}

function protectedResource(ctx: Context, mcp: McpHttpHandler) {
  const resourceUrl = new URL(ctx.resource);
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  const metadata = {
    ...buildOAuthProtectedResourceMetadata({
      oauthMetadata: authorizationServerMetadata(ctx.issuer) as OAuthMetadata,
      resourceServerUrl: resourceUrl,
      scopesSupported: SCOPES,
    }),
    bearer_methods_supported: ['header'],
  };
  const options = { verifier: tokenVerifier(ctx), expectedResource: resourceUrl, resourceMetadataUrl };

  /** The Bearer gate (RFC 6750 §3): no error code when no token was sent, invalid_token when one was. */
  async function serve(request: Request, record: McpRequestRecord): Promise<Response> {
    const header = request.headers.get('authorization');
    if (!header) {
      const challenge = `Bearer resource_metadata="${resourceMetadataUrl}", scope="mcp:read"`;
      return Response.json(
        { error_description: 'An access token is required' },
        { status: 401, headers: { 'www-authenticate': challenge } },
      );
    }
    let authInfo: AuthInfo;
    try {
      authInfo = await verifyBearerToken(header, options);
    } catch (err) {
      return bearerAuthChallengeResponse(err, { requiredScopes: ['mcp:read'], resourceMetadataUrl });
    }
    record.sub = String(authInfo.extra?.sub);
    return mcp.fetch(request, { authInfo });
  }

  return {
    fetch: async (request: Request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      // The path-aware location (RFC 9728 §3.1) and the root one, which older clients try.
      if (path === new URL(resourceMetadataUrl).pathname || path === '/.well-known/oauth-protected-resource') {
        return Response.json(metadata, { headers: { 'access-control-allow-origin': '*' } });
      }
      if (path !== resourceUrl.pathname) return new Response(null, { status: 404 });
      const record: McpRequestRecord = {
        httpMethod: request.method,
        method: await jsonRpcMethod(request),
        authorization: request.headers.has('authorization'),
        sub: null,
        status: 0,
      };
      ctx.state.mcpRequests.push(record);
      const response = await serve(request, record);
      record.status = response.status;
      return response;
    },
  };
}

// ---------------------------------------------------------------------------

function listen(server: http.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export async function startOAuthServers(options: {
  asPort: number;
  rsPort: number;
  /** Redirect URIs the pre-registered web client may use (prefix match); default: any http(s) URI. */
  allowedRedirectPrefixes?: string[];
}): Promise<{ asUrl: string; rsUrl: string; stop(): Promise<void> }> {
  const asUrl = `http://127.0.0.1:${options.asPort}`;
  const rsUrl = `http://127.0.0.1:${options.rsPort}/mcp`;
  // One state per call: the workers and browser projects each start a pair in the same process.
  const ctx: Context = {
    issuer: asUrl,
    resource: rsUrl,
    ...(options.allowedRedirectPrefixes ? { allowedRedirectPrefixes: options.allowedRedirectPrefixes } : {}),
    state: new OAuthState(),
  };

  const as = http.createServer((req, res) => {
    handleAuthorizationServer(ctx, req, res).catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      if (err instanceof OAuthFailure) return sendFailure(res, err);
      sendJson(res, 500, { error: 'server_error', error_description: String(err) });
    });
  });
  // 2026-07-28, and 2025-11-25 answered statelessly (v2-servers.ts's /fallback mode).
  const mcp = createMcpHandler(buildMcpServer, { legacy: 'stateless', onerror: () => {} });
  const rsHandler = toNodeHandler(protectedResource(ctx, mcp), { onerror: () => {} });
  const rs = http.createServer((req, res) => void rsHandler(req, res));

  await listen(as, options.asPort);
  try {
    await listen(rs, options.rsPort);
  } catch (err) {
    await close(as);
    throw err;
  }
  return {
    asUrl,
    rsUrl,
    stop: async () => {
      await mcp.close().catch(() => {});
      await Promise.all([close(as), close(rs)]);
    },
  };
}
