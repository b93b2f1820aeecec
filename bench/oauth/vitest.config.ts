import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { converterWorker } from '../../test/infra/converter-worker.ts';
import { TEST_PORT_BASE } from '../../test/infra/ports.ts';

// The OAuth benchmark (npm run bench:oauth): inside workerd like the tests,
// against the local authorization server and the MCP server it protects
// (test/infra/oauth-servers.ts, started by ./global-setup.ts).
const rs = `http://127.0.0.1:${TEST_PORT_BASE + 31}/mcp`;

export default defineConfig({
  plugins: [
    // A function: called once globalSetup has built the converter Worker (the CONVERTER binding's other end).
    cloudflareTest(() => ({
      wrangler: { configPath: './wrangler.toml' },
      miniflare: {
        bindings: {
          AUTH_DISABLED: 'true',
          PUBLIC_URL: 'https://bench.mcp-ondemand.test',
          OAUTH_TOKEN_KEYS: 'b1:YmVuY2gtb2F1dGgtdG9rZW4ta2V5LTAxMjM0NTY3ODk',
          MCP_SERVERS: JSON.stringify([
            { id: 'account', url: rs, transport: 'streamable-http', auth: { type: 'oauth' } },
          ]),
        },
        workers: [converterWorker()],
      },
    })),
  ],
  test: {
    include: ['bench/oauth/*.bench.test.ts'],
    globalSetup: ['test/infra/converter-worker.ts', 'bench/oauth/global-setup.ts'],
    testTimeout: 600_000,
  },
});
