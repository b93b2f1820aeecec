/**
 * The client under test for the MCP conformance suite's authorization
 * scenarios (scripts/conformance/README.md). The suite runs it as
 * `node dist/conformance-client.mjs <serverUrl>` with the scenario's name in
 * MCP_CONFORMANCE_SCENARIO, its data (pre-registered credentials…) in
 * MCP_CONFORMANCE_CONTEXT, and the protocol version to speak in
 * MCP_CONFORMANCE_PROTOCOL_VERSION; then judges what it saw on the wire.
 *
 * It drives the Worker's own OAuth code — src/auth/flow.ts (the SDK's
 * `auth()` over a RecordProvider), guarded-fetch.ts — exactly as the vault
 * (src/auth/vault.ts) and the transport's VaultAuth (src/auth/vault-auth.ts)
 * do, with the vault's records kept in memory instead of a Durable Object:
 *
 * - a request without a token meets a 401: the vault has nothing, so the
 *   conversation is told `auth_required` (AuthRequiredError);
 * - the user follows the connect link: `startAuthorization` with a fresh
 *   state, the browser follows the authorization URL (the suite's
 *   authorization server approves at once and redirects), the callback checks
 *   `state` is ours and passes `code` and `iss` to `completeAuthorization`;
 * - the operation is retried on a new connection with the token;
 * - a later 401: `renewTokens` (refresh, or a new client-credentials token),
 *   else the user connects again;
 * - 403 insufficient_scope: the transport throws (onInsufficientScope
 *   'throw', as in src/mcp/transport.ts), the vault records the challenged
 *   scope, and the next connect asks for the union with what was granted.
 *
 * The user stands in for the Worker's only loop guard (a person clicks each
 * connect link): here they connect at most MAX_CONNECTS_PER_OPERATION times
 * for one operation — once to connect, once to grant more.
 */
import { Client, InsufficientScopeError, StreamableHTTPClientTransport, type AuthProvider, type VersionNegotiationMode } from '@modelcontextprotocol/client';
import { completeAuthorization, renewTokens, startAuthorization, type FlowTarget } from '../../src/auth/flow';
import { AuthRequiredError, authRequiredIn, type AccessGrant } from '../../src/auth/grant';
import { guardedFetch } from '../../src/auth/guarded-fetch';
import type { ClientIdentity, CredentialRecord } from '../../src/auth/record-provider';
import { CALLBACK_PATH } from '../../src/config/oauth';

/** The origin the harness plays the Worker at: its redirect URI is under it. Never fetched (the redirect is read, not followed). */
const PUBLIC_ORIGIN = 'https://conformance-test.local';
/**
 * The client ID metadata document URL the suite's CIMD scenarios expect as
 * `client_id` (the Worker's own is `${PUBLIC_URL}/oauth/client-metadata.json`;
 * the suite accepts only this one, without fetching it).
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
/** As src/auth/vault.ts: a token this close to its expiry is renewed first. */
const REFRESH_MARGIN_MS = 60_000;
const MAX_CONNECTS_PER_OPERATION = 2;
const SERVER_ID = 'conformance';

/** The subset of a server's `auth` config (src/config/servers.ts) the scenarios need. */
type AuthConfig = { type: 'oauth'; clientId?: string; clientSecret?: string; scopes?: string[] } | { type: 'client_credentials'; clientId: string; clientSecret?: string; scopes?: string[] };

const log = (...parts: unknown[]) => console.error('[harness]', ...parts);

/**
 * The vault's part (src/auth/vault.ts), one server, one owner, in memory:
 * the same decisions in the same order, around the same flow functions.
 */
class MemoryVault {
  private record: CredentialRecord = {};
  private renewing: Promise<AccessGrant> | undefined;

  constructor(
    private readonly target: FlowTarget,
    private readonly auth: AuthConfig,
  ) {}

  /** TokenVault.accessToken */
  async accessToken(): Promise<AccessGrant> {
    const record = this.record;
    const token = record.tokens?.access_token;
    if (token && !(record.expiresAt !== undefined && record.expiresAt - Date.now() < REFRESH_MARGIN_MS)) return granted(record);
    if (this.auth.type === 'client_credentials' || record.tokens?.refresh_token) return this.renew();
    return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
  }

  /** TokenVault.unauthorized */
  async unauthorized(failedToken: string | undefined): Promise<AccessGrant> {
    const record = this.record;
    if (record.tokens?.access_token && record.tokens.access_token !== failedToken) return granted(record);
    if (this.auth.type === 'client_credentials' || record.tokens?.refresh_token) {
      if (record.tokens) record.expiresAt = 0;
      return this.renew();
    }
    delete record.tokens;
    return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
  }

  /** TokenVault.needsScope */
  async needsScope(scope: string | undefined): Promise<void> {
    const record = this.record;
    record.stepUpScope = union(record.stepUpScope, scope) || record.tokens?.scope || 'unknown';
  }

