import { loadConfig } from './config';
import { createApp } from './http/app';
import { configureLog } from './observability/log';

export { TokenVault } from './auth/vault';
export { Conversation } from './conversation/conversation';
export { ConversationDirectory } from './conversation/directory';
export { DemoMcpServer } from './demo/durable-object';
export { LiveConversations } from './limits/live-conversations';
export { RateLimiter } from './limits/rate-limiter';
export { UsageLedger } from './usage/ledger';
export { DefinitionPins } from './mcp/catalog/definition-pins';
// The built-in MCP server of the user's files: reached only through the loopback binding (uploads/loopback.ts).
export { UploadsMcp } from './uploads/entrypoint';

/** Built on the first request, not at module load: an isolate started for a Durable Object alone (an RPC, an alarm) never needs the routes. */
let app: ReturnType<typeof createApp> | undefined;

// Annotated (not inferred): `exports.default` (ctx.exports, how a Durable
// Object reaches /demo/mcp) is typed from this export, so it stays a plain
// Fetcher rather than a type computed from the whole app.
const worker: ExportedHandler<Env> = {
  fetch: (request, env, ctx) => {
    if (!app) {
      // LOG_LEVEL and LOG_FORMAT for this isolate; an invalid config is answered by the routes (500 internal_error).
      try {
        configureLog(loadConfig(env).settings);
      } catch {}
      app = createApp();
    }
    return app.fetch(request, env, ctx);
  },
};
export default worker;
