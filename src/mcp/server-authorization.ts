import type { InsufficientScopeError } from '@modelcontextprotocol/client';
import type { ResourceCache } from '../cache/resource-cache';
import { authRequiredIn, type AuthRequiredError } from '../auth/grant';
import type { VaultAuth } from '../auth/vault-auth';
import { ApiError } from '../errors';
import type { ServerState } from './catalog/catalog';
import type { ServerStateStore } from './catalog/state-store';
import type { McpConnection } from './connection/connection';

/** What one server's authorization needs of its link (server-link.ts), which owns all of it. */
export interface ServerAuthorizationOptions {
  id: string;
  state: ServerState;
  store: ServerStateStore;
  cache: ResourceCache;
  connection: McpConnection;
  /** The token source of a server with `auth` (src/auth/vault-auth.ts). */
  auth: VaultAuth | undefined;
  /** Told when this server starts needing the user (to connect again, or to grant more access). */
  authRequired: ((state: ServerState) => void) | undefined;
  /** Closes the notification channel and the connection (ServerLink.release). */
  release: () => Promise<void>;
  /** Forgets a failed connect's back-off: the next use after the user connected must go through. */
  forgetBackoff: () => void;
}

/**
 * When one server needs the user: an authorization that ended or never was
 * (connect again), a request refused for want of scope (grant more), and
 * the user's answer (connected again, or disconnected). Split from
 * ServerLink, which decides when to connect and release.
 */
export class ServerAuthorization {
  constructor(private readonly options: ServerAuthorizationOptions) {}

  /**
   * The user must connect (or connect again, or grant more): no back-off —
   * asking the vault costs nothing upstream, and the next use after the user
   * connected must go through.
   */
  required(error: AuthRequiredError): ApiError {
    const { state, store, connection } = this.options;
    const before = JSON.stringify([state.status, state.authorization]);
    state.status = error.reason === 'insufficient_scope' && connection.connected ? 'connected' : 'auth_required';
    state.authorization = { reason: error.reason, ...(error.scope ? { scope: error.scope } : {}) };
    if (state.status === 'auth_required') state.error = error.message;
    store.saveHeader(state);
    if (JSON.stringify([state.status, state.authorization]) !== before) this.options.authRequired?.(state);
    return new ApiError(403, 'auth_required', error.message);
  }

  /**
   * A request that failed because the authorization ended (a refused
   * refresh, a revoked grant): the connection made with it is closed and the
   * user is asked to connect again. Undefined for any other failure.
   */
  async failure(error: unknown): Promise<ApiError | undefined> {
    const authRequired = authRequiredIn(error);
    if (!authRequired) return undefined;
    if (authRequired.reason !== 'insufficient_scope') await this.options.release();
    return this.required(authRequired);
  }

  /** A request was refused for want of scope (403 insufficient_scope): the vault remembers what to ask for; the user is told. */
  async stepUp(error: InsufficientScopeError): Promise<ApiError> {
    const { auth } = this.options;
    const refused = new ApiError(
      403,
      'insufficient_scope',
      `MCP server "${this.options.id}" refused: it asks for scope ${error.requiredScope ?? '(not said)'}${auth ? ', which was granted' : ''}`,
    );
    if (!auth) return refused;
    const stepUp = await auth.needsScope(error.requiredScope);
    return stepUp ? this.required(stepUp) : refused;
  }

  /**
   * The user connected again, or disconnected: the token held here and the
   * connection made with it are dropped, and so is everything cached under
   * the old authorization. The next use connects with the new one. A
   * connection already made with `grant` (the new one) is kept.
   */
  async reauthorized(grant?: string): Promise<void> {
    const { auth, state, cache, id } = this.options;
    if (grant !== undefined && auth?.grant === grant) return;
    auth?.forget();
    this.options.forgetBackoff();
    delete state.authorization;
    cache.invalidateServer(id);
    await this.options.release();
  }
}
