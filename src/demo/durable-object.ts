import { DurableObject } from 'cloudflare:workers';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createDemoServer } from './server';
import { DEFAULT_SESSION_LIMITS, SessionTable, type SessionLimits } from './sessions';
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
  private readonly sessions: SessionTable<DemoSession>;
  private readonly pageSize: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new DemoStore(ctx.storage.sql);
    const pageSize = Number(env.DEMO_PAGE_SIZE);
    this.pageSize = Number.isInteger(pageSize) && pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE;
    this.sessions = new SessionTable(sessionLimits(env), (session) => endSession(session));
  }

  /** Whether a session is live here (operators and tests: a deleted conversation must leave none behind). */
  async hasSession(id: string): Promise<boolean> {
    return this.sessions.has(id);
  }

  /** How many sessions are live here. */
  async sessionCount(): Promise<number> {
    return this.sessions.size;
  }

  override async fetch(request: Request): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId, Date.now());
      if (!session) return jsonRpcError(404, -32001, 'Session not found: initialize a new session');
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return this.openSession(request);
  }

  /** A POST without a session id must be `initialize`; the transport checks that. */
  private async openSession(request: Request): Promise<Response> {
    this.sessions.makeRoom(Date.now());
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
      onsessioninitialized: (id) => void this.sessions.add(id, { server, transport, subscriptions }, Date.now()),
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

/** Limits from `DEMO_MAX_SESSIONS` and `DEMO_SESSION_IDLE_MS`, where set to positive integers. */
function sessionLimits(env: Env): SessionLimits {
  const vars = env as unknown as Record<string, unknown>;
  const positive = (name: string, fallback: number) => {
    const value = Number(vars[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return { maxSessions: positive('DEMO_MAX_SESSIONS', DEFAULT_SESSION_LIMITS.maxSessions), idleMs: positive('DEMO_SESSION_IDLE_MS', DEFAULT_SESSION_LIMITS.idleMs) };
}

/** Closes the session's streams (its GET stream ends, so the client notices) and its server. */
async function endSession(session: DemoSession): Promise<void> {
  await session.transport.close();
  await session.server.close();
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
