import type { AuthorizationServerMetadata } from '@modelcontextprotocol/client';
import { errorFields, logEvent } from '../observability/log';
import { completeAuthorization, renewTokens, startAuthorization, type FlowTarget } from './flow';
import type { AccessGrant, ConnectionStatus } from './grant';
import { RecordProvider, type CredentialRecord, type PendingAuthorization } from './record-provider';
import { revokeTokens } from './revoke';

/** A token this close to its expiry is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60_000;

/** Where one owner's record for one server is kept (sealed in the vault's SQLite; in memory in the conformance harness). */
export interface RecordStore {
  load(): Promise<CredentialRecord>;
  save(record: CredentialRecord): Promise<void>;
}

/** What a conversation's token source asks (src/auth/vault-auth.ts). */
export interface TokenSource {
  accessToken(): Promise<AccessGrant>;
  unauthorized(failedToken: string | undefined): Promise<AccessGrant>;
  needsScope(scope: string | undefined): Promise<boolean>;
}

export interface CredentialsConfig {
  type: 'oauth' | 'client_credentials';
  /** Scopes from config, asked for on connect (else the server's challenge or metadata decides). */
  scopes?: string[] | undefined;
  /** The server's id, for log lines. */
  server?: string | undefined;
}

/**
 * The decisions about one owner's authorization to one server: when a
 * token is handed out, refreshed (a minute before expiry, one refresh at a
 * time), given up on; what a 401 and a 403 insufficient_scope lead to;
 * starting and completing a connect; disconnecting. Storage-free: the vault
 * (vault.ts) gives it a sealed SQLite row, the conformance harness
 * (scripts/conformance/client.ts) a variable — so the suite tests this code.
 */
