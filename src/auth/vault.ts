import { DurableObject } from 'cloudflare:workers';
import { loadConfig, serversOf, type McpServerConfig } from '../config';
import { oauthSetup, type OAuthSetup } from '../config/oauth';
import { secretNamed } from '../config/secrets';
import { ApiError, notFound } from '../errors';
import { toRpcResult, type RpcResult } from '../rpc';
import type { FlowTarget } from './flow';
import type { AccessGrant, ConnectionStatus } from './grant';
import { guardedFetch, urlProblem } from './guarded-fetch';
import type { ClientIdentity, CredentialRecord, PendingAuthorization } from './record-provider';
import { oauthErrorText, ServerCredentials, type TokenSource } from './server-credentials';
import { AUTHORIZATION_TTL_MS, keyRing, type VaultOwner } from './tickets';

/** The vault of an end user (OAuth) or of a tenant (client credentials). */
export const vaultName = (owner: VaultOwner) =>
  owner.user ? `user:${owner.tenant}:${owner.user}` : `tenant:${owner.tenant}`;
export const vaultOf = (env: Env, owner: VaultOwner) => env.TOKEN_VAULT.getByName(vaultName(owner));

/** A conversation's token source for one server: its owner's vault, over RPC. */
export function vaultSource(env: Env, owner: VaultOwner, server: string): TokenSource {
  return {
    accessToken: () => vaultOf(env, owner).accessToken(owner, server),
    unauthorized: (failed) => vaultOf(env, owner).unauthorized(owner, server, failed),
    needsScope: (scope) => vaultOf(env, owner).needsScope(owner, server, scope),
  };
}

/**
 * Where one owner's authorizations to MCP servers live (docs/design/oauth.md):
 * per server, one record (our client registration, the tokens, discovery
 * results) sealed with AES-GCM (OAUTH_TOKEN_KEYS), and the authorizations in
 * flight, each usable once. The decisions are ServerCredentials'; all OAuth
 * requests go through `guardedFetch`. A conversation gets an access token
 * and nothing else.
 */
