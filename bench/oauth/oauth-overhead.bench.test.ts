import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import {
  auth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthTokens,
  type StoredOAuthClientInformation,
} from '@modelcontextprotocol/client';
import { inject, it } from 'vitest';
import { VaultAuth } from '../../src/auth/vault-auth';
import { vaultOf, vaultSource } from '../../src/auth/vault';
import { InvalidationLog } from '../../src/cache/invalidation-log';
import { ResourceCache } from '../../src/cache/resource-cache';
import { loadConfig } from '../../src/config';
import { McpServerConfigSchema } from '../../src/config/servers';
import { McpSessions } from '../../src/mcp/sessions';
import { ServerStateStore } from '../../src/mcp/catalog/state-store';
import { connect, control } from '../../test/helpers/oauth';

/**
 * What OAuth costs the service, each next to a baseline run side by side in
 * the same process against the same servers (test/infra/oauth-servers.ts):
 * - a tool call through an `oauth` server (token from the user's vault, held
 *   in memory) vs the same server with the same kind of token as a static
 *   `secret:` header;
 * - connecting (our link, start route, vault, callback) vs the SDK's `auth()`
 *   alone with an in-memory provider (the same discovery, PKCE, exchange);
 * - a refresh through the vault (RPC, unseal, refresh, seal) vs the SDK's
 *   refresh with an in-memory provider.
 */
const as = inject('oauthAsUrl');
const rs = inject('oauthRsUrl');
const OWNER = { tenant: 'default', user: 'anonymous' };
const ORIGIN = 'https://bench.mcp-ondemand.test';
const CALLS = { rounds: 30, batch: 10 };
const CONNECTS = 20;
const REFRESHES = 30;

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const stats = (xs: number[]) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), n: xs.length });

async function timed(run: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await run();
  return performance.now() - t0;
}

