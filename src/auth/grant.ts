/** Why a server needs the user (again): never connected, the grant ended (expired, revoked, refresh refused), or more access is needed. */
export type AuthRequiredReason = 'not_connected' | 'expired' | 'insufficient_scope';

/** What the vault answers a conversation that needs a token. Tokens leave the vault only this way. */
export type AccessGrant =
  | {
      status: 'authorized';
      token: string;
      /** When the token expires (ms since epoch); the conversation asks again a minute before. */
      expiresAt?: number | undefined;
      /** Names this authorization: changes when the user connects again (perhaps another account). */
      grant: string;
      /** The server asked for more access than this grant has (a connect would ask for it). */
      stepUpScope?: string | undefined;
    }
  | { status: 'auth_required'; reason: AuthRequiredReason; scope?: string | undefined }
  | { status: 'error'; message: string };

/** One server's authorization, as `GET /v1/connections` shows it (never a token). */
export type { ConnectionStatus } from '../../shared/api/connections';

/**
 * A server cannot be used until the end user connects (or reconnects) their
 * account. Carries no URL: connect links are minted where they are shown (they are
 * short-lived, single-use).
 */
export class AuthRequiredError extends Error {
  constructor(
    readonly server: string,
    readonly reason: AuthRequiredReason,
    readonly scope?: string,
  ) {
    super(
      reason === 'insufficient_scope'
        ? `MCP server "${server}" needs more access${scope ? ` (${scope})` : ''}: the user must approve it by connecting again`
        : reason === 'expired'
          ? `The user's authorization for MCP server "${server}" has ended: they must connect again`
          : `MCP server "${server}" needs the user to connect their account first`,
    );
    this.name = 'AuthRequiredError';
  }
}

/** The AuthRequiredError in `error` or its causes (transports and the SDK wrap what they throw). */
export function authRequiredIn(error: unknown): AuthRequiredError | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AuthRequiredError) return e;
  }
  return undefined;
}
