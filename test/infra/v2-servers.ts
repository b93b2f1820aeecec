// MCP servers built on the official SDK v2 (`@modelcontextprotocol/server`),
// one per way a server can be deployed today, each on its own path of one
// port (TEST_PORT_BASE + 5), each with its own state so tests never cross:
//
//   /strict    2026-07-28 only: createMcpHandler(…, { legacy: 'reject' })
//   /fallback  the SDK's defaults: 2026-07-28, and 2025 requests answered
//              statelessly (no session, GET 405, resources/subscribe -32601)
//   /stateful  2026-07-28 plus real 2025-11-25 sessions (isLegacyRequest →
//              WebStandardStreamableHTTPServerTransport, GET stream, subscribe)
//   /naive     a naive stateless port of a 2025 server (SDK v1, no session):
//              accepts resources/subscribe with {} and can never notify
//   /listen-faults/strict
//              the strict server with its listen streams made to misbehave
//              (listen-faults.ts), its own state, controlled as `listen-faults-strict`
//   /bent/<how>/<strict|stateful>
//              the strict or stateful server with its results bent as some
//              servers send them (bent-results.ts), each with its own state,
//              controlled as `bent-<how>-<mode>`
//   /stall/stateful
//              the stateful server (both eras), its own state, controlled as
//              `stall-stateful`: once armed (POST /__control/stall-stateful/stall
//              {method, body}), every request of that method is answered with
//              headers and a first SSE event or part of a JSON body, then held
//              (hostile-server.ts writeStalled); the state's `stalls` say when
//              the client closed each connection
//
// Control (see README.md): GET /__control/<mode>/state, POST
// /__control/<mode>/edit {uri, text} and /add {name, text} (changes made outside MCP),
// /__control/<mode>/cut-listens (the server drops its listen streams),
// /__control/<mode>/restart (graceful: listen streams end, sessions are gone).
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  inputRequired,
  isLegacyRequest,
  McpServer,
  ProtocolError,
  WebStandardStreamableHTTPServerTransport,
  type CacheHint,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { Server as V1Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport as V1Transport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { BENDS, bentHandler } from './bent-results';
import { writeStalled, type StallBody, type StallRecord } from './hostile-server';
import { listenFaultHandler, type ListenFault, type ListenFaultState } from './listen-faults';

export type V2Mode = 'strict' | 'fallback' | 'stateful' | 'naive';
export const V2_MODES: readonly V2Mode[] = ['strict', 'fallback', 'stateful', 'naive'];

/** The resources every mode serves, with the cache hints their 2026 reads carry. */
const INITIAL_NOTES: Record<string, { text: string; hint?: CacheHint }> = {
  'v2://notes/public': { text: 'public note, version 1', hint: { ttlMs: 60_000, cacheScope: 'public' } },
  'v2://notes/private': { text: 'private note, version 1', hint: { ttlMs: 60_000, cacheScope: 'private' } },
  'v2://notes/short': { text: 'short-lived note, version 1', hint: { ttlMs: 1_500, cacheScope: 'public' } },
  // No hint: what an SDK server sends when its author set nothing (ttlMs 0, private).
  'v2://notes/volatile': { text: 'volatile note, version 1' },
};

/** One mode's state: its resources, what it has seen, its 2025 sessions. */
class ModeState {
  constructor(readonly mode: V2Mode) {}
  notes = new Map(Object.entries(INITIAL_NOTES).map(([uri, note]) => [uri, { ...note }]));
  methods: Record<string, number> = {};
  deletes = 0;
  sessions = new Map<
    string,
    { server: McpServer; transport: WebStandardStreamableHTTPServerTransport; subscriptions: Set<string> }
  >();
  /** Open responses carrying `subscriptions/listen` streams (to cut them). */
  listenResponses = new Set<ServerResponse>();
  /** The filters of the newest 20 `subscriptions/listen` requests, oldest first. */
  listenFilters: unknown[] = [];
  /** How each `slow_job` call ended: "started", then "cancelled" (the client cancelled it) or "finished". */
  jobs: string[] = [];
  /** `/stall/…` only: the method whose answers are held, and each held answer. */
  stall: { method: string; body: StallBody } | undefined;
  stalls: StallRecord[] = [];
  stalled = new Set<ServerResponse>();
  handler!: McpHttpHandler;
}

/** By mode, and by `bent-<how>-<mode>` for the bent servers. */
const states = new Map<string, ModeState>();
/** The listen-stream faults of `/listen-faults/strict` (listen-faults.ts). */
const listenFaults: ListenFaultState = { mode: 'pass', count: 10_000, opened: 0, injected: 0 };

/** A change (from a tool or from outside): 2026 listen streams and subscribed 2025 sessions hear of it. */
function publishUpdate(state: ModeState, uri: string, except?: McpServer) {
  state.handler.notify.resourceUpdated(uri);
  for (const session of state.sessions.values()) {
    if (session.server !== except && session.subscriptions.has(uri))
      void session.server.server.sendResourceUpdated({ uri }).catch(() => {});
  }
}

/** A note was added: 2026 requests build their servers afresh; a 2025 session's long-lived server learns it here. */
function publishListChanged(state: ModeState, uri: string) {
  state.handler.notify.resourcesChanged();
  for (const session of state.sessions.values()) {
    registerNote(session.server, state, uri);
    session.server.sendResourceListChanged();
  }
}

function registerNote(server: McpServer, state: ModeState, uri: string) {
  const hint = state.notes.get(uri)?.hint;
  server.registerResource(
    uri.split('/').pop()!,
    uri,
    { mimeType: 'text/plain', ...(hint ? { cacheHint: hint } : {}) },
    () => ({
      contents: [{ uri, mimeType: 'text/plain', text: state.notes.get(uri)!.text }],
    }),
  );
}

/** The server of one request (2026) or one 2025 session: the same definitions for both eras. */
function buildServer(mode: V2Mode, state: ModeState, session?: { subscriptions: Set<string> }): McpServer {
  const server = new McpServer(
    { name: `v2-${mode}`, version: '2.4.0' },
    {
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: { listChanged: true } },
      instructions: `SDK v2 test server (${mode}).`,
      cacheHints: {
        'resources/list': { ttlMs: 60_000, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: 60_000, cacheScope: 'public' },
        'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 60_000, cacheScope: 'public' },
      },
    },
  );
  for (const uri of state.notes.keys()) registerNote(server, state, uri);
  server.registerTool(
    'edit',
    { description: 'Replaces the text of a note', inputSchema: z.object({ uri: z.string(), text: z.string() }) },
    ({ uri, text }) => {
      const note = state.notes.get(uri);
      if (!note) return { isError: true, content: [{ type: 'text', text: `no note ${uri}` }] };
      note.text = text;
      publishUpdate(state, uri);
      return { content: [{ type: 'text', text: `edited ${uri}` }] };
    },
  );
  server.registerTool(
    'add',
    { description: 'Adds a note', inputSchema: z.object({ name: z.string(), text: z.string() }) },
    ({ name, text }) => {
      state.notes.set(`v2://notes/${name}`, { text });
      publishListChanged(state, `v2://notes/${name}`);
      return { content: [{ type: 'text', text: `added v2://notes/${name}` }] };
    },
  );
  // Takes 20 s unless the client cancels it (2025: notifications/cancelled on its session; 2026: the request's stream aborted).
  server.registerTool(
    'slow_job',
    { description: 'A job that takes a long time', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async (_args, ctx) => {
      state.jobs.push('started');
      const outcome = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve('finished'), 20_000);
        ctx.mcpReq.signal.addEventListener('abort', () => (clearTimeout(timer), resolve('cancelled')));
      });
      state.jobs.push(outcome);
      return { content: [{ type: 'text', text: `job ${outcome}` }] };
    },
  );
  // Needs the user to confirm (elicitation): 2026 asks with an input_required result; a 2025 session gets elicitation/create.
  // A client that declared no elicitation capability is refused (-32021).
  server.registerTool(
    'confirm_delete',
    { description: 'Deletes everything after asking', inputSchema: z.object({}) },
    (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.confirm as { action?: string; content?: { ok?: boolean } } | undefined;
      if (!answer)
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: 'Delete every note?',
              requestedSchema: z.object({ ok: z.boolean(), reason: z.string().optional() }),
            }),
          },
        });
      const deleted = answer.action === 'accept' && answer.content?.ok === true;
      return {
        content: [
          {
            type: 'text',
            text: deleted
              ? 'deleted'
              : `kept everything (${answer.action}${answer.action === 'accept' ? ', not confirmed' : ''})`,
          },
        ],
      };
    },
  );
  if (session) {
    server.server.setRequestHandler('resources/subscribe', ({ params }) => {
      if (!state.notes.has(params.uri))
        throw new ProtocolError(-32602, `Resource ${params.uri} not found`, { uri: params.uri });
      session.subscriptions.add(params.uri);
      return {};
    });
    server.server.setRequestHandler('resources/unsubscribe', ({ params }) => {
      session.subscriptions.delete(params.uri);
      return {};
    });
  }
  return server;
}