  /**
   * The user follows a connect link: TokenVault.begin, the browser at the
   * authorization server, then the callback route and TokenVault.finish.
   */
  async connect(): Promise<void> {
    if (this.auth.type !== 'oauth') throw new Error('client credentials: there is no user to connect');
    // begin
    const state = crypto.randomUUID();
    const record = this.record;
    const scope = record.stepUpScope ? union(record.tokens?.scope, record.stepUpScope) : this.auth.scopes?.join(' ');
    const { authorizationUrl, codeVerifier } = await startAuthorization(this.target, record, state, scope || undefined);
    const pending = { codeVerifier, ...(record.discovery ? { discovery: structuredClone(record.discovery) } : {}) };
    log('authorization URL:', authorizationUrl.href);
    // the browser: the suite's authorization server approves and redirects to our redirect URI
    const callback = await followAuthorization(authorizationUrl);
    // the callback route: the state must be the one this flow sent
    if (callback.state !== state) throw new Error(`the callback's state ${JSON.stringify(callback.state)} is not the one sent`);
    if (callback.error) throw new Error(`the authorization server refused: ${callback.error}`);
    if (!callback.code) throw new Error('the authorization server sent no code');
    // finish
    const working: CredentialRecord = { ...this.record, ...(pending.discovery ? { discovery: pending.discovery } : {}) };
    await completeAuthorization(this.target, working, pending.codeVerifier, { code: callback.code, iss: callback.iss });
    working.connectedAt = Date.now();
    working.grant = crypto.randomUUID();
    delete working.stepUpScope;
    this.record = working;
    log('connected; granted scope:', working.tokens?.scope ?? '(none said)');
  }

