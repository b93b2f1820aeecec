import { createApp } from './http/app';

export { TokenVault } from './auth/vault';
export { Conversation } from './conversation/conversation';
export { ConversationDirectory } from './conversation/directory';
export { DemoMcpServer } from './demo/durable-object';
export { LiveConversations } from './limits/live-conversations';
export { RateLimiter } from './limits/rate-limiter';

const app = createApp();

// Annotated (not inferred): `Env.SELF` is typed from this export, and
// inferring it from the app would make the type refer to itself.
const worker: ExportedHandler<Env> = { fetch: app.fetch };
export default worker;