function newHandler(mode: V2Mode, state: ModeState): McpHttpHandler {
  return createMcpHandler(() => buildServer(mode, state), {
    legacy: mode === 'fallback' ? 'stateless' : 'reject',
    onerror: () => {},
  });
}

/** A 2025 request to the stateful server: its session, or `initialize` opening one. */
async function legacySession(mode: V2Mode, state: ModeState, request: Request): Promise<Response> {
  const id = request.headers.get('mcp-session-id');
  if (id) {
    const session = state.sessions.get(id);
    if (!session)
      return Response.json(
        { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null },
        { status: 404 },
      );
    return session.transport.handleRequest(request);
  }
  const subscriptions = new Set<string>();
  const server = buildServer(mode, state, { subscriptions });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (sid) => void state.sessions.set(sid, { server, transport, subscriptions }),
    onsessionclosed: (sid) => void state.sessions.delete(sid),
  });
  await server.connect(transport);
  return transport.handleRequest(request);
}

/** The naive 2025 port: a fresh SDK v1 server per request, no session, subscribe "accepted", never a notification. */
function naiveServer(state: ModeState): V1Server {
  const server = new V1Server(
    { name: 'v2-naive', version: '1.0.0' },
    { capabilities: { resources: { subscribe: true }, tools: {} } },
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [...state.notes.keys()].map((uri) => ({ uri, name: uri.split('/').pop()!, mimeType: 'text/plain' })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) => {
    const note = state.notes.get(params.uri);
    if (!note) throw Object.assign(new Error(`Resource ${params.uri} not found`), { code: -32002 });
    return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: note.text }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, () => ({}));
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: 'edit',
        inputSchema: {
          type: 'object',
          properties: { uri: { type: 'string' }, text: { type: 'string' } },
          required: ['uri', 'text'],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    const { uri, text } = params.arguments as { uri: string; text: string };
    const note = state.notes.get(uri);
    if (note) note.text = text;
    return { content: [{ type: 'text', text: `edited ${uri}` }] };
  });
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function countMethods(state: ModeState, body: unknown) {
  for (const message of Array.isArray(body) ? body : [body]) {
    const method = (message as { method?: unknown } | undefined)?.method;
    if (typeof method === 'string') state.methods[method] = (state.methods[method] ?? 0) + 1;
  }
}

