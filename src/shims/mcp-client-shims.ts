// Bundled in place of `@modelcontextprotocol/client/_shims` (`alias` in wrangler.toml): the MCP SDK client's workerd
// shim, without its `preloadSchemas()` call at module scope.
//
// The SDK builds its wire schemas (zod; both protocol eras, every method's request, result and notification) lazily,
// each on first use — except in workerd, where its shim builds all of them when the module loads: on Cloudflare the
// isolate's start-up is not billed, so the SDK moves the cost there. For us it is the largest part of start-up (issue
// 47: about 37 ms of V8 evaluation, most of the gap to a floor Worker in `npm run bench:cpu`), and most of it is
// never used: a conversation speaks one era per server and a handful of methods. Lazy, each schema a request needs is
// built once per isolate, inside the first request that needs it — measured side by side in `npm run bench:startup:ab`
// and `bench:cpu:ab` (BENCHMARKS.md). Everything else is the shim's own, from the package's public exports:
// `CORS_IS_POSSIBLE` is false in workerd (a failed fetch is a real network error), and the JSON Schema validator is
// the Cloudflare Workers one.
export { CfWorkerJsonSchemaValidator as DefaultJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
export const CORS_IS_POSSIBLE = false;
/** How this shim builds the SDK's schemas (read by test/bundle-shims.test.ts: the alias is in effect). */
export const SCHEMAS = 'on first use';