export class TokenVault extends DurableObject<Env> {
  private readonly byServer = new Map<string, ServerCredentials>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS credentials (server TEXT PRIMARY KEY, sealed TEXT NOT NULL)`);
    sql.exec(
      `CREATE TABLE IF NOT EXISTS pending (nonce TEXT PRIMARY KEY, sealed TEXT NOT NULL, expires INTEGER NOT NULL)`,
    );
    sql.exec(`CREATE TABLE IF NOT EXISTS used_tickets (nonce TEXT PRIMARY KEY, expires INTEGER NOT NULL)`);
  }

  /** A token for `server`, refreshed first when it is about to expire; or why there is none. */
  accessToken(owner: VaultOwner, serverId: string): Promise<AccessGrant> {
    return this.credentials(owner, serverId).accessToken();
  }

  /** The server refused `failedToken` (401). */
  unauthorized(owner: VaultOwner, serverId: string, failedToken: string | undefined): Promise<AccessGrant> {
    return this.credentials(owner, serverId).unauthorized(failedToken);
  }

  /** The server wants more access (403 insufficient_scope); false when the grant already has it. */
  needsScope(owner: VaultOwner, serverId: string, scope: string | undefined): Promise<boolean> {
    return this.credentials(owner, serverId).needsScope(scope);
  }

  /**
   * Starts an authorization (the start route, once per connect link):
   * returns where to send the user. `state` is sealed by the caller and
   * names `stateNonce`, under which the authorization waits for its callback.
   */
  begin(
    owner: VaultOwner,
    serverId: string,
    flow: { ticketNonce: string; ticketExpiresAt: number; state: string; stateNonce: string },
  ): Promise<RpcResult<string>> {
    return toRpcResult(async () => {
      const server = this.server(owner, serverId);
      if (server.auth.type !== 'oauth')
        throw new ApiError(400, 'not_oauth', `MCP server "${serverId}" is not connected per user`);
      const sql = this.ctx.storage.sql;
      sql.exec(`DELETE FROM used_tickets WHERE expires < ?`, Date.now());
      sql.exec(`DELETE FROM pending WHERE expires < ?`, Date.now());
      if (sql.exec(`SELECT 1 FROM used_tickets WHERE nonce = ?`, flow.ticketNonce).toArray().length) {
        throw new ApiError(400, 'link_used', 'This connect link was already used; start again from the chat');
      }
      sql.exec(`INSERT INTO used_tickets (nonce, expires) VALUES (?, ?)`, flow.ticketNonce, flow.ticketExpiresAt);
      const { authorizationUrl, pending } = await this.oauth(serverId, () =>
        this.credentials(owner, serverId).start(flow.state),
      );
      const problem = urlProblem(authorizationUrl, this.setup().allowPrivate);
      if (problem)
        throw new ApiError(
          502,
          'oauth_error',
          `MCP server "${serverId}": its authorization endpoint is refused: ${problem}`,
        );
      const row: PendingAuthorization = { ...pending, server: serverId, expiresAt: Date.now() + AUTHORIZATION_TTL_MS };
      const sealed = await (await keyRing(this.setup())).seal(JSON.stringify(row), `pending:${flow.stateNonce}`);
      sql.exec(`INSERT INTO pending (nonce, sealed, expires) VALUES (?, ?, ?)`, flow.stateNonce, sealed, row.expiresAt);
      return authorizationUrl.href;
    });
  }

  /** The callback: the authorization named by `stateNonce` is used up, its code exchanged; returns the new grant's id. */
  finish(
    owner: VaultOwner,
    serverId: string,
    stateNonce: string,
    callback: { code: string; iss?: string | undefined },
  ): Promise<RpcResult<string>> {
    return toRpcResult(async () => {
      const credentials = this.credentials(owner, serverId);
      const pending = await this.takePending(stateNonce);
      if (!pending || pending.server !== serverId)
        throw new ApiError(
          400,
          'invalid_state',
          'This authorization was already completed or has expired; connect again',
        );
      return this.oauth(serverId, () => credentials.complete(pending, callback));
    });
  }

  /** An authorization the user refused (or that failed at the authorization server): forgotten. */
  async abandon(stateNonce: string): Promise<void> {
    await this.takePending(stateNonce);
  }

  /** Where this owner stands with each of the tenant's servers that need an authorization (`GET /v1/connections`). */
  statuses(owner: VaultOwner): Promise<RpcResult<ConnectionStatus[]>> {
    return toRpcResult(() => {
      const wanted = owner.user ? 'oauth' : 'client_credentials';
      const servers = serversOf(loadConfig(this.env), owner.tenant).filter((s) => s.auth.type === wanted);
      return Promise.all(servers.map((server) => this.credentials(owner, server.id).status(server.id)));
    });
  }

  /** Revokes the tokens where the server supports it (RFC 7009), then forgets them. */
  disconnect(
    owner: VaultOwner,
    serverId: string,
  ): Promise<RpcResult<{ revoked: 'revoked' | 'unsupported' | 'failed' | 'nothing' }>> {
    return toRpcResult(async () => ({ revoked: await this.credentials(owner, serverId).disconnect() }));
  }

  // ---- internals ---------------------------------------------------------------

  /** One ServerCredentials per server for this object's life: its refresh and its queue of changes are shared by every caller. */
  private credentials(owner: VaultOwner, serverId: string): ServerCredentials {
    const server = this.server(owner, serverId);
    let credentials = this.byServer.get(serverId);
    if (!credentials) {
      credentials = new ServerCredentials(
        { load: () => this.load(owner, serverId), save: (record) => this.save(owner, serverId, record) },
        () => this.target(this.server(owner, serverId)),
        {
          type: server.auth.type as 'oauth' | 'client_credentials',
          scopes: server.auth.type === 'none' ? undefined : server.auth.scopes,
          server: serverId,
        },
      );
      this.byServer.set(serverId, credentials);
    }
    return credentials;
  }

  private target(server: McpServerConfig): FlowTarget {
    const setup = this.setup();
    return {
      serverUrl: server.url,
      identity: identityOf(server, setup, this.env),
      fetchFn: guardedFetch(setup.allowPrivate),
    };
  }

  private async oauth<T>(serverId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(
        502,
        'oauth_error',
        `MCP server "${serverId}": authorization failed: ${oauthErrorText(error)}`,
      );
    }
  }

  private server(owner: VaultOwner, id: string): McpServerConfig {
    const server = serversOf(loadConfig(this.env), owner.tenant).find((s) => s.id === id);
    const wanted = owner.user ? 'oauth' : 'client_credentials';
    if (!server || server.auth.type !== wanted) throw notFound(`MCP server "${id}" with auth "${wanted}"`);
    return server;
  }

  private setup(): OAuthSetup {
    return oauthSetup(this.env);
  }

  /** Sealed per row: a value copied to another owner's or server's row does not open. */
  private purpose(owner: VaultOwner, serverId: string) {
    return `${vaultName(owner)}:${serverId}`;
  }

  private async load(owner: VaultOwner, serverId: string): Promise<CredentialRecord> {
    const row = this.ctx.storage.sql
      .exec<{ sealed: string }>(`SELECT sealed FROM credentials WHERE server = ?`, serverId)
      .toArray()[0];
    if (!row) return {};
    const ring = await keyRing(this.setup());
    const text = await ring.open(row.sealed, this.purpose(owner, serverId));
    // Under a key no longer listed (rotated out) or altered: as if never connected.
    if (!text) return {};
    const record = JSON.parse(text) as CredentialRecord;
    if (ring.isStale(row.sealed)) await this.save(owner, serverId, record);
    return record;
  }

  private async save(owner: VaultOwner, serverId: string, record: CredentialRecord): Promise<void> {
    const sealed = await (await keyRing(this.setup())).seal(JSON.stringify(record), this.purpose(owner, serverId));
    this.ctx.storage.sql.exec(
      `INSERT INTO credentials (server, sealed) VALUES (?, ?) ON CONFLICT (server) DO UPDATE SET sealed = excluded.sealed`,
      serverId,
      sealed,
    );
  }

  private async takePending(nonce: string): Promise<PendingAuthorization | undefined> {
    const row = this.ctx.storage.sql
      .exec<{ sealed: string; expires: number }>(`DELETE FROM pending WHERE nonce = ? RETURNING sealed, expires`, nonce)
      .toArray()[0];
    if (!row || row.expires < Date.now()) return undefined;
    const text = await (await keyRing(this.setup())).open(row.sealed, `pending:${nonce}`);
    return text ? (JSON.parse(text) as PendingAuthorization) : undefined;
  }
}

/** Who we are to this server's authorization server. Secrets are resolved here, in memory, never stored. */
function identityOf(server: McpServerConfig, setup: OAuthSetup, env: Env): ClientIdentity {
  const secret = (ref: string | undefined, what = 'client secret') => {
    if (!ref) return undefined;
    const value = secretNamed(env, ref);
    if (!value) throw new ApiError(500, 'invalid_config', `MCP server "${server.id}": its ${what} ${ref} is not set`);
    return value;
  };
  const auth = server.auth;
  if (auth.type === 'client_credentials') {
    const pem = secret(auth.privateKey, 'private key');
    return {
      preregistered: {
        clientId: auth.clientId,
        clientSecret: secret(auth.clientSecret),
        ...(pem ? { privateKey: { pem, alg: auth.signingAlg } } : {}),
      },
      scope: auth.scopes?.join(' '),
      workloadToken: secret(auth.assertion, 'workload identity token'),
    };
  }
  if (auth.type !== 'oauth') throw new Error(`MCP server "${server.id}" has no OAuth`);
  return {
    redirectUri: setup.redirectUri,
    clientMetadataUrl: setup.clientMetadataUrl,
    ...(auth.clientId ? { preregistered: { clientId: auth.clientId, clientSecret: secret(auth.clientSecret) } } : {}),
  };
}