async function control(key: string, action: string, req: IncomingMessage, res: ServerResponse) {
  const state = states.get(key)!;
  const mode = state.mode;
  if (action === 'fault') {
    const { mode, count } = (await readJson(req)) as { mode: ListenFault; count?: number };
    Object.assign(listenFaults, { mode, count: count ?? 10_000 });
    return void res.writeHead(204).end();
  }
  if (action === 'stall') {
    // Arms (or, without a method, disarms) the stall; disarming also drops the answers still held.
    const { method, body } = ((await readJson(req)) ?? {}) as { method?: string; body?: StallBody };
    state.stall = method ? { method, body: body ?? 'sse' } : undefined;
    if (!method) {
      for (const res of state.stalled) res.destroy();
      state.stalled.clear();
      state.stalls = [];
    }
    return void res.writeHead(204).end();
  }
  if (action === 'state') {
    const listens = (state.handler.bus as unknown as { listenerCount: number }).listenerCount;
    return void res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        listens,
        sessions: state.sessions.size,
        deletes: state.deletes,
        methods: state.methods,
        jobs: state.jobs,
        listenFilters: state.listenFilters,
        ...(key === 'listen-faults-strict' ? { faults: listenFaults } : {}),
        ...(key.startsWith('stall-') ? { stalls: state.stalls } : {}),
      }),
    );
  }
  if (action === 'edit') {
    // `silent`: the change is made but nobody is told (a gateway running one server process per session notifies only that session).
    const { uri, text, silent } = (await readJson(req)) as { uri: string; text: string; silent?: boolean };
    state.notes.get(uri)!.text = text;
    if (mode !== 'naive' && !silent) publishUpdate(state, uri);
  } else if (action === 'add') {
    const { name, text } = (await readJson(req)) as { name: string; text: string };
    state.notes.set(`v2://notes/${name}`, { text });
    if (mode !== 'naive') publishListChanged(state, `v2://notes/${name}`);
  } else if (action === 'cut-listens') {
    for (const response of state.listenResponses) response.destroy();
    state.listenResponses.clear();
  } else if (action === 'restart') {
    const old = state.handler;
    state.handler = newHandler(mode, state);
    await old.close();
    for (const session of state.sessions.values()) await session.transport.close();
    state.sessions.clear();
  } else if (action === 'reset') {
    state.methods = {};
    state.deletes = 0;
  }
  res.writeHead(204).end();
}

