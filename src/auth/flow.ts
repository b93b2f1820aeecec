import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { RecordProvider, type ClientIdentity, type CredentialRecord } from './record-provider';

/**
 * The three OAuth steps of this service, over the SDK's `auth()` and a
 * credential record: no storage, no Durable Object — the vault (vault.ts)
 * persists around them, and the conformance harness
 * (scripts/conformance/client.ts) runs them as they are.
 */
export interface FlowTarget {
  /** The MCP server (the protected resource). */
  serverUrl: string;
  identity: ClientIdentity;
  /** Every OAuth request goes through it (guarded-fetch.ts in the Worker). */
  fetchFn: typeof fetch;
}

/**
 * Starts an authorization: the scope is what the server challenges for (the
 * 401 a client meets first), or `scope` when given (configured scopes, or a
 * step-up's union), else the server's metadata's; discovery and registration
 * as needed; PKCE. Returns where to send the user and the verifier to keep.
 * The record gains the registration and discovery results (not tokens).
 */
export async function startAuthorization(
  target: FlowTarget,
  record: CredentialRecord,
  state: string,
  scope?: string,
): Promise<{ authorizationUrl: URL; codeVerifier: string }> {
  // A new authorization discovers afresh: the server may have moved to another authorization server (SEP-2352);
  // the SDK then sets aside the old one's registration and tokens (their issuer stamps differ). Refreshes keep the cache.
  delete record.discovery;
  const provider = new RecordProvider(record, target.identity, { state });
  const challenge = scope ? undefined : await challengeOf(target.serverUrl, target.fetchFn);
  const wanted = scope ?? challenge?.scope;
  const result = await auth(provider, {
    serverUrl: target.serverUrl,
    fetchFn: target.fetchFn,
    // A new authorization even when a refresh token exists: the user asked to connect (again, or for more).
    forceReauthorization: true,
    ...(wanted ? { scope: wanted } : {}),
    ...(challenge?.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
  });
  if (result !== 'REDIRECT' || !provider.authorizationUrl || !provider.savedCodeVerifier)
    throw new Error('the authorization server did not start an authorization');
  return { authorizationUrl: provider.authorizationUrl, codeVerifier: provider.savedCodeVerifier };
}

/** The callback: exchanges the code (the SDK checks `iss` and the issuer recorded at the start). The record gains the tokens. */
export async function completeAuthorization(
  target: FlowTarget,
  record: CredentialRecord,
  codeVerifier: string,
  callback: { code: string; iss?: string | undefined },
): Promise<void> {
  const provider = new RecordProvider(record, target.identity, { codeVerifier });
  // `iss` present but empty is still compared (RFC 9207): only an absent one is left out.
  await auth(provider, {
    serverUrl: target.serverUrl,
    authorizationCode: callback.code,
    fetchFn: target.fetchFn,
    ...(callback.iss !== undefined ? { iss: callback.iss } : {}),
  });
  if (!record.tokens?.access_token) throw new Error('no token was issued');
}

/**
 * New tokens without the user: a refresh (rotating refresh tokens are
 * replaced), or for client credentials a new grant. `needs_user` when the
 * authorization server refused (revoked, expired): the record's tokens are gone.
 */
export async function renewTokens(target: FlowTarget, record: CredentialRecord): Promise<'renewed' | 'needs_user'> {
  const provider = new RecordProvider(record, target.identity);
  const result = await auth(provider, { serverUrl: target.serverUrl, fetchFn: target.fetchFn });
  if (result === 'AUTHORIZED' && record.tokens?.access_token) return 'renewed';
  delete record.tokens;
  delete record.expiresAt;
  return 'needs_user';
}

/**
 * What the server says when asked without a token: the scope it wants and
 * where its resource metadata is. Undefined when it says nothing useful (or
 * cannot be reached: discovery will say why).
 */
async function challengeOf(
  serverUrl: string,
  fetchFn: typeof fetch,
): Promise<{ scope?: string; resourceMetadataUrl?: URL } | undefined> {
  try {
    const response = await fetchFn(serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    });
    await response.body?.cancel();
    if (response.status !== 401) return undefined;
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    return { ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
  } catch {
    return undefined;
  }
}
