import { createApp } from './http/app';

export { Conversation } from './conversation/conversation';
export { DemoMcpServer } from './demo/durable-object';

export default createApp() satisfies ExportedHandler<Env>;
