import { DurableObject } from 'cloudflare:workers';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { loadConfig, serversOf, type McpServerConfig } from '../config';
import { oauthSetup, type OAuthSetup } from '../config/oauth';
import { ApiError, notFound } from '../errors';
import { toRpcResult, type RpcResult } from '../rpc';
import type { AccessGrant, ConnectionStatus } from './grant';
import { completeAuthorization, renewTokens, startAuthorization, type FlowTarget } from './flow';
import { guardedFetch, urlProblem } from './guarded-fetch';
import { RecordProvider, type ClientIdentity, type CredentialRecord, type PendingAuthorization } from './record-provider';
import { revokeTokens } from './revoke';
import { AUTHORIZATION_TTL_MS, keyRing, newNonce, type VaultOwner } from './tickets';

/** A token this close to its expiry is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60_000;

/** The vault of an end user (OAuth) or of a tenant (client credentials). */
export const vaultName = (owner: VaultOwner) => (owner.user ? `user:${owner.tenant}:${owner.user}` : `tenant:${owner.tenant}`);
export const vaultOf = (env: Env, owner: VaultOwner) => env.TOKEN_VAULT.getByName(vaultName(owner));

/**
 * Where one owner's authorizations to MCP servers live (docs/design/oauth.md):
 * per server, our client registration, the tokens and discovery results,
 * sealed with AES-GCM (OAUTH_TOKEN_KEYS) — and the authorizations in flight,
 * each usable once. All OAuth requests run here, through `guardedFetch`; a
 * conversation gets an access token (`accessToken`) and nothing else. One
 * refresh at a time per server, so a rotating refresh token is used once.
 */
