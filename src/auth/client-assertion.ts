import type { AddClientAuthentication } from '@modelcontextprotocol/client';
import type { PRIVATE_KEY_JWT_ALGS } from '../config/servers';

/*
 * `private_key_jwt` client authentication (RFC 7523 §2.2, OpenID Connect Core §9): every token request carries an
 * assertion the client signs with its own key — `iss` = `sub` = the client id, `aud` the authorization server, a short
 * `exp`, a fresh `jti` — so no secret is shared with the server. Signed with WebCrypto, which workerd has natively:
 * the SDK's `createPrivateKeyJwtAuth` does the same through `jose`, which would add 22 KiB gzipped to the Worker for
 * one signature (measured: test/node/bundle-budget.test.ts, 578 → 600 KiB).
 */

export type SigningAlg = (typeof PRIVATE_KEY_JWT_ALGS)[number];

const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How long an assertion is good for: long enough for one token request, short enough to be useless later. */
const LIFETIME_SECONDS = 300;

type ImportAlgorithm = Parameters<SubtleCrypto['importKey']>[2];
type SignAlgorithm = Parameters<SubtleCrypto['sign']>[0];

/** Each JWS algorithm as WebCrypto names its key (import) and its signature (sign). */
const WEBCRYPTO: Record<SigningAlg, { key: ImportAlgorithm; sign: SignAlgorithm }> = {
  ES256: { key: { name: 'ECDSA', namedCurve: 'P-256' }, sign: { name: 'ECDSA', hash: 'SHA-256' } },
  ES384: { key: { name: 'ECDSA', namedCurve: 'P-384' }, sign: { name: 'ECDSA', hash: 'SHA-384' } },
  RS256: { key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  RS384: { key: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' }, sign: { name: 'RSASSA-PKCS1-v1_5' } },
  PS256: { key: { name: 'RSA-PSS', hash: 'SHA-256' }, sign: { name: 'RSA-PSS', saltLength: 32 } },
  EdDSA: { key: { name: 'Ed25519' }, sign: { name: 'Ed25519' } },
};

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/** A PKCS#8 PEM key as WebCrypto takes it (not extractable: it only signs). */
async function importKey(pem: string, alg: SigningAlg): Promise<CryptoKey> {
  const body = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(pem)?.[1];
  if (!body) throw new Error('the private key must be a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----")');
  const der = Uint8Array.from(atob(body.replace(/\s+/g, '')), (c) => c.charCodeAt(0));
  return crypto.subtle.importKey('pkcs8', der, WEBCRYPTO[alg].key, false, ['sign']);
}

/**
 * The SDK's `addClientAuthentication` hook for `private_key_jwt`: the key imported once, an assertion signed for each
 * token request. `aud` is the authorization server's issuer (its metadata), else the token endpoint.
 */
export function privateKeyJwtAuth(clientId: string, pem: string, alg: SigningAlg): AddClientAuthentication {
  let key: Promise<CryptoKey> | undefined;
  return async (_headers, params, url, metadata) => {
    key ??= importKey(pem, alg);
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: clientId,
      sub: clientId,
      aud: String(metadata?.issuer ?? url),
      iat: now,
      exp: now + LIFETIME_SECONDS,
      jti: crypto.randomUUID(),
    };
    const input = `${encodeJson({ alg, typ: 'JWT' })}.${encodeJson(claims)}`;
    const signature = await crypto.subtle.sign(WEBCRYPTO[alg].sign, await key, new TextEncoder().encode(input));
    params.set('client_assertion', `${input}.${base64url(new Uint8Array(signature))}`);
    params.set('client_assertion_type', JWT_BEARER_ASSERTION);
  };
}
