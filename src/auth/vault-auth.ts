import type { AuthProvider } from '@modelcontextprotocol/client';
import { AuthRequiredError, type AccessGrant } from './grant';
import { REFRESH_MARGIN_MS, type TokenSource } from './server-credentials';

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
    /** The owner's vault over RPC (vault.ts `vaultSource`); in the conformance harness, ServerCredentials itself. */
    private readonly source: TokenSource,
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
    if (current && !(current.expiresAt !== undefined && current.expiresAt - Date.now() < REFRESH_MARGIN_MS))
      return current.token;
    return this.take(() => this.source.accessToken());
  }

  async onUnauthorized(): Promise<void> {
    const failed = this.current?.token;
    this.current = undefined;
    await this.take(() => this.source.unauthorized(failed));
  }

  /** The server wants more access than the grant has (403 insufficient_scope); undefined when the grant already has it (the user cannot help). */
  async needsScope(scope: string | undefined): Promise<AuthRequiredError | undefined> {
    const recorded = await this.source.needsScope(scope);
    return recorded ? new AuthRequiredError(this.server, 'insufficient_scope', scope) : undefined;
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