export class ServerCredentials implements TokenSource {
  private renewing: Promise<AccessGrant> | undefined;
  /**
   * Changes to the record, one at a time: each loads, may wait on the
   * network, then saves — two at once (a refresh finishing after a new
   * connect, say) would write back an older record over a newer one.
   */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: RecordStore,
    /** Built when needed: config (and so the target) may change between calls. */
    private readonly target: () => FlowTarget,
    private readonly config: CredentialsConfig,
  ) {}

  /** A token, refreshed first when it is about to expire; or why there is none. */
  async accessToken(): Promise<AccessGrant> {
    const record = await this.store.load();
    if (record.tokens?.access_token && !expiring(record)) return granted(record);
    if (this.config.type === 'client_credentials' || record.tokens?.refresh_token) return this.renew();
    return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
  }

  /** The server refused `failedToken` (401): the token another request renewed meanwhile, a refresh, or "connect again". */
  async unauthorized(failedToken: string | undefined): Promise<AccessGrant> {
    const outcome = await this.serial(async (): Promise<AccessGrant | 'renew'> => {
      const record = await this.store.load();
      if (record.tokens?.access_token && record.tokens.access_token !== failedToken) return granted(record);
      if (this.config.type === 'client_credentials' || record.tokens?.refresh_token) {
        if (record.tokens) {
          // Refused: whatever it says about its expiry, it is not good any more.
          record.expiresAt = 0;
          await this.store.save(record);
        }
        return 'renew';
      }
      if (record.tokens) {
        delete record.tokens;
        await this.store.save(record);
      }
      return { status: 'auth_required', reason: record.grant ? 'expired' : 'not_connected' };
    });
    return outcome === 'renew' ? this.renew() : outcome;
  }

  /**
   * The server wants more access (403 insufficient_scope): the next connect
   * asks for it; meanwhile the grant stays. False when the grant already has
   * every scope it names: connecting again would not help.
   */
  needsScope(scope: string | undefined): Promise<boolean> {
    return this.serial(async () => {
      const record = await this.store.load();
      const had = new Set(record.tokens?.scope?.split(' ') ?? []);
      const wanted = scope?.split(' ').filter(Boolean) ?? [];
      if (wanted.length && wanted.every((s) => had.has(s))) return false;
      record.stepUpScope = union(record.stepUpScope, scope) || record.tokens?.scope || 'unknown';
      await this.store.save(record);
      return true;
    });
  }

  /**
   * Starts a connect: the scope from config, or a step-up's union with what
   * was granted (else the server's challenge decides, in flow.ts). The record
   * keeps registration and discovery; the tokens are untouched (the current
   * grant works until the new one arrives). Returns what the callback needs.
   */
  start(
    state: string,
  ): Promise<{ authorizationUrl: URL; pending: Omit<PendingAuthorization, 'server' | 'expiresAt'> }> {
    return this.serial(async () => {
      const record = await this.store.load();
      const scope = record.stepUpScope
        ? union(record.tokens?.scope, record.stepUpScope)
        : this.config.scopes?.join(' ');
      const { authorizationUrl, codeVerifier } = await startAuthorization(
        this.target(),
        record,
        state,
        scope || undefined,
      );
      await this.store.save(record);
      return {
        authorizationUrl,
        pending: { codeVerifier, ...(record.discovery ? { discovery: structuredClone(record.discovery) } : {}) },
      };
    });
  }

  /** The callback: the code exchanged against the discovery the start used; returns the new grant's id. */
  complete(
    pending: Pick<PendingAuthorization, 'codeVerifier' | 'discovery'>,
    callback: { code: string; iss?: string | undefined },
  ): Promise<string> {
    return this.serial(async () => {
      const record = await this.store.load();
      const working: CredentialRecord = { ...record, ...(pending.discovery ? { discovery: pending.discovery } : {}) };
      await completeAuthorization(this.target(), working, pending.codeVerifier, callback);
      working.connectedAt = Date.now();
      working.grant = crypto.randomUUID();
      delete working.stepUpScope;
      await this.store.save(working);
      return working.grant;
    });
  }

  /** This authorization as `GET /v1/connections` shows it (never a token). */
  async status(server: string): Promise<ConnectionStatus> {
    const record = await this.store.load();
    const connected = Boolean(record.tokens?.access_token || record.tokens?.refresh_token);
    return {
      server,
      auth: this.config.type,
      status: !connected ? 'not_connected' : record.stepUpScope ? 'step_up_required' : 'connected',
      ...(connected && record.tokens?.scope ? { scope: record.tokens.scope } : {}),
      ...(connected && record.connectedAt ? { connectedAt: new Date(record.connectedAt).toISOString() } : {}),
      ...(connected && record.expiresAt ? { expiresAt: new Date(record.expiresAt).toISOString() } : {}),
    };
  }

  /** Revokes the tokens where the server supports it (RFC 7009), then forgets everything but our client registration. */
  disconnect(): Promise<'revoked' | 'unsupported' | 'failed' | 'nothing'> {
    return this.serial(async () => {
      const record = await this.store.load();
      let revoked: 'revoked' | 'unsupported' | 'failed' | 'nothing' = 'nothing';
      if (record.tokens) {
        const target = this.target();
        const client = new RecordProvider(record, target.identity).clientInformation();
        const metadata = record.discovery?.authorizationServerMetadata as AuthorizationServerMetadata | undefined;
        revoked = await revokeTokens(metadata, client, record.tokens, target.fetchFn);
      }
      await this.store.save(record.client ? { client: record.client } : {});
      return revoked;
    });
  }

  /** One refresh (or client-credentials token) at a time; concurrent callers share it. */
  private renew(): Promise<AccessGrant> {
    this.renewing ??= this.serial(() => this.renewNow()).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewNow(): Promise<AccessGrant> {
    const record = await this.store.load();
    if (record.tokens?.access_token && !expiring(record)) return granted(record);
    let result: 'renewed' | 'needs_user';
    const started = Date.now();
    const fields = {
      server: this.config.server,
      grant: this.config.type === 'client_credentials' ? 'client_credentials' : 'refresh_token',
    };
    try {
      result = await renewTokens(this.target(), record);
      logEvent('auth.refresh', {
        ...fields,
        durationMs: Date.now() - started,
        outcome: result === 'renewed' ? 'ok' : 'needs_user',
      });
    } catch (error) {
      logEvent('auth.refresh', { ...fields, durationMs: Date.now() - started, ...errorFields(error) }, 'warn');
      // The authorization server is down or answered nonsense: a token still valid is still used.
      if (record.tokens?.access_token && (record.expiresAt ?? Infinity) > Date.now()) return granted(record);
      return { status: 'error', message: `could not renew the authorization: ${oauthErrorText(error)}` };
    }
    if (result === 'needs_user') {
      // The refresh was refused (revoked, expired grant): the user must connect again.
      await this.store.save(record);
      return { status: 'auth_required', reason: 'expired' };
    }
    if (this.config.type === 'client_credentials') {
      record.grant ??= crypto.randomUUID();
      record.connectedAt ??= Date.now();
    }
    await this.store.save(record);
    return granted(record);
  }

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }
}

const expiring = (record: CredentialRecord) =>
  record.expiresAt !== undefined && record.expiresAt - Date.now() < REFRESH_MARGIN_MS;

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

/** An OAuth failure in words: the server's error code and description, never a token (bounded). */
export function oauthErrorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/[A-Za-z0-9._~+/=-]{40,}/g, '[redacted]').slice(0, 300);
}
