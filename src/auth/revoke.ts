import type { AuthorizationServerMetadata, StoredOAuthClientInformation } from '@modelcontextprotocol/client';

/**
 * RFC 7009 token revocation (the SDK has none): the refresh token first
 * (which ends the grant at most servers), then the access token. Best
 * effort: the caller forgets the tokens whatever the answer. Returns
 * `unsupported` when the server publishes no revocation endpoint.
 */
export async function revokeTokens(
  metadata:
    | (AuthorizationServerMetadata & {
        revocation_endpoint?: string;
        revocation_endpoint_auth_methods_supported?: string[];
      })
    | undefined,
  client: StoredOAuthClientInformation | undefined,
  tokens: { access_token?: string; refresh_token?: string | undefined },
  fetchFn: typeof fetch,
): Promise<'revoked' | 'unsupported' | 'failed'> {
  const endpoint = metadata?.revocation_endpoint;
  if (!endpoint || !client) return 'unsupported';
  let ok = true;
  for (const [token, hint] of [
    [tokens.refresh_token, 'refresh_token'],
    [tokens.access_token, 'access_token'],
  ] as const) {
    if (!token) continue;
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const methods = metadata.revocation_endpoint_auth_methods_supported;
    if (client.client_secret && (!methods || methods.includes('client_secret_basic'))) {
      headers.authorization = `Basic ${btoa(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`)}`;
    } else {
      body.set('client_id', client.client_id);
      if (client.client_secret) body.set('client_secret', client.client_secret);
    }
    try {
      const response = await fetchFn(endpoint, { method: 'POST', headers, body });
      await response.body?.cancel();
      ok &&= response.ok;
    } catch {
      ok = false;
    }
  }
  return ok ? 'revoked' : 'failed';
}