export class TokenVault extends DurableObject<Env> {
  private readonly refreshing = new Map<string, Promise<AccessGrant>>();
  /**
   * Changes to one server's record, one at a time: each loads, may wait on
   * the network, then saves — two at once (a refresh finishing after a new
   * connect, say) would write back an older record over a newer one.
   */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS credentials (server TEXT PRIMARY KEY, sealed TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS pending (nonce TEXT PRIMARY KEY, sealed TEXT NOT NULL, expires INTEGER NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS used_tickets (nonce TEXT PRIMARY KEY, expires INTEGER NOT NULL)`);
  }

  /** A token for `server`, refreshed first when it is about to expire; or why there is none. */
  async accessToken(owner: VaultOwner, serverId: string): Promise<AccessGrant> {
    const server = this.server(owner, serverId);
    const record = await this.load(owner, serverId);
    const token = record.tokens?.access_token;
    if (token && !(record.expiresAt !== undefined && record.expiresAt - Date.now() < REFRESH_MARGIN_MS)) return granted(record);
    if (server.auth.type === 'client_credentials' || record.tokens?.refresh_token) return this.renew(owner, server);
    return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
  }

  /**
   * The server refused `failedToken` (401). If another request renewed it
   * meanwhile, that token; else a refresh (or, for client credentials, a new
   * token); else the user must connect again.
   */
  async unauthorized(owner: VaultOwner, serverId: string, failedToken: string | undefined): Promise<AccessGrant> {
    const server = this.server(owner, serverId);
    const outcome = await this.serial(serverId, async (): Promise<AccessGrant | 'renew'> => {
      const record = await this.load(owner, serverId);
      if (record.tokens?.access_token && record.tokens.access_token !== failedToken) return granted(record);
      if (server.auth.type === 'client_credentials' || record.tokens?.refresh_token) {
        if (record.tokens) {
          // Refused: whatever it says about its expiry, it is not good any more.
          record.expiresAt = 0;
          await this.save(owner, serverId, record);
        }
        return 'renew';
      }
      if (record.tokens) {
        delete record.tokens;
        await this.save(owner, serverId, record);
      }
      return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
    });
    return outcome === 'renew' ? this.renew(owner, server) : outcome;
  }

  /** The server wants more access (403 insufficient_scope): the next connect asks for it; meanwhile the grant stays. */
  async needsScope(owner: VaultOwner, serverId: string, scope: string | undefined): Promise<void> {
    this.server(owner, serverId);
    await this.serial(serverId, async () => {
      const record = await this.load(owner, serverId);
      record.stepUpScope = union(record.stepUpScope, scope) || record.tokens?.scope || 'unknown';
      await this.save(owner, serverId, record);
    });
  }

  /**
   * Starts an authorization (the start route, once per connect link):
   * discovery, registration when needed, PKCE; returns where to send the
   * user. `state` is sealed by the caller and names `stateNonce`.
   */
  begin(owner: VaultOwner, serverId: string, flow: { ticketNonce: string; ticketExpiresAt: number; state: string; stateNonce: string }): Promise<RpcResult<string>> {
    return toRpcResult(() => this.serial(serverId, () => this.beginNow(owner, serverId, flow)));
  }

  private async beginNow(owner: VaultOwner, serverId: string, flow: { ticketNonce: string; ticketExpiresAt: number; state: string; stateNonce: string }): Promise<string> {
    const server = this.server(owner, serverId);
    if (server.auth.type !== 'oauth') throw new ApiError(400, 'not_oauth', `MCP server "${serverId}" is not connected per user`);
    const sql = this.ctx.storage.sql;
    sql.exec(`DELETE FROM used_tickets WHERE expires < ?`, Date.now());
    sql.exec(`DELETE FROM pending WHERE expires < ?`, Date.now());
    if (sql.exec(`SELECT 1 FROM used_tickets WHERE nonce = ?`, flow.ticketNonce).toArray().length) {
      throw new ApiError(400, 'link_used', 'This connect link was already used; start again from the chat');
    }
    sql.exec(`INSERT INTO used_tickets (nonce, expires) VALUES (?, ?)`, flow.ticketNonce, flow.ticketExpiresAt);
    const setup = this.setup();
    const record = await this.load(owner, serverId);
    const target = this.target(server, setup);
    const scope = record.stepUpScope ? union(record.tokens?.scope, record.stepUpScope) : server.auth.scopes?.join(' ');
    const { authorizationUrl: url, codeVerifier } = await this.oauth(serverId, () => startAuthorization(target, record, flow.state, scope || undefined));
    const problem = urlProblem(url, setup.allowPrivate);
    if (problem) throw new ApiError(502, 'oauth_error', `MCP server "${serverId}": its authorization endpoint is refused: ${problem}`);
    // Registration and discovery are kept (the tokens are untouched: the current grant works until the new one arrives).
    await this.save(owner, serverId, record);
    const pending: PendingAuthorization = {
      server: serverId,
      codeVerifier,
      ...(record.discovery ? { discovery: record.discovery } : {}),
      expiresAt: Date.now() + AUTHORIZATION_TTL_MS,
    };
    const sealed = await (await keyRing(setup)).seal(JSON.stringify(pending), `pending:${flow.stateNonce}`);
    sql.exec(`INSERT INTO pending (nonce, sealed, expires) VALUES (?, ?, ?)`, flow.stateNonce, sealed, pending.expiresAt);
    return url.href;
  }

  /** The callback: the authorization in flight named by `stateNonce` is used up, its code exchanged, the tokens kept. */
  finish(owner: VaultOwner, serverId: string, stateNonce: string, callback: { code: string; iss?: string | undefined }): Promise<RpcResult<string>> {
    return toRpcResult(() => this.serial(serverId, () => this.finishNow(owner, serverId, stateNonce, callback)));
  }

  /** Returns the new grant's id. */
  private async finishNow(owner: VaultOwner, serverId: string, stateNonce: string, callback: { code: string; iss?: string | undefined }): Promise<string> {
    const server = this.server(owner, serverId);
    const pending = await this.takePending(stateNonce);
    if (!pending || pending.server !== serverId) throw new ApiError(400, 'invalid_state', 'This authorization was already completed or has expired; connect again');
    const setup = this.setup();
    const record = await this.load(owner, serverId);
    const working: CredentialRecord = { ...record, ...(pending.discovery ? { discovery: pending.discovery } : {}) };
    await this.oauth(serverId, () => completeAuthorization(this.target(server, setup), working, pending.codeVerifier, callback));
    working.connectedAt = Date.now();
    working.grant = newNonce();
    delete working.stepUpScope;
    await this.save(owner, serverId, working);
    return working.grant;
  }

  /** An authorization the user refused (or that failed at the authorization server): forgotten. */
  async abandon(stateNonce: string): Promise<void> {
    await this.takePending(stateNonce);
  }

  /** This owner's connection to each of the tenant's servers that need one. */
  connections(owner: VaultOwner): Promise<RpcResult<ConnectionStatus[]>> {
    return toRpcResult(() => this.connectionsNow(owner));
  }

  private async connectionsNow(owner: VaultOwner): Promise<ConnectionStatus[]> {
    const servers = serversOf(loadConfig(this.env), owner.tenant).filter((s) => s.auth.type === (owner.user ? 'oauth' : 'client_credentials'));
    return Promise.all(
      servers.map(async (server) => {
        const record = await this.load(owner, server.id);
        const connected = Boolean(record.tokens?.access_token || record.tokens?.refresh_token);
        return {
          server: server.id,
          auth: server.auth.type as ConnectionStatus['auth'],
          status: !connected ? 'not_connected' : record.stepUpScope ? 'step_up_required' : 'connected',
          ...(connected && record.tokens?.scope ? { scope: record.tokens.scope } : {}),
          ...(connected && record.connectedAt ? { connectedAt: new Date(record.connectedAt).toISOString() } : {}),
          ...(connected && record.expiresAt ? { expiresAt: new Date(record.expiresAt).toISOString() } : {}),
        } satisfies ConnectionStatus;
      }),
    );
  }

  /** Revokes the tokens where the server supports it (RFC 7009), then forgets everything about `server` but our client registration. */
  disconnect(owner: VaultOwner, serverId: string): Promise<RpcResult<{ revoked: 'revoked' | 'unsupported' | 'failed' | 'nothing' }>> {
    return toRpcResult(() => this.serial(serverId, () => this.disconnectNow(owner, serverId)));
  }

  private async disconnectNow(owner: VaultOwner, serverId: string): Promise<{ revoked: 'revoked' | 'unsupported' | 'failed' | 'nothing' }> {
    const server = this.server(owner, serverId);
    const setup = this.setup();
    const record = await this.load(owner, serverId);
    let revoked: 'revoked' | 'unsupported' | 'failed' | 'nothing' = 'nothing';
    if (record.tokens) {
      const provider = new RecordProvider(record, identityOf(server, setup, this.env));
      const metadata = record.discovery?.authorizationServerMetadata as AuthorizationServerMetadata | undefined;
      revoked = await revokeTokens(metadata, provider.clientInformation(), record.tokens, guardedFetch(setup.allowPrivate));
    }
    await this.save(owner, serverId, { ...(record.client ? { client: record.client } : {}) });
    return { revoked };
  }

  // ---- internals ---------------------------------------------------------------

  /** One refresh (or client-credentials token) per server at a time; concurrent callers share it. */
  private renew(owner: VaultOwner, server: McpServerConfig): Promise<AccessGrant> {
    let running = this.refreshing.get(server.id);
    if (!running) {
      running = this.serial(server.id, () => this.renewNow(owner, server)).finally(() => this.refreshing.delete(server.id));
      this.refreshing.set(server.id, running);
    }
    return running;
  }

  private async renewNow(owner: VaultOwner, server: McpServerConfig): Promise<AccessGrant> {
    const setup = this.setup();
    const record = await this.load(owner, server.id);
    if (record.tokens?.access_token && record.expiresAt !== undefined && record.expiresAt - Date.now() >= REFRESH_MARGIN_MS) return granted(record);
    let result: 'renewed' | 'needs_user';
    try {
      result = await renewTokens(this.target(server, setup), record);
    } catch (error) {
      // The authorization server is down or answered nonsense: a token still valid is still used.
      if (record.tokens?.access_token && (record.expiresAt ?? Infinity) > Date.now()) return granted(record);
      return { status: 'error', message: `MCP server "${server.id}": could not renew its authorization: ${oauthErrorText(error)}` };
    }
    if (result === 'needs_user') {
      // The refresh was refused (revoked, expired grant): the user must connect again.
      await this.save(owner, server.id, record);
      return { status: 'auth_required', reason: 'expired' };
    }
    if (server.auth.type === 'client_credentials') {
      record.grant ??= newNonce();
      record.connectedAt ??= Date.now();
    }
    await this.save(owner, server.id, record);
    return granted(record);
  }

  private serial<T>(serverId: string, run: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(serverId) ?? Promise.resolve()).then(run, run);
    const settled = next.catch(() => {});
    this.queues.set(serverId, settled);
    void settled.then(() => this.queues.get(serverId) === settled && this.queues.delete(serverId));
    return next;
  }

  private async oauth<T>(serverId: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(502, 'oauth_error', `MCP server "${serverId}": authorization failed: ${oauthErrorText(error)}`);
    }
  }

  private target(server: McpServerConfig, setup: OAuthSetup): FlowTarget {
    return { serverUrl: server.url, identity: identityOf(server, setup, this.env), fetchFn: guardedFetch(setup.allowPrivate) };
  }

  private server(owner: VaultOwner, id: string): McpServerConfig {
    const server = serversOf(loadConfig(this.env), owner.tenant).find((s) => s.id === id);
    const wanted = owner.user ? 'oauth' : 'client_credentials';
    if (!server || server.auth.type !== wanted) throw notFound(`MCP server "${id}" with auth "${wanted}"`);
    return server;
  }

  private setup(): OAuthSetup {
    return oauthSetup(this.env as unknown as Record<string, string>);
  }

  /** Sealed per row: a value copied to another owner's or server's row does not open. */
  private context(owner: VaultOwner, serverId: string) {
    return `${vaultName(owner)}:${serverId}`;
  }

  private async load(owner: VaultOwner, serverId: string): Promise<CredentialRecord> {
    const row = this.ctx.storage.sql.exec<{ sealed: string }>(`SELECT sealed FROM credentials WHERE server = ?`, serverId).toArray()[0];
    if (!row) return {};
    const ring = await keyRing(this.setup());
    const text = await ring.open(row.sealed, this.context(owner, serverId));
    // Under a key no longer listed (rotated out) or altered: as if never connected.
    if (!text) return {};
    const record = JSON.parse(text) as CredentialRecord;
    if (ring.isStale(row.sealed)) await this.save(owner, serverId, record);
    return record;
  }

  private async save(owner: VaultOwner, serverId: string, record: CredentialRecord): Promise<void> {
    const sealed = await (await keyRing(this.setup())).seal(JSON.stringify(record), this.context(owner, serverId));
    this.ctx.storage.sql.exec(`INSERT INTO credentials (server, sealed) VALUES (?, ?) ON CONFLICT (server) DO UPDATE SET sealed = excluded.sealed`, serverId, sealed);
  }

  private async takePending(nonce: string): Promise<PendingAuthorization | undefined> {
    const row = this.ctx.storage.sql.exec<{ sealed: string; expires: number }>(`DELETE FROM pending WHERE nonce = ? RETURNING sealed, expires`, nonce).toArray()[0];
    if (!row || row.expires < Date.now()) return undefined;
    const text = await (await keyRing(this.setup())).open(row.sealed, `pending:${nonce}`);
    return text ? (JSON.parse(text) as PendingAuthorization) : undefined;
  }
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

/** Who we are to this server's authorization server. Secrets are resolved here, in memory, never stored. */
function identityOf(server: McpServerConfig, setup: OAuthSetup, env: Env): ClientIdentity {
  const secret = (ref: string | undefined) => {
    if (!ref) return undefined;
    const value = (env as unknown as Record<string, unknown>)[ref.slice('secret:'.length)];
    if (typeof value !== 'string' || !value) throw new ApiError(500, 'invalid_config', `MCP server "${server.id}": its client secret ${ref} is not set`);
    return value;
  };
  const auth = server.auth;
  if (auth.type === 'client_credentials') {
    return { preregistered: { clientId: auth.clientId, clientSecret: secret(auth.clientSecret) }, scope: auth.scopes?.join(' ') };
  }
  if (auth.type !== 'oauth') throw new Error(`MCP server "${server.id}" has no OAuth`);
  return {
    redirectUri: setup.redirectUri,
    clientMetadataUrl: setup.clientMetadataUrl,
    ...(auth.clientId ? { preregistered: { clientId: auth.clientId, clientSecret: secret(auth.clientSecret) } } : {}),
  };
}

function union(...scopes: (string | undefined)[]): string {
  return [...new Set(scopes.flatMap((s) => s?.split(' ').filter(Boolean) ?? []))].join(' ');
}

/** An OAuth failure in words: the server's error code and description, never a token (bounded). */
function oauthErrorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[A-Za-z0-9._~+/=-]{40,}/g, '[redacted]').slice(0, 300);
}
