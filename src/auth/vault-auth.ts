import type { AuthProvider } from '@modelcontextprotocol/client';
import { AuthRequiredError, type AccessGrant } from './grant';
import { REFRESH_MARGIN_MS, vaultOf } from './vault';
import type { VaultOwner } from './tickets';

/**
 * The conversation's side of a server's authorization: the transport's
 * `AuthProvider`. It holds one access token in memory (never in storage),
 * asks the owner's vault for it — again a minute before it expires, and
 * after a 401 — and turns "nobody has connected" into an AuthRequiredError
 * before any request goes out.
 */
export class VaultAuth implements AuthProvider {
  private current: Extract<AccessGrant, { status: 'authorized' }> | undefined;
  private pending: Promise<AccessGrant> | undefined;

  constructor(
    private readonly env: Env,
    private readonly owner: VaultOwner,
    readonly server: string,
    /** Hears of each grant handed out (its id names the cache partition; a step-up request is in it). */
    private readonly onGrant: (grant: Extract<AccessGrant, { status: 'authorized' }>) => void = () => {},
  ) {}

  /** The current grant's id, once a token was handed out. */
  get grant(): string | undefined {
    return this.current?.grant;
  }

  async token(): Promise<string> {
    const current = this.current;
    if (current && !(current.expiresAt !== undefined && current.expiresAt - Date.now() < REFRESH_MARGIN_MS)) return current.token;
    return this.take(() => vaultOf(this.env, this.owner).accessToken(this.owner, this.server));
  }

  async onUnauthorized(): Promise<void> {
    const failed = this.current?.token;
    this.current = undefined;
    await this.take(() => vaultOf(this.env, this.owner).unauthorized(this.owner, this.server, failed));
  }

  /** The server wants more access than the grant has (403 insufficient_scope). */
  async needsScope(scope: string | undefined): Promise<AuthRequiredError> {
    await vaultOf(this.env, this.owner).needsScope(this.owner, this.server, scope);
    return new AuthRequiredError(this.server, 'insufficient_scope', scope);
  }

  /** Forgets the token held here: the user connected again, or disconnected. */
  forget(): void {
    this.current = undefined;
  }

  private async take(ask: () => Promise<AccessGrant>): Promise<string> {
    // Concurrent requests share one question to the vault.
    this.pending ??= ask().finally(() => (this.pending = undefined));
    const answer = await this.pending;
    if (answer.status === 'auth_required') {
      this.current = undefined;
      throw new AuthRequiredError(this.server, answer.reason, answer.scope);
    }
    if (answer.status === 'error') throw new Error(answer.message);
    this.current = answer;
    this.onGrant(answer);
    return answer.token;
  }
}
