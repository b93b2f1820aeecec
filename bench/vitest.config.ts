import { cloudflareTest } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';
import { converterWorker } from '../test/infra/converter-worker.ts';

// Benchmarks run inside workerd like the tests, but one file at a time and
// never as part of `npm test`. bench/run.mjs starts this and writes BENCHMARKS.md.
export default defineConfig({
  plugins: [
    // A function: called once globalSetup has built the converter Worker (the CONVERTER binding's other end).
    cloudflareTest(() => ({
      wrangler: { configPath: './wrangler.toml' },
      // The demo server pages 3 at a time to exercise pagination; the benchmark
      // publishes 1,000 documents and should not measure 334-page re-listings.
      // The loop benchmark runs hundreds of turns a minute for one user, in many conversations.
      miniflare: {
        bindings: {
          AUTH_DISABLED: 'true',
          DEMO_PAGE_SIZE: '500',
          TURNS_PER_MINUTE_PER_USER: '1000000',
          TURNS_PER_MINUTE_PER_TENANT: '1000000',
          CONVERSATIONS_PER_MINUTE_PER_USER: '1000000',
          LIVE_CONVERSATIONS_PER_USER: '1000000',
        },
        workers: [converterWorker()],
      },
    })),
  ],
  test: {
    include: ['bench/*.bench.test.ts'],
    globalSetup: ['test/infra/converter-worker.ts'],
    // bench/oauth/ has servers and a config of its own (npm run bench:oauth).
    fileParallelism: false,
    testTimeout: 600_000,
  },
});
