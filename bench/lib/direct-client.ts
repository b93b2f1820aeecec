import { exports } from 'cloudflare:workers';
import { Client, StreamableHTTPClientTransport, type ResponseCacheStore } from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';

const NO_CACHE: ResponseCacheStore = {
  get: () => undefined,
  set: () => 0,
  delete: () => {},
  evict: () => {},
  clear: () => {},
};

/**
 * A plain SDK v2 client of the demo server in this Durable Object, over the
 * same loopback route as the conversation's (`exports.default`): the peer a
 * developer would write by hand. `era` picks the protocol; `cache: false`
 * switches the SDK's own response cache off (a bare round trip per read).
 */
export async function directDemoClient(era: 'modern' | 'legacy', { cache = false } = {}) {
  const client = new Client(
    { name: `bench-direct-${era}`, version: '1' },
    {
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' },
      ...(cache ? {} : { responseCacheStore: NO_CACHE }),
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('http://self.internal/demo/mcp'), {
      fetch: (i, init) => exports.default.fetch(i, init),
    }),
  );
  return client;
}
