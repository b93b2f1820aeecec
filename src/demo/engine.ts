import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpHttpHandler,
  type McpServer,
} from '@modelcontextprotocol/server';
import { memorySkillFiles, type SkillCatalog, SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { DEMO_SKILL_FILES } from './content/skills';
import { createDemoServer, DEMO_CACHE_HINTS, type DemoChanges } from './server';
import { DEFAULT_SESSION_LIMITS, SessionTable, type SessionLimits } from './session-table';
import { ReportTasks } from './report-tasks';
import { DemoStore } from './store';
import { errorFields, logEvent } from '../observability/log';

/** One 2025-11-25 session: its server instance, transport and subscriptions. */
interface LegacySession {
  server: McpServer;
  transport: WebStandardStreamableHTTPServerTransport;
  subscriptions: Set<string>;
}

const DEFAULT_PAGE_SIZE = 3;

/**
 * The demo MCP server's engine (loaded by its Durable Object, durable-object.ts,
 * on first use), speaking both protocol eras at one URL:
 *
 * - **2026-07-28** (stateless): every request is served by a fresh server
 *   instance through the SDK's `createMcpHandler` (`legacy: 'reject'`, since
 *   2025 traffic is routed here first); change notifications reach clients
 *   on their `subscriptions/listen` streams through the handler's bus.
 * - **2025-11-25** (sessions): `initialize` opens a session
 *   (`Mcp-Session-Id`) with its own server instance and transport, kept in
 *   memory (`SessionTable`); notifications go to subscribed sessions on
 *   their GET streams.
 *
 * One instance serves everyone, so a change made in one era reaches
 * followers in both. If this object restarts, 2025 sessions are gone (their
 * clients get 404 and initialise again) and listen streams end (2026 clients
 * listen again); tasks, guidelines, documents and build_report's MCP tasks
 * are in SQLite and survive.
 */
export class DemoMcpEngine {
  private readonly store: DemoStore;
  private readonly reports: ReportTasks;
  private readonly sessions: SessionTable<LegacySession>;
  private readonly pageSize: number;
  private readonly modern: McpHttpHandler;

  constructor(ctx: DurableObjectState, env: Env) {
    this.store = new DemoStore(ctx.storage.sql);
    this.reports = new ReportTasks(ctx.storage.sql);
    const pageSize = Number(env.DEMO_PAGE_SIZE);
    this.pageSize = Number.isInteger(pageSize) && pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE;
    this.sessions = new SessionTable(sessionLimits(env), (session) => endSession(session));
    this.modern = createMcpHandler(
      async () =>
        createDemoServer({ ...this.host(), skills: await this.skills(), changes: this.changesFrom(undefined) }),
      {
        legacy: 'reject',
        onerror: (error) => logEvent('demo.mcp', { what: 'request', era: 'modern', ...errorFields(error) }, 'warn'),
      },
    );
  }

  /** Hashing the skills' files is async (WebCrypto): loaded on the first request that needs them, then kept. */
  private skillCatalog: Promise<SkillCatalog> | undefined;
  private skills(): Promise<SkillCatalog> {
    this.skillCatalog ??= SkillsExtension.load(memorySkillFiles(DEMO_SKILL_FILES), {
      cacheHint: DEMO_CACHE_HINTS.skills,
    });
    return this.skillCatalog;
  }

  private host() {
    return { store: this.store, reports: this.reports, pageSize: this.pageSize };
  }

  /** Whether a 2025 session is live here (operators and tests: a released conversation must leave none behind). */
  async hasSession(id: string): Promise<boolean> {
    return this.sessions.has(id);
  }

  /** How many 2025 sessions are live here. */
  async sessionCount(): Promise<number> {
    return this.sessions.size;
  }

  /** How many 2026 `subscriptions/listen` streams are open here. */
  async listenerCount(): Promise<number> {
    return (this.modern.bus as { listenerCount?: number }).listenerCount ?? 0;
  }

  async fetch(request: Request): Promise<Response> {
    if (!(await isLegacyRequest(request))) return this.modern.fetch(request);
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = this.sessions.get(sessionId, Date.now());
      if (!session) return jsonRpcError(404, -32001, 'Session not found: initialize a new session');
      return session.transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return this.openSession(request);
  }

  /** A 2025 POST without a session id must be `initialize`; the transport checks that. */
  private async openSession(request: Request): Promise<Response> {
    this.sessions.makeRoom(Date.now());
    const subscriptions = new Set<string>();
    let self: LegacySession | undefined;
    const server = createDemoServer({
      ...this.host(),
      skills: await this.skills(),
      changes: this.changesFrom(() => self),
      legacySubscriptions: subscriptions,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) =>
        void this.sessions.add(id, (self = { server, transport, subscriptions }), Date.now()),
      onsessionclosed: (id) => void this.sessions.delete(id),
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    if (!transport.sessionId) await server.close(); // not an initialize request: nothing to keep
    return response;
  }

  /**
   * How changes made through one instance are announced: on 2026 listen
   * streams (the handler's bus filters by what each stream asked for), and
   * to every 2025 session but the one that made the change (which heard of
   * it in its own response stream).
   */
  private changesFrom(origin: (() => LegacySession | undefined) | undefined): DemoChanges {
    const toSessions = (send: (session: LegacySession) => Promise<void>) => {
      for (const session of this.sessions.values()) {
        if (session === origin?.()) continue;
        send(session).catch((error) =>
          logEvent('demo.mcp', { what: 'notification', era: 'legacy', ...errorFields(error) }, 'warn'),
        );
      }
    };
    return {
      resourceUpdated: (uri) => {
        this.modern.notify.resourceUpdated(uri);
        toSessions(async (s) => {
          if (s.subscriptions.has(uri)) await s.server.server.sendResourceUpdated({ uri });
        });
      },
      resourcesChanged: () => {
        this.modern.notify.resourcesChanged();
        toSessions(async (s) => s.server.sendResourceListChanged());
      },
    };
  }
}

/** Limits from `DEMO_MAX_SESSIONS` and `DEMO_SESSION_IDLE_MS`, where set to positive integers. */
function sessionLimits(env: Env): SessionLimits {
  const positive = (name: 'DEMO_MAX_SESSIONS' | 'DEMO_SESSION_IDLE_MS', fallback: number) => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    maxSessions: positive('DEMO_MAX_SESSIONS', DEFAULT_SESSION_LIMITS.maxSessions),
    idleMs: positive('DEMO_SESSION_IDLE_MS', DEFAULT_SESSION_LIMITS.idleMs),
  };
}

/** Closes the session's streams (its GET stream ends, so the client notices) and its server. */
async function endSession(session: LegacySession): Promise<void> {
  await session.transport.close();
  await session.server.close();
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}
