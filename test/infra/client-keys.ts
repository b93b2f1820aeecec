import { createPublicKey, generateKeyPairSync } from 'node:crypto';

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
