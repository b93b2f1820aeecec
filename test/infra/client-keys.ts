import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';

/*
 * The test tenant's `private_key_jwt` key (test/infra/tenants.ts server `bot-jwt`): made once per test run, never
 * committed. vitest.config.ts hands the private half to the Worker as the secret TENANT_BOT_KEY; the test
 * authorization server (oauth-servers.ts) checks assertions with the public half. Both run in vitest's main process
 * but load this module separately (the config is bundled on its own), so the key travels in the process's env.
 */
const ENV = 'MCP_ONDEMAND_TEST_CLIENT_KEY';

/** The private key, PKCS#8 PEM (ES256, P-256). */
export function clientKeyPem(): string {
  if (!process.env[ENV]) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    process.env[ENV] = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  }
  return process.env[ENV]!;
}

/** Its public half, for verifying assertions. */
export function clientPublicKey() {
  return createPublicKey(clientKeyPem());
}

/**
 * A workload identity token for the test tenant (its Worker secret TENANT_WORKLOAD_TOKEN): an ES256 JWT from the same
 * key, as a platform's identity service would issue it, for `audience` (the test authorization server), good for 6 h.
 */
export function workloadToken(audience: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'ES256', typ: 'JWT' })}.${encode({
    iss: 'https://workload-identity.test',
    sub: 'tenant-workload',
    aud: audience,
    iat: now,
    exp: now + 6 * 3600,
  })}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: createPrivateKey(clientKeyPem()),
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}