  /** TokenVault.renew / renewNow: one at a time. */
  private renew(): Promise<AccessGrant> {
    this.renewing ??= this.renewNow().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewNow(): Promise<AccessGrant> {
    const record = this.record;
    if (record.tokens?.access_token && record.expiresAt !== undefined && record.expiresAt - Date.now() >= REFRESH_MARGIN_MS) return granted(record);
    let result: 'renewed' | 'needs_user';
    try {
      result = await renewTokens(this.target, record);
    } catch (error) {
      if (record.tokens?.access_token && (record.expiresAt ?? Infinity) > Date.now()) return granted(record);
      return { status: 'error', message: `could not renew the authorization: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (result === 'needs_user') return { status: 'auth_required', reason: 'expired' };
    if (this.auth.type === 'client_credentials') {
      record.grant ??= crypto.randomUUID();
      record.connectedAt ??= Date.now();
    }
    return granted(record);
  }
}

/** The transport's AuthProvider: src/auth/vault-auth.ts's VaultAuth over the in-memory vault. */
class HarnessAuth implements AuthProvider {
  private current: Extract<AccessGrant, { status: 'authorized' }> | undefined;
  private pending: Promise<AccessGrant> | undefined;

  constructor(private readonly vault: MemoryVault) {}

  async token(): Promise<string> {
    const current = this.current;
    if (current && !(current.expiresAt !== undefined && current.expiresAt - Date.now() < REFRESH_MARGIN_MS)) return current.token;
    return this.take(() => this.vault.accessToken());
  }

  async onUnauthorized(): Promise<void> {
    const failed = this.current?.token;
    this.current = undefined;
    await this.take(() => this.vault.unauthorized(failed));
  }

  async needsScope(scope: string | undefined): Promise<AuthRequiredError> {
    await this.vault.needsScope(scope);
    return new AuthRequiredError(SERVER_ID, 'insufficient_scope', scope);
  }

  forget(): void {
    this.current = undefined;
  }

  private async take(ask: () => Promise<AccessGrant>): Promise<string> {
    this.pending ??= ask().finally(() => (this.pending = undefined));
    const answer = await this.pending;
    if (answer.status === 'auth_required') {
      this.current = undefined;
      throw new AuthRequiredError(SERVER_ID, answer.reason, answer.scope);
    }
    if (answer.status === 'error') throw new Error(answer.message);
    this.current = answer;
    return answer.token;
  }
}

/**
 * What a browser does with the authorization URL: the suite's authorization
 * server answers with a redirect to our redirect URI, whose query we read
 * (nothing listens there, and nothing needs to).
 */
async function followAuthorization(url: URL): Promise<{ code?: string; state?: string; iss?: string; error?: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status < 300 || response.status > 399 || !location) throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  const redirect = new URL(location, url);
  const expected = new URL(CALLBACK_PATH, PUBLIC_ORIGIN);
  if (redirect.origin + redirect.pathname !== expected.href) throw new Error(`redirected to ${redirect.origin}${redirect.pathname}, not our redirect URI`);
  const param = (name: string) => redirect.searchParams.get(name) ?? undefined;
  const error = param('error');
  return {
    ...(param('code') !== undefined ? { code: param('code') } : {}),
    ...(param('state') !== undefined ? { state: param('state') } : {}),
    ...(param('iss') !== undefined ? { iss: param('iss') } : {}),
    ...(error !== undefined ? { error: [error, param('error_description')].filter(Boolean).join(': ') } : {}),
  };
}

/** The server's `auth` config an operator would write for this scenario (its context carries any pre-registered client). */
function authConfigOf(scenario: string, context: Record<string, unknown>): AuthConfig {
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  if (scenario.startsWith('auth/client-credentials-')) {
    // Our client_credentials config is a client id and a client secret (client_secret_basic): nothing else to configure.
    if (!clientId || !clientSecret) throw new Error(`${scenario}: our client credentials need a client id and secret; the scenario gives ${Object.keys(context).join(', ')}`);
    return { type: 'client_credentials', clientId, clientSecret };
  }
  return { type: 'oauth', ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}) };
}

/** src/auth/vault.ts's identityOf, with PUBLIC_URL standing for the harness's origin. */
function identityOf(auth: AuthConfig): ClientIdentity {
  if (auth.type === 'client_credentials') return { preregistered: { clientId: auth.clientId, clientSecret: auth.clientSecret }, scope: auth.scopes?.join(' ') };
  return {
    redirectUri: `${PUBLIC_ORIGIN}${CALLBACK_PATH}`,
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(auth.clientId ? { preregistered: { clientId: auth.clientId, clientSecret: auth.clientSecret } } : {}),
  };
}

/** src/mcp/connection.ts's negotiationMode: the version the suite asks for, pinned. */
function negotiationMode(version: string | undefined): VersionNegotiationMode {
  return version && version >= '2026-07-28' ? { pin: version } : 'legacy';
}

function granted(record: CredentialRecord): AccessGrant {
  return {
    status: 'authorized',
    token: record.tokens!.access_token,
    expiresAt: record.expiresAt,
    grant: record.grant ?? 'initial',
    ...(record.stepUpScope ? { stepUpScope: record.stepUpScope } : {}),
  };
}

function union(...scopes: (string | undefined)[]): string {
  return [...new Set(scopes.flatMap((s) => s?.split(' ').filter(Boolean) ?? []))].join(' ');
}

function insufficientScopeIn(error: unknown): InsufficientScopeError | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof InsufficientScopeError) return e;
  }
  return undefined;
}

async function main(): Promise<void> {
  const serverUrl = process.argv[2];
  if (!serverUrl) throw new Error('usage: conformance-client <serverUrl>');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as Record<string, unknown>;
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  log(`scenario ${scenario || '(none)'} at ${serverUrl}, protocol ${version ?? '(default)'}`);

  const auth = authConfigOf(scenario, context);
  // The test servers are http on 127.0.0.1/localhost: allowed as with ALLOW_PRIVATE_MCP_URLS in tests.
  const target: FlowTarget = { serverUrl, identity: identityOf(auth), fetchFn: guardedFetch(true) };
  const vault = new MemoryVault(target, auth);
  const provider = new HarnessAuth(vault);

  let client: Client | undefined;
  const connection = async (): Promise<Client> => {
    if (client) return client;
    const fresh = new Client({ name: 'mcp-ondemand', version: '0.1.0' }, { capabilities: {}, versionNegotiation: { mode: negotiationMode(version) } });
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, onInsufficientScope: 'throw' });
    try {
      await fresh.connect(transport);
    } catch (error) {
      await fresh.close().catch(() => {});
      throw error;
    }
    client = fresh;
    return fresh;
  };
  /** One operation as a conversation runs it: when the server needs the user, they connect (again), then it is retried. */
  const operation = async <T>(name: string, run: (c: Client) => Promise<T>): Promise<T> => {
    for (let connects = 0; ; connects++) {
      try {
        return await run(await connection());
      } catch (error) {
        const scopeError = insufficientScopeIn(error);
        const needed = authRequiredIn(error) ?? (scopeError ? await provider.needsScope(scopeError.requiredScope) : undefined);
        if (!needed) throw error;
        if (connects >= MAX_CONNECTS_PER_OPERATION) throw new Error(`${name}: the server still needs the user after ${connects} connects: ${needed.message}`, { cause: error });
        log(`${name}: ${needed.message}`);
        await vault.connect();
        // SessionRegistry.reauthorized: the held token and the connection made with the old grant go.
        provider.forget();
        await client?.close().catch(() => {});
        client = undefined;
      }
    }
  };

  await operation('connect', async () => {});
  const tools = await operation('tools/list', (c) => c.listTools());
  log('tools:', tools.tools.map((t) => t.name).join(', ') || '(none)');
  const tool = tools.tools.find((t) => t.name === 'test-tool') ?? tools.tools[0];
  if (tool) {
    const result = await operation('tools/call', (c) => c.callTool({ name: tool.name, arguments: {} }));
    log('tools/call:', JSON.stringify(result).slice(0, 200));
  }
  await client?.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log('failed:', error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
