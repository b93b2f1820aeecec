/**
 * The client under test for the MCP conformance suite's authorization
 * scenarios (scripts/conformance/README.md). The suite runs it as
 * `node dist/conformance-client.mjs <serverUrl>` with the scenario's name in
 * MCP_CONFORMANCE_SCENARIO, its data (pre-registered credentials…) in
 * MCP_CONFORMANCE_CONTEXT, and the protocol version to speak in
 * MCP_CONFORMANCE_PROTOCOL_VERSION; then judges what it saw on the wire.
 *
 * It drives the Worker's own OAuth code: the vault's decisions
 * (src/auth/server-credentials.ts, over a record in memory instead of a
 * sealed Durable Object row), the flow (flow.ts: the SDK's `auth()` over a
 * RecordProvider), guarded-fetch.ts, and the transport's token source
 * (vault-auth.ts, asking ServerCredentials directly instead of over RPC):
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
 *   'throw', as in src/mcp/connection/transport.ts), the vault records the challenged
 *   scope, and the next connect asks for the union with what was granted.
 *
 * The user stands in for the Worker's only loop guard (a person clicks each
 * connect link): here they connect at most MAX_CONNECTS_PER_OPERATION times
 * for one operation — once to connect, once to grant more.
 */
import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import type { SigningAlg } from '../../src/auth/client-assertion';
import type { FlowTarget } from '../../src/auth/flow';
import { authRequiredIn } from '../../src/auth/grant';
import { guardedFetch } from '../../src/auth/guarded-fetch';
import type { ClientIdentity, CredentialRecord } from '../../src/auth/record-provider';
import { ServerCredentials } from '../../src/auth/server-credentials';
import { VaultAuth } from '../../src/auth/vault-auth';
import { CALLBACK_PATH } from '../../src/config/oauth';

/** The origin the harness plays the Worker at: its redirect URI is under it. Never fetched (the redirect is read, not followed). */
const PUBLIC_ORIGIN = 'https://conformance-test.local';
/**
 * The client ID metadata document URL the suite's CIMD scenarios expect as
 * `client_id` (the Worker's own is `${PUBLIC_URL}/oauth/client-metadata.json`;
 * the suite accepts only this one, without fetching it).
 */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';
const MAX_CONNECTS_PER_OPERATION = 2;
const SERVER_ID = 'conformance';

/** The subset of a server's `auth` config (src/config/servers.ts) the scenarios need. */
type AuthConfig =
  | { type: 'oauth'; clientId?: string; clientSecret?: string; scopes?: string[] }
  | {
      type: 'client_credentials';
      clientId: string;
      clientSecret?: string;
      /** `private_key_jwt`: the PEM key (a Worker secret's value in the Worker) and its algorithm. */
      privateKey?: { pem: string; alg: SigningAlg };
      /** Workload identity federation: the platform's token (the JWT bearer grant). */
      assertion?: string;
      scopes?: string[];
    };

const log = (...parts: unknown[]) => console.error('[harness]', ...parts);

/**
 * The user follows a connect link — the vault's `begin` (ServerCredentials.start
 * with a fresh state), the browser at the authorization server, the callback
 * route's state check, the vault's `finish` (ServerCredentials.complete) —
 * as src/auth/vault.ts and src/http/routes/oauth.ts do, minus the sealing
 * and the cookie (there is one process and no browser).
 */
