import { resolve as resolvePath } from 'node:path';
import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { unstable_readConfig } from 'wrangler';
import { converterWorker } from './test/infra/converter-worker.ts';
import { clientKeyPem, workloadToken } from './test/infra/client-keys.ts';
import { OAUTH_AS_PORT } from './test/infra/ports.ts';
import { TEST_OPERATOR_KEY } from './test/infra/operator-key.ts';
import { local, sha256, TEST_MCP_SERVERS, TEST_TENANTS } from './test/infra/tenants.ts';

/**
 * wrangler.toml's `alias` (modules replaced by src/shims/ in the deployed
 * bundle), applied by Vite as well: the plugin reads wrangler.toml but not
 * its aliases, and the tests should run the module graph we ship. wrangler
 * matches an alias on the exact import specifier; so does this.
 */
const WRANGLER_ALIASES = Object.entries<string>(unstable_readConfig({ config: './wrangler.toml' }).alias ?? {}).map(
  ([from, to]) => ({
    find: new RegExp(`^${from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
    replacement: resolvePath(to),
  }),
);

// Five projects, one run. "workers": tests inside workerd with the bindings of
// wrangler.toml (Durable Objects, local KV; `ctx.exports` as in production), as in
// `wrangler dev`. "browser": the chat widget in headless Chromium against the
// service under `wrangler dev` (test/browser), driven from Node.
// "conformance": the official MCP conformance suite's client scenarios against
// our OAuth code and our MCP path (test/conformance), from Node. "node": plain
// Node tests of our scripts (test/node). "unit": the pure modules' tests, beside them.
export default defineConfig({
  test: {
    projects: [
      {
        plugins: [
          // A function: the plugin calls it once globalSetup has built the converter Worker (converterWorker below).
          cloudflareTest(() => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: {
              bindings: {
                MCP_SERVERS: JSON.stringify(TEST_MCP_SERVERS),
                // Short enough that the "server hangs" test does not wait 30 s.
                MCP_REQUEST_TIMEOUT_MS: '3000',
                NOTIFICATION_DEBOUNCE_MS: '50',
                // Tasks are polled as often as the test servers ask (100 ms), not once a second.
                TASK_POLL_MIN_MS: '50',
                // Stands in for a `wrangler secret`: an MCP server credential.
                FAULTY_TOKEN: 'Bearer tok_live_9f8e7d6c5b4a3210',
                TENANTS: JSON.stringify(TEST_TENANTS),
                // The operator's page (/admin): a key of its own, not a tenant's (test/operator.test.ts).
                OPERATOR_KEY_SHA256: sha256(TEST_OPERATOR_KEY),
                // The suite's tenants use the demo MCP server, which is off with TENANTS unless enabled.
                DEMO_MCP_ENABLED: 'true',
                // The suite's scripted models read for themselves; reads made before the first step (on in production)
                // are tested on their own (test/prompt-caching.test.ts, "one round trip").
                PREDICTED_READS: 'off',
                // The test servers are on 127.0.0.1 over http: allowed in tests only.
                ALLOW_PRIVATE_MCP_URLS: 'true',
                // The suite runs hundreds of turns as acme's alice within a minute.
                TURNS_PER_MINUTE_PER_USER: '100000',
                TURNS_PER_MINUTE_PER_TENANT: '100000',
                // …and creates hundreds of conversations, all connected at once (limits are tested in a tenant of their own).
                CONVERSATIONS_PER_MINUTE_PER_USER: '100000',
                LIVE_CONVERSATIONS_PER_USER: '100000',
                ACME_TOKEN_SECRET: 'acme-test-signing-secret-0123456789',
                // OAuth (test/oauth.test.ts): our public origin (https, so our client metadata document is used),
                // the token keys (the second one only opens values sealed before a rotation), the clients' secrets.
                PUBLIC_URL: 'https://mcp-ondemand.test',
                OAUTH_TOKEN_KEYS:
                  'k2:dGVzdC1vYXV0aC10b2tlbi1rZXktbnVtYmVyLXR3byE,k1:dGVzdC1vYXV0aC10b2tlbi1rZXktbnVtYmVyLW9uZSE',
                PREREGISTERED_SECRET: 'preregistered-secret',
                TENANT_BOT_SECRET: 'tenant-bot-secret',
                // The same integration's private_key_jwt key (made per run: test/infra/client-keys.ts).
                TENANT_BOT_KEY: clientKeyPem(),
                // Its workload identity token (the JWT bearer grant), for the test authorization server.
                TENANT_WORKLOAD_TOKEN: workloadToken(`http://127.0.0.1:${OAUTH_AS_PORT}`),
                GLOBEX_TOKEN_SECRET: 'globex-test-signing-secret-9876543210',
                // The model providers' endpoints and keys (the fake provider checks nothing but records them).
                ANTHROPIC_BASE_URL: local(8, '/v1'),
                OPENAI_BASE_URL: local(8, '/v1'),
                ANTHROPIC_API_KEY: 'test-anthropic-key-0123456789',
                OPENAI_API_KEY: 'test-openai-key-0123456789',
              },
              // The converter Worker behind wrangler.toml's CONVERTER service binding, built by the globalSetup below.
              workers: [converterWorker()],
            },
          })),
        ],
        resolve: { alias: WRANGLER_ALIASES },
        test: {
          name: 'workers',
          include: ['test/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/conformance/**', 'test/node/**'],
          globalSetup: ['test/infra/converter-worker.ts', 'test/infra/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/browser/global-setup.ts'],
          environment: 'node',
          testTimeout: 60_000,
          // Starting `wrangler dev` (and building the widget) takes a while on a cold machine.
          hookTimeout: 180_000,
        },
      },
      {
        // The MCP conformance suite's client scenarios, in Node (scripts/conformance/README.md): the authorization
        // ones against src/auth's OAuth flow (`npm run conformance:auth`, about a minute), the others against our MCP
        // path (`npm run conformance:mcp`, under a minute); one test per run.
        test: {
          name: 'conformance',
          include: ['test/conformance/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 15 * 60_000,
        },
      },
      { test: { name: 'node', include: ['test/node/**/*.test.ts'], environment: 'node' } },
      // The pure modules' own tests, beside them (src/, shared/, widget/src/, converter/), in plain Node: seconds, no workerd,
      // no servers. `npm run test:unit` runs only these.
      {
        resolve: { alias: WRANGLER_ALIASES },
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'shared/**/*.test.ts', 'widget/src/**/*.test.ts', 'converter/**/*.test.ts'],
          environment: 'node',
        },
      },
    ],
    // Every request, turn and MCP request writes a structured log line (src/observability/log.ts): the info ones
    // (stdout) stay out of the report — warnings and errors still show; test/observability.test.ts checks the lines.
    onConsoleLog: (log, type) => !(type === 'stdout' && /^\{\s+event: /.test(log)),
    // One file at a time: every conversation connects to the shared fault
    // proxy, so a fault one file injects must not hit another file's test.
    fileParallelism: false,
    // CI also writes a JSON report, from which .ci/run prints its summary line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results/vitest.json' },
  },
});
