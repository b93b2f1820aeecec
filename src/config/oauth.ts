import { ApiError } from '../errors';

/** The Worker vars and secrets OAuth needs, read once per isolate. */
export interface OAuthEnv {
  /** Where this Worker is reached from browsers (`https://chat.example.com`): redirect URI and client metadata document live under it. */
  PUBLIC_URL?: string;
  /** `id:base64key[,id:base64key…]`, a Worker secret (src/auth/keyring.ts). */
  OAUTH_TOKEN_KEYS?: string;
  AUTH_DISABLED?: string;
  TENANTS?: string;
  ALLOW_PRIVATE_MCP_URLS?: string;
}

export interface OAuthSetup {
  publicUrl: URL;
  /** The only redirect URI we ever send: from config, never from a request. */
  redirectUri: string;
  /** Our client ID metadata document's URL; only over https (the SDK and the spec refuse others): else dynamic registration. */
  clientMetadataUrl: string | undefined;
  /** Discovered metadata, token and authorization URLs may be http or private (development and tests only, as for server URLs). */
  allowPrivate: boolean;
  /** OAUTH_TOKEN_KEYS, or, in local development only, a fixed development key. */
  keySpec: string;
}

/**
 * A key everyone can read in this file: only for `AUTH_DISABLED=true` (local
 * development, where the service is open to anyone anyway) without
 * OAUTH_TOKEN_KEYS. A deploy with tenants refuses to run OAuth without the secret.
 */
const DEVELOPMENT_KEYS = 'dev:bWNwLW9uZGVtYW5kIGRldmVsb3BtZW50IGtleSAhISE';

export const CALLBACK_PATH = '/oauth/callback';
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

export function oauthSetup(env: OAuthEnv): OAuthSetup {
  const raw = env.PUBLIC_URL?.trim();
  if (!raw || !URL.canParse(raw))
    throw new ApiError(
      500,
      'invalid_config',
      'PUBLIC_URL must be set to this Worker\'s public origin (https://…) for servers with auth "oauth"',
    );
  const publicUrl = new URL(raw);
  const production = Boolean(env.TENANTS?.trim()) && env.ALLOW_PRIVATE_MCP_URLS !== 'true';
  if (production && publicUrl.protocol !== 'https:')
    throw new ApiError(500, 'invalid_config', 'PUBLIC_URL must use https');
  const keySpec =
    env.OAUTH_TOKEN_KEYS?.trim() || (env.AUTH_DISABLED === 'true' && !env.TENANTS?.trim() ? DEVELOPMENT_KEYS : '');
  if (!keySpec)
    throw new ApiError(
      500,
      'invalid_config',
      'OAUTH_TOKEN_KEYS (a Worker secret) must be set for servers with auth "oauth" or "client_credentials"',
    );
  const origin = publicUrl.origin;
  return {
    publicUrl,
    redirectUri: `${origin}${CALLBACK_PATH}`,
    clientMetadataUrl: publicUrl.protocol === 'https:' ? `${origin}${CLIENT_METADATA_PATH}` : undefined,
    // As for MCP server URLs: without tenants (local development) any address; with them, only if allowed.
    allowPrivate: env.ALLOW_PRIVATE_MCP_URLS === 'true' || !env.TENANTS?.trim(),
    keySpec,
  };
}