async function connectUser(credentials: ServerCredentials): Promise<void> {
  const state = crypto.randomUUID();
  const { authorizationUrl, pending } = await credentials.start(state);
  log('authorization URL:', authorizationUrl.href);
  const callback = await followAuthorization(authorizationUrl);
  if (callback.state !== state)
    throw new Error(`the callback's state ${JSON.stringify(callback.state)} is not the one sent`);
  if (callback.error) throw new Error(`the authorization server refused: ${callback.error}`);
  if (!callback.code) throw new Error('the authorization server sent no code');
  await credentials.complete(pending, { code: callback.code, iss: callback.iss });
  log('connected:', JSON.stringify(await credentials.status(SERVER_ID)));
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
  if (response.status < 300 || response.status > 399 || !location)
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  const redirect = new URL(location, url);
  const expected = new URL(CALLBACK_PATH, PUBLIC_ORIGIN);
  if (redirect.origin + redirect.pathname !== expected.href)
    throw new Error(`redirected to ${redirect.origin}${redirect.pathname}, not our redirect URI`);
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
  if (scenario === 'auth/wif-jwt-bearer') {
    // The platform's workload token, as an operator would store it in a Worker secret (`assertion`).
    const token = typeof context.valid_jwt === 'string' ? context.valid_jwt : undefined;
    if (!clientId || !token) throw new Error(`${scenario}: needs client_id and valid_jwt in its context`);
    return { type: 'client_credentials', clientId, assertion: token };
  }
  if (scenario.startsWith('auth/client-credentials-')) {
    // Our client_credentials config: a client id and a client secret (client_secret_basic), or a private key
    // (private_key_jwt) and its algorithm.
    const pem = typeof context.private_key_pem === 'string' ? context.private_key_pem : undefined;
    const alg = (typeof context.signing_algorithm === 'string' ? context.signing_algorithm : 'ES256') as SigningAlg;
    if (clientId && pem) return { type: 'client_credentials', clientId, privateKey: { pem, alg } };
    if (!clientId || !clientSecret)
      throw new Error(
        `${scenario}: our client credentials need a client id and secret; the scenario gives ${Object.keys(context).join(', ')}`,
      );
    return { type: 'client_credentials', clientId, clientSecret };
  }
  return { type: 'oauth', ...(clientId ? { clientId } : {}), ...(clientSecret ? { clientSecret } : {}) };
}

/** src/auth/vault.ts's identityOf, with PUBLIC_URL standing for the harness's origin. */
function identityOf(auth: AuthConfig): ClientIdentity {
  if (auth.type === 'client_credentials')
    return {
      preregistered: { clientId: auth.clientId, clientSecret: auth.clientSecret, privateKey: auth.privateKey },
      scope: auth.scopes?.join(' '),
      workloadToken: auth.assertion,
    };
  return {
    redirectUri: `${PUBLIC_ORIGIN}${CALLBACK_PATH}`,
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(auth.clientId ? { preregistered: { clientId: auth.clientId, clientSecret: auth.clientSecret } } : {}),
  };
}

/** src/mcp/connection/connection.ts's negotiationMode: the version the suite asks for, pinned. */
function negotiationMode(version: string | undefined): VersionNegotiationMode {
  return version && version >= '2026-07-28' ? { pin: version } : 'legacy';
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
  // The Worker's own decisions (src/auth/server-credentials.ts) over a record in memory, and its transport-side token source.
  let record: CredentialRecord = {};
  const credentials = new ServerCredentials(
    { load: async () => structuredClone(record), save: async (next) => void (record = structuredClone(next)) },
    () => target,
    { type: auth.type, scopes: auth.scopes },
  );
  const provider = new VaultAuth(credentials, SERVER_ID);

  let client: Client | undefined;
  const connection = async (): Promise<Client> => {
    if (client) return client;
    const fresh = new Client(
      { name: 'mcp-ondemand', version: '0.1.0' },
      { capabilities: {}, versionNegotiation: { mode: negotiationMode(version) } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), {
      authProvider: provider,
      onInsufficientScope: 'throw',
    });
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
        const needed =
          authRequiredIn(error) ?? (scopeError ? await provider.needsScope(scopeError.requiredScope) : undefined);
        if (!needed) throw error;
        if (connects >= MAX_CONNECTS_PER_OPERATION)
          throw new Error(`${name}: the server still needs the user after ${connects} connects: ${needed.message}`, {
            cause: error,
          });
        log(`${name}: ${needed.message}`);
        if (auth.type !== 'oauth')
          throw new Error(`${name}: client credentials: there is no user to connect`, { cause: error });
        await connectUser(credentials);
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
