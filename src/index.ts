import { createApp } from './http/app';

export { TokenVault } from './auth/vault';
export { Conversation } from './conversation/conversation';
export { ConversationDirectory } from './conversation/directory';
export { DemoMcpServer } from './demo/durable-object';
export { LiveConversations } from './limits/live-conversations';
export { RateLimiter } from './limits/rate-limiter';

const app = createApp();

// Annotated (not inferred): `exports.default` (ctx.exports, how a Durable
// Object reaches /demo/mcp) is typed from this export, so it stays a plain
// Fetcher rather than a type computed from the whole app.
const worker: ExportedHandler<Env> = { fetch: app.fetch };
export default worker;
