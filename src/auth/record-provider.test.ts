import { describe, expect, it } from 'vitest';
import { RecordProvider } from './record-provider';

/** An unsigned JWT with `exp` (what the provider reads; the authorization server checks the signature). */
const tokenExpiring = (exp: number) =>
  `${btoa(JSON.stringify({ alg: 'ES256' }))}.${btoa(JSON.stringify({ sub: 'w', exp })).replaceAll('=', '')}.c2ln`;

describe('the tenant’s machine credential as the token request says it', () => {
  it('workload identity: the JWT bearer grant with the platform’s token, as a public client', () => {
    const token = tokenExpiring(Math.floor(Date.now() / 1000) + 600);
    const provider = new RecordProvider(
      {},
      { preregistered: { clientId: 'tenant-workload' }, scope: 'mcp:read', workloadToken: token },
    );
    expect(Object.fromEntries(provider.prepareTokenRequest()!)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: token,
      scope: 'mcp:read',
    });
    expect(provider.clientMetadata).toMatchObject({
      grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('an expired workload token is not sent: the error says to rotate its secret', () => {
    const provider = new RecordProvider(
      {},
      { preregistered: { clientId: 'tenant-workload' }, workloadToken: tokenExpiring(1_000_000) },
    );
    expect(() => provider.prepareTokenRequest()).toThrow(/expired at 1970-01-12T13:46:40.000Z: rotate its secret/);
  });

  it('a client secret or a private key: client_credentials, authenticated by client_secret_basic or private_key_jwt', () => {
    const secret = new RecordProvider({}, { preregistered: { clientId: 'bot', clientSecret: 's' } });
    expect(Object.fromEntries(secret.prepareTokenRequest()!)).toEqual({ grant_type: 'client_credentials' });
    expect(secret.clientMetadata.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(secret.addClientAuthentication).toBeUndefined();
    const key = new RecordProvider(
      {},
      { preregistered: { clientId: 'bot', privateKey: { pem: 'unused here', alg: 'ES256' } } },
    );
    expect(key.clientMetadata.token_endpoint_auth_method).toBe('private_key_jwt');
    expect(key.addClientAuthentication).toBeTypeOf('function');
  });
});
