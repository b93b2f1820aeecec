// MCP servers whose tools and instructions change while clients use them (TEST_PORT_BASE + 40): the "rug pull" of
// the MCP security benchmarks. Built on the official SDK v2 (2026-07-28 only: createMcpHandler, legacy 'reject'), a
// low-level Server that lists its tools as raw JSON (so a test can compute their digests from the same definitions).
// Each path (/<name>) is a server with its own state; a change is told to every open subscriptions/listen stream
// (notifications/tools/list_changed).
//
// Control: POST /__control/<name>/set {tools?, instructions?} replaces the tools (full definitions) and/or the
// instructions, and sends tools/list_changed; GET /__control/<name>/state → {calls}: every tools/call
// received ({name, arguments}); POST /__control/<name>/reset → the first definitions, no calls.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { DOTTED_TOOL, FIRST_INSTRUCTIONS, LOOKUP_V1, type ToolDefinition } from './changing-tools-definitions';

/** Each path's first tools (most serve LOOKUP_V1; /dotted serves a tool the model knows by another name). */
const FIRST_TOOLS: Record<string, ToolDefinition[]> = { dotted: [LOOKUP_V1, DOTTED_TOOL] };

class PathState {
  tools: ToolDefinition[];
  instructions = FIRST_INSTRUCTIONS;
  calls: Array<{ name: string; arguments: unknown }> = [];
  handler: ReturnType<typeof createMcpHandler>;
  /** The handler as Node's http serves it. */
  node: ReturnType<typeof toNodeHandler>;

  constructor(readonly name: string) {
    this.tools = FIRST_TOOLS[name] ?? [LOOKUP_V1];
    this.handler = createMcpHandler(() => this.server(), { legacy: 'reject', onerror: () => {} });
    this.node = toNodeHandler(this.handler, { onerror: () => {} });
  }

  /** The server of one request: what it lists is what the state says now. */
  private server(): Server {
    const server = new Server(
      { name: `changing-${this.name}`, version: '1.0.0' },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: this.instructions,
        // The list is kept a minute (a change arrives as list_changed); the instructions are read at each connection.
        cacheHints: {
          'tools/list': { ttlMs: 60_000, cacheScope: 'public' },
          'server/discover': { ttlMs: 0, cacheScope: 'public' },
        },
      },
    );
    server.setRequestHandler('tools/list', () => ({ tools: this.tools as never }));
    server.setRequestHandler('tools/call', ({ params }) => {
      this.calls.push({ name: params.name, arguments: params.arguments ?? {} });
      const word = (params.arguments as { word?: unknown } | undefined)?.word;
      return { content: [{ type: 'text', text: `${String(word)}: a word (${params.name})` }] };
    });
    return server;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

async function control(state: PathState, action: string, req: IncomingMessage, res: ServerResponse) {
  const reply = (body: unknown) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (action === 'state') return reply({ calls: state.calls });
  if (action === 'set') {
    const { tools, instructions } = ((await readJson(req)) ?? {}) as {
      tools?: ToolDefinition[];
      instructions?: string;
    };
    if (tools) state.tools = tools;
    if (instructions !== undefined) state.instructions = instructions;
    if (tools) state.handler.notify.toolsChanged();
    return reply({ ok: true });
  }
  if (action === 'reset') {
    Object.assign(state, { tools: FIRST_TOOLS[state.name] ?? [LOOKUP_V1], instructions: FIRST_INSTRUCTIONS });
    state.calls = [];
    return reply({ ok: true });
  }
  res.writeHead(404).end();
}

export async function startChangingTools(port: number): Promise<{ url: string; close(): Promise<void> }> {
  const states = new Map<string, PathState>();
  const stateOf = (name: string) => {
    let state = states.get(name);
    if (!state) states.set(name, (state = new PathState(name)));
    return state;
  };
  const server = http.createServer((req, res) => {
    const [, first, second, third] = (req.url ?? '/').split('?')[0]!.split('/');
    if (first === '__control' && second) return void control(stateOf(second), third ?? '', req, res);
    if (!first) return void res.writeHead(404).end();
    return void stateOf(first).node(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
