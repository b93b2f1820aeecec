import { describe, expect, it } from 'vitest';
import { privateKeyJwtAuth, type SigningAlg } from './client-assertion';

/** A fresh key pair for `alg`, its private half as the PKCS#8 PEM an operator stores as a Worker secret. */
async function keyPair(alg: SigningAlg) {
  const params = {
    ES256: { name: 'ECDSA', namedCurve: 'P-256' },
    ES384: { name: 'ECDSA', namedCurve: 'P-384' },
    RS256: {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-256',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
    },
    RS384: {
      name: 'RSASSA-PKCS1-v1_5',
      hash: 'SHA-384',
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
    },
    PS256: { name: 'RSA-PSS', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    EdDSA: { name: 'Ed25519' },
  }[alg];
  const pair = (await crypto.subtle.generateKey(params, true, ['sign', 'verify'])) as CryptoKeyPair;
  const der = new Uint8Array((await crypto.subtle.exportKey('pkcs8', pair.privateKey)) as ArrayBuffer);
  const lines = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, '$1\n');
  const pem = `-----BEGIN PRIVATE KEY-----\n${lines}\n-----END PRIVATE KEY-----\n`;
  return { pem, publicKey: pair.publicKey };
}

/** A base64url part of a JWT as bytes (no Buffer: these tests are typed for workerd too). */
const bytesOf = (part: string) =>
  Uint8Array.from(atob(part.replaceAll('-', '+').replaceAll('_', '/') + '==='.slice((part.length + 3) % 4)), (c) =>
    c.charCodeAt(0),
  );
const jsonOf = (part: string) => JSON.parse(new TextDecoder().decode(bytesOf(part)));

const VERIFY = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  ES384: { name: 'ECDSA', hash: 'SHA-384' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
  RS384: { name: 'RSASSA-PKCS1-v1_5' },
  PS256: { name: 'RSA-PSS', saltLength: 32 },
  EdDSA: { name: 'Ed25519' },
};

describe('private_key_jwt assertions (RFC 7523)', () => {
  for (const alg of ['ES256', 'ES384', 'RS256', 'RS384', 'PS256', 'EdDSA'] as const) {
    it(`${alg}: a JWS the public key verifies, with the client as iss and sub, the server as aud, a short exp`, async () => {
      const { pem, publicKey } = await keyPair(alg);
      const addAuth = privateKeyJwtAuth('acme-bot', pem, alg);
      const params = new URLSearchParams({ grant_type: 'client_credentials' });
      await addAuth(new Headers(), params, 'https://as.example/token', {
        issuer: 'https://as.example',
      } as never);
      expect(params.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      const [header, payload, signature] = params.get('client_assertion')!.split('.');
      expect(jsonOf(header!)).toEqual({ alg, typ: 'JWT' });
      const claims = jsonOf(payload!);
      expect(claims).toMatchObject({ iss: 'acme-bot', sub: 'acme-bot', aud: 'https://as.example' });
      expect(claims.exp - claims.iat).toBe(300);
      const signed = await crypto.subtle.verify(
        VERIFY[alg],
        publicKey,
        bytesOf(signature!),
        new TextEncoder().encode(`${header}.${payload}`),
      );
      expect(signed).toBe(true);
    });
  }

  it('each token request gets its own assertion (a fresh jti); without metadata the audience is the token endpoint', async () => {
    const { pem } = await keyPair('ES256');
    const addAuth = privateKeyJwtAuth('acme-bot', pem, 'ES256');
    const claimsOf = async () => {
      const params = new URLSearchParams();
      await addAuth(new Headers(), params, 'https://as.example/token');
      return jsonOf(params.get('client_assertion')!.split('.')[1]!);
    };
    const [a, b] = [await claimsOf(), await claimsOf()];
    expect(a.jti).not.toBe(b.jti);
    expect(a.aud).toBe('https://as.example/token');
  });

  it('a key that is not a PKCS#8 PEM is refused, naming what is expected', async () => {
    const addAuth = privateKeyJwtAuth(
      'acme-bot',
      '-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----',
      'ES256',
    );
    await expect(addAuth(new Headers(), new URLSearchParams(), 'https://as.example/token')).rejects.toThrow(
      /PKCS#8 PEM/,
    );
  });
});
