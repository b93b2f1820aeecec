import { DurableObject } from 'cloudflare:workers';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createDemoServer } from './server';
import { DemoStore } from './store';

interface DemoSession {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  subscriptions: Set<string>;
}

const DEFAULT_PAGE_SIZE = 3;

/**
 * The demo MCP server (Streamable HTTP, stateful sessions). One instance
 * serves every session, so a change made through one session (say
 * `update_guidelines`) can notify the sessions subscribed to it: MCP's
 * notifications are per session, and sessions live here, in memory.
 *
 * If this object restarts, its sessions are gone and clients get 404 on
 * their session id, which is the spec's signal to initialise again. Its
 * state (tasks, guidelines, documents) is in SQLite and survives.
 */
export class DemoMcpServer extends DurableObject<Env> {
  private readonly store: DemoStore;
  private readonly sessions = new Map<string, DemoSession>();
  private readonly pageSize: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new DemoStore(ctx.storage.sql);
    const pageSize = Number(env.DEMO_PAGE_SIZE);
    this.pageSize = Number.isInteger(pageSize) && pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE;
  }

  override async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      if (!session) return jsonRpcError(404, -32001, 'Session not found: initialize a new session');
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return this.openSession(request);
  }

  /** A POST without a session id must be `initialize`; the transport checks that. */
  private async openSession(request: Request): Promise<Response> {
    const subscriptions = new Set<string>();
    const server = createDemoServer({
      store: this.store,
      pageSize: this.pageSize,
      subscriptions,
      broadcastUpdated: (uri) => this.broadcast((s) => s.subscriptions.has(uri) && s.server.server.sendResourceUpdated({ uri }), server),
      broadcastListChanged: () => this.broadcast((s) => s.server.sendResourceListChanged(), server),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, { server, transport, subscriptions }),
      onsessionclosed: (id) => void this.sessions.delete(id),
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (!transport.sessionId) await server.close(); // not an initialize request: nothing to keep
    return response;
  }

  /** Runs `send` for every session but `origin`; one dead stream never blocks the others. */
  private broadcast(send: (session: DemoSession) => unknown, origin: McpServer) {
    for (const session of this.sessions.values()) {
      if (session.server === origin) continue;
      Promise.resolve()
        .then(() => send(session))
        .catch((error) => console.warn('demo MCP: notification not delivered:', (error as Error).message));
    }
  }
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