/** A client-credentials token from the same authorization server: the baseline's static header. */
async function staticToken(): Promise<string> {
  const response = await fetch(`${as}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${btoa('tenant-bot:tenant-bot-secret')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'mcp:read', resource: rs }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

function sessionsIn(
  storage: DurableObjectStorage,
  server: object,
  extraEnv: Record<string, string>,
  withVault: boolean,
) {
  const settings = loadConfig(env).settings;
  const cache = new ResourceCache(
    env.RESOURCE_CACHE,
    new InvalidationLog(storage.sql, settings.CACHE_MAX_AGE_MS),
    { shared: 'bench:shared', user: 'bench:user' },
    settings,
  );
  return new McpSessions({
    servers: [McpServerConfigSchema.parse(server)],
    env: { ...env, ...extraEnv },
    settings,
    store: new ServerStateStore(storage.sql),
    cache,
    ...(withVault
      ? { authFor: (config: { id: string }) => new VaultAuth(vaultSource(env, OWNER, config.id), config.id) }
      : {}),
  });
}

/** The SDK alone: an OAuthClientProvider keeping everything in memory (discovery kept across runs, as our vault keeps it). */
class MemoryProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private verifier = '';
  private client: StoredOAuthClientInformation | undefined;
  private saved: StoredOAuthTokens | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  readonly redirectUrl = `${ORIGIN}/oauth/callback`;
  readonly clientMetadataUrl = `${ORIGIN}/oauth/client-metadata.json`;
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'bench',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state = () => crypto.randomUUID();
  clientInformation = () => this.client;
  saveClientInformation = (client: StoredOAuthClientInformation) => void (this.client = client);
  tokens = () => this.saved;
  saveTokens = (tokens: StoredOAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
  saveDiscoveryState = (state: OAuthDiscoveryState) => void (this.discovery = state);
  discoveryState = () => this.discovery;
}

async function sdkConnect(provider: MemoryProvider): Promise<void> {
  await auth(provider, { serverUrl: rs, forceReauthorization: true });
  const approved = await fetch(provider.authorizationUrl!, { redirect: 'manual' });
  const callback = new URL(approved.headers.get('location')!);
  await approved.body?.cancel();
  await auth(provider, {
    serverUrl: rs,
    authorizationCode: callback.searchParams.get('code')!,
    iss: callback.searchParams.get('iss') ?? undefined,
  });
}

it('OAuth overhead: tool calls, connecting, refreshing — each against a baseline', async () => {
  await control('reset', {});
  await connect('anonymous', 'account');
  const token = await staticToken();
  const host = env.CONVERSATION.getByName('bench-oauth');

  const calls = await runInDurableObject(host, async (_instance, state) => {
    const ours = sessionsIn(
      state.storage,
      { id: 'account', url: rs, transport: 'streamable-http', auth: { type: 'oauth' } },
      {},
      true,
    );
    const base = sessionsIn(
      state.storage,
      { id: 'static', url: rs, transport: 'streamable-http', headers: { Authorization: 'secret:BENCH_STATIC_TOKEN' } },
      { BENCH_STATIC_TOKEN: `Bearer ${token}` },
      false,
    );
    // Connected and listed first: the calls below measure steady state.
    await ours.callTool('account', 'whoami', {});
    await base.callTool('static', 'whoami', {});
    const samples = { ours: [] as number[], base: [] as number[] };
    for (let round = 0; round < CALLS.rounds; round++) {
      const order = round % 2 ? (['base', 'ours'] as const) : (['ours', 'base'] as const);
      for (const which of order) {
        const sessions = which === 'ours' ? ours : base;
        const id = which === 'ours' ? 'account' : 'static';
        const total = await timed(async () => {
          for (let i = 0; i < CALLS.batch; i++) await sessions.callTool(id, 'whoami', {});
        });
        samples[which].push(total / CALLS.batch);
      }
    }
    await ours.release();
    await base.release();
    return { ours: stats(samples.ours), base: stats(samples.base) };
  });

  const provider = new MemoryProvider();
  await sdkConnect(provider); // discovery kept from here on, as the vault keeps it
  const connects = { ours: [] as number[], base: [] as number[] };
  for (let i = 0; i < CONNECTS; i++) {
    const pair = [
      async () =>
        connects.ours.push(
          await timed(async () => {
            const page = await connect('anonymous', 'account');
            if (page.status !== 200) throw new Error(`connect: ${page.status}`);
            await page.body?.cancel();
          }),
        ),
      async () => connects.base.push(await timed(() => sdkConnect(provider))),
    ];
    for (const run of i % 2 ? pair.reverse() : pair) await run();
  }

  // Tokens that live 60 s are within the vault's minute of margin at once: every accessToken() refreshes.
  await control('config', { accessTokenTtlSeconds: 60 });
  await connect('anonymous', 'account');
  await sdkConnect(provider);
  const vault = vaultOf(env, OWNER);
  const refreshes = { ours: [] as number[], base: [] as number[] };
  for (let i = 0; i < REFRESHES; i++) {
    const pair = [
      async () =>
        refreshes.ours.push(
          await timed(async () => {
            const grant = await vault.accessToken(OWNER, 'account');
            if (grant.status !== 'authorized') throw new Error(`refresh: ${JSON.stringify(grant)}`);
          }),
        ),
      async () => refreshes.base.push(await timed(() => auth(provider, { serverUrl: rs }))),
    ];
    for (const run of i % 2 ? pair.reverse() : pair) await run();
  }
  const refreshCount = (
    await control<{ tokenRequests: Array<{ grantType: string; outcome: string }> }>('state')
  ).tokenRequests.filter((r) => r.grantType === 'refresh_token' && r.outcome === 'ok').length;

  console.log(
    `BENCH_RESULT oauth ${JSON.stringify({ calls: { ...calls, batch: CALLS.batch }, connects: { ours: stats(connects.ours), base: stats(connects.base) }, refreshes: { ours: stats(refreshes.ours), base: stats(refreshes.base), ok: refreshCount } })}`,
  );
});