export async function startV2Servers(port: number): Promise<{ close(): Promise<void> }> {
  for (const mode of V2_MODES) {
    const state = new ModeState(mode);
    state.handler = newHandler(mode, state);
    states.set(mode, state);
  }
  const faceOf = (mode: V2Mode, state: ModeState) => async (request: Request) =>
    mode === 'stateful' && (await isLegacyRequest(request))
      ? legacySession(mode, state, request)
      : state.handler.fetch(request);
  const nodeHandlers = new Map<string, ReturnType<typeof toNodeHandler>>(
    V2_MODES.filter((mode) => mode !== 'naive').map((mode) => [
      mode,
      toNodeHandler({ fetch: faceOf(mode, states.get(mode)!) }, { onerror: () => {} }),
    ]),
  );
  for (const how of BENDS) {
    for (const mode of ['strict', 'stateful'] as const) {
      const state = new ModeState(mode);
      state.handler = newHandler(mode, state);
      states.set(`bent-${how}-${mode}`, state);
      nodeHandlers.set(
        `bent-${how}-${mode}`,
        toNodeHandler({ fetch: bentHandler(how, faceOf(mode, state)) }, { onerror: () => {} }),
      );
    }
  }
  {
    const state = new ModeState('stateful');
    state.handler = newHandler('stateful', state);
    states.set('stall-stateful', state);
    nodeHandlers.set('stall-stateful', toNodeHandler({ fetch: faceOf('stateful', state) }, { onerror: () => {} }));
  }
  {
    const state = new ModeState('strict');
    state.handler = newHandler('strict', state);
    states.set('listen-faults-strict', state);
    nodeHandlers.set(
      'listen-faults-strict',
      toNodeHandler({ fetch: listenFaultHandler(listenFaults, faceOf('strict', state)) }, { onerror: () => {} }),
    );
  }
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const [, first, second, third] = url.pathname.split('/') as [string, string, string, string];
    if (first === '__control' && states.has(second)) return control(second, third, req, res);
    const target =
      first === 'bent'
        ? `bent-${second}-${third}`
        : first === 'listen-faults' || first === 'stall'
          ? `${first}-${second}`
          : first;
    const state = states.get(target);
    if (!state) return void res.writeHead(404).end();
    if (req.method === 'DELETE') state.deletes++;
    if (req.headers['mcp-method']) countMethods(state, { method: req.headers['mcp-method'] });
    // A server that answers input_required whatever the client declared (not an SDK server: written by hand).
    if (req.headers['mcp-name'] === 'confirm_raw') {
      const body = (await readJson(req)) as { id: unknown };
      const result = {
        resultType: 'input_required',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: { mode: 'form', message: 'Really delete?', requestedSchema: { type: 'object', properties: {} } },
          },
        },
      };
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
    }
    if (state.stall && req.method === 'POST') {
      // The method is in the Mcp-Method header (2026) or only in the body (2025): the body is read here and handed on.
      const body = (await readJson(req)) as { id?: unknown; method?: string } | undefined;
      (req as IncomingMessage & { body?: unknown }).body = body;
      if (body?.method === state.stall.method && body.id !== undefined) {
        countMethods(state, body);
        state.stalled.add(res);
        res.on('close', () => state.stalled.delete(res));
        return writeStalled(res, body.id, body.method, state.stall.body, state.stalls);
      }
    }
    if (req.headers['mcp-method'] === 'subscriptions/listen') {
      state.listenResponses.add(res);
      res.on('close', () => state.listenResponses.delete(res));
      // What it asked to hear of (the body is handed on parsed, below).
      const body = ((req as IncomingMessage & { body?: unknown }).body ?? (await readJson(req))) as
        | { params?: { notifications?: unknown } }
        | undefined;
      (req as IncomingMessage & { body?: unknown }).body = body;
      state.listenFilters = [...state.listenFilters, body?.params?.notifications ?? null].slice(-20);
    }
    if (target === 'naive') {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const body = await readJson(req);
      countMethods(state, body);
      const server = naiveServer(state);
      const transport = new V1Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void server.close());
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    // Headers go out at once: toNodeHandler writes them with the first body
    // chunk, and a 2025 GET stream's first chunk may come 15 s later.
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      const result = writeHead(...args);
      res.flushHeaders();
      return result;
    }) as typeof res.writeHead;
    if (!req.headers['mcp-method'] && req.method === 'POST') {
      // 2025 traffic carries no Mcp-Method header: count its methods from the body, then hand the parsed body on.
      const body = (req as IncomingMessage & { body?: unknown }).body ?? (await readJson(req));
      countMethods(state, body);
      (req as IncomingMessage & { body?: unknown }).body = body;
    }
    await nodeHandlers.get(target)!(
      req as IncomingMessage & { body?: unknown },
      res,
      (req as IncomingMessage & { body?: unknown }).body,
    );
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    close: async () => {
      for (const state of states.values()) await state.handler.close().catch(() => {});
      await new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      });
    },
  };
}
