// Bundled in place of `@modelcontextprotocol/server/_shims` (`alias` in wrangler.toml): the MCP SDK server's workerd
// shim, without its `preloadSchemas()` call at module scope — the demo server (src/demo/) builds the schemas its
// requests use when it first serves one, not every schema of both eras when it is imported (see mcp-client-shims.ts
// for why). The rest is the shim's own: the Cloudflare Workers JSON Schema validator, and no stdio.
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/server/validators/cf-worker';

function notSupported(): never {
  throw new Error(
    'StdioServerTransport is not supported in this environment. Use StreamableHTTPServerTransport instead.',
  );
}

export const process = {
  get stdin(): never {
    return notSupported();
  },
  get stdout(): never {
    return notSupported();
  },
};

/** How this shim builds the SDK's schemas (read by test/bundle-shims.test.ts: the alias is in effect). */
export const SCHEMAS = 'on first use';
