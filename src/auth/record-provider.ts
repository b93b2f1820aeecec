import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { privateKeyJwtAuth, type SigningAlg } from './client-assertion';

/**
 * What the vault keeps about one server for one owner (an end user, or a
 * tenant for client credentials), sealed as a whole at rest.
 */
export interface CredentialRecord {
  /** Our registration with the authorization server (dynamic, metadata URL, or pre-registered). */
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  /** When the access token expires (ms since epoch), computed from `expires_in` when it was saved. */
  expiresAt?: number;
  /** When the user (or tenant) connected: a new authorization, not a refresh. */
  connectedAt?: number;
  /** Names this authorization (changes on every new connect): cache entries follow it. */
  grant?: string;
  /** Discovery results, so a refresh costs one request, not four. */
  discovery?: OAuthDiscoveryState;
  /** A scope the server asked for (403 insufficient_scope) that the current grant lacks: the next connect asks for it. */
  stepUpScope?: string;
}

/** An authorization in flight, from the start route to the callback. */
export interface PendingAuthorization {
  server: string;
  codeVerifier: string;
  discovery?: OAuthDiscoveryState;
  client?: StoredOAuthClientInformation;
  expiresAt: number;
}

export interface ClientIdentity {
  /** The redirect URI (from config); absent: a non-interactive flow (client credentials). */
  redirectUri?: string | undefined;
  /** Our client ID metadata document (https only). */
  clientMetadataUrl?: string | undefined;
  /** A client registered beforehand; the secret already resolved from its Worker secret. */
  preregistered?:
    | {
        clientId: string;
        clientSecret?: string | undefined;
        /** `private_key_jwt`: the PEM key (resolved from its Worker secret) and its algorithm. */
        privateKey?: { pem: string; alg: SigningAlg } | undefined;
      }
    | undefined;
  /** Scopes for client credentials (authorization code flows take the server's). */
  scope?: string | undefined;
  /** Workload identity federation: the platform's token, sent as the JWT bearer grant's assertion (RFC 7523 §2.1). */
  workloadToken?: string | undefined;
}

export const CLIENT_NAME = 'mcp-ondemand';

/**
 * The SDK's `OAuthClientProvider` over one in-memory credential record: the
 * SDK's `auth()` does discovery, registration, PKCE, the token requests and
 * their checks; this only remembers. The vault loads a record, runs `auth()`
 * and seals the record again (so one `auth()` is one write). Also driven, with
 * records in memory, by the conformance harness (scripts/conformance/client.ts).
 */
export class RecordProvider implements OAuthClientProvider {
  /** Where `auth()` wanted the user sent (a `REDIRECT` result). */
  authorizationUrl: URL | undefined;
  private verifier: string | undefined;

  /**
   * `private_key_jwt` (RFC 7523 §2.2): each token request signed by the client's key (client-assertion.ts). Absent:
   * the SDK picks the method the secret allows.
   */
  readonly addClientAuthentication: OAuthClientProvider['addClientAuthentication'];

  constructor(
    readonly record: CredentialRecord,
    private readonly identity: ClientIdentity,
    private readonly flow: { state?: string; codeVerifier?: string } = {},
  ) {
    const pre = identity.preregistered;
    if (pre?.privateKey)
      this.addClientAuthentication = privateKeyJwtAuth(pre.clientId, pre.privateKey.pem, pre.privateKey.alg);
  }

  get redirectUrl(): string | undefined {
    return this.identity.redirectUri;
  }

  get clientMetadataUrl(): string | undefined {
    return this.identity.preregistered ? undefined : this.identity.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const confidential = Boolean(this.identity.preregistered?.clientSecret);
    if (!this.identity.redirectUri) {
      return {
        client_name: CLIENT_NAME,
        redirect_uris: [],
        grant_types: [this.identity.workloadToken ? JWT_BEARER_GRANT : 'client_credentials'],
        token_endpoint_auth_method: this.identity.preregistered?.privateKey
          ? 'private_key_jwt'
          : this.identity.preregistered?.clientSecret
            ? 'client_secret_basic'
            : 'none',
        ...(this.identity.scope ? { scope: this.identity.scope } : {}),
      };
    }
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.identity.redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    const pre = this.identity.preregistered;
    // The record keeps only the issuer stamp of a pre-registered client; the secret comes from its Worker secret each time.
    if (pre)
      return {
        ...this.record.client,
        client_id: pre.clientId,
        ...(pre.clientSecret ? { client_secret: pre.clientSecret } : {}),
      };
    return this.record.client;
  }

  saveClientInformation(client: StoredOAuthClientInformation): void {
    // A pre-registered secret stays in its Worker secret, never in the record.
    const { client_secret: _secret, ...rest } = client;
    this.record.client = this.identity.preregistered ? { ...rest } : client;
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.record.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    const now = Date.now();
    // A refresh that returns no new refresh token keeps the old one (RFC 6749 §6).
    const refresh = tokens.refresh_token ?? this.record.tokens?.refresh_token;
    this.record.tokens = { ...tokens, ...(refresh ? { refresh_token: refresh } : {}) };
    if (typeof tokens.expires_in === 'number') this.record.expiresAt = now + tokens.expires_in * 1000;
    else delete this.record.expiresAt;
  }

  state(): string {
    // Outside `begin` (a refused refresh ends in a REDIRECT nobody follows) any value does.
    return this.flow.state ?? crypto.randomUUID();
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    const verifier = this.flow.codeVerifier ?? this.verifier;
    if (!verifier) throw new Error('no code verifier');
    return verifier;
  }

  get savedCodeVerifier(): string | undefined {
    return this.verifier;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.record.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.record.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') delete this.record.client;
    if (scope === 'all' || scope === 'tokens') {
      delete this.record.tokens;
      delete this.record.expiresAt;
    }
    if (scope === 'all' || scope === 'discovery') delete this.record.discovery;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.identity.redirectUri) return undefined; // authorization code / refresh: the SDK's defaults
    const workload = this.identity.workloadToken;
    if (workload) assertUnexpired(workload);
    const params = new URLSearchParams(
      workload ? { grant_type: JWT_BEARER_GRANT, assertion: workload } : { grant_type: 'client_credentials' },
    );
    const wanted = this.identity.scope ?? scope;
    if (wanted) params.set('scope', wanted);
    return params;
  }
}

const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * A workload token past its `exp` is not sent (the authorization server would refuse it, and a refused grant is not
 * tried again): the platform has not rotated the secret. Its signature is the authorization server's to check.
 */
function assertUnexpired(token: string): void {
  let exp: unknown;
  try {
    const payload = token.split('.')[1] ?? '';
    exp = JSON.parse(atob(payload.replaceAll('-', '+').replaceAll('_', '/'))).exp;
  } catch {
    throw new Error('the workload identity token is not a JWT');
  }
  if (typeof exp === 'number' && exp * 1000 <= Date.now())
    throw new Error(`the workload identity token expired at ${new Date(exp * 1000).toISOString()}: rotate its secret`);
}
