import { DurableObject } from 'cloudflare:workers';
import type { DemoMcpEngine } from './engine';

/**
 * The demo MCP server's Durable Object (one instance serves everyone; see
 * engine.ts). Its engine — the MCP server SDK, the demo's store and
 * sessions — is imported on first use, not at the isolate's start: a
 * deployment that does not serve the demo (the default with `TENANTS`)
 * never evaluates `@modelcontextprotocol/server` and its schemas.
 */
export class DemoMcpServer extends DurableObject<Env> {
  private engine: Promise<DemoMcpEngine> | undefined;

  private ready(): Promise<DemoMcpEngine> {
    this.engine ??= import('./engine').then(({ DemoMcpEngine }) => new DemoMcpEngine(this.ctx, this.env));
    return this.engine;
  }

  /** Whether a 2025 session is live here (operators and tests: a released conversation must leave none behind). */
  async hasSession(id: string): Promise<boolean> {
    return (await this.ready()).hasSession(id);
  }

  /** How many 2025 sessions are live here. */
  async sessionCount(): Promise<number> {
    return (await this.ready()).sessionCount();
  }

  /** How many 2026 `subscriptions/listen` streams are open here. */
  async listenerCount(): Promise<number> {
    return (await this.ready()).listenerCount();
  }

  override async fetch(request: Request): Promise<Response> {
    return (await this.ready()).fetch(request);
  }
}
