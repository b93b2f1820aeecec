// A reverse proxy in front of a real MCP server that can be told, mid-test,
// to misbehave in the ways a remote MCP server or the network really does.
// Runs in the vitest (Node) process; Worker code in workerd reaches it over
// 127.0.0.1. Control API: POST /__control/mode {"mode"}, GET /__control/state,
// POST /__control/reset, POST /__control/cut-get. See README.md for the modes.
import http from 'node:http';

export const FAULT_MODES = [
  'pass',
  'down',
  'http500',
  'malformed',
  'invalid-jsonrpc',
  'expire-session',
  'hang',
  'cut-stream',
  'echo-auth',
  'unknown-id',
  'duplicate',
  'redirect',
  'drop-once',
  'drop-twice',
  'drop-initialized',
  'drop-initialized-twice',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

// Per-connection headers must not be copied across the two hops: Node frames
// each side itself (e.g. re-chunks the SSE body), and a copied
// `transfer-encoding` would contradict that framing. `host` is the upstream's.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'host',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  return out;
}

// Request bodies are small JSON-RPC messages, so buffering them is harmless and
// lets `invalid-jsonrpc` look inside; only responses need to stream.
async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** True if the body holds a JSON-RPC request (has `method` and `id`), alone or in a batch. */
function carriesRequestWithId(body: Buffer): boolean {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages.some((m) => typeof m === 'object' && m !== null && 'method' in m && 'id' in m);
  } catch {
    return false;
  }
}

/**
 * Calls `onEvent` with each whole SSE event (up to and including its blank
 * line) of an upstream stream, so the proxy can add, repeat or inject events
 * at event boundaries rather than in the middle of one.
 */
function eachEvent(source: http.IncomingMessage, onEvent: (event: string) => void, onEnd: () => void): void {
  let buffer = '';
  source.setEncoding('utf8');
  source.on('data', (chunk: string) => {
    buffer += chunk.replace(/\r\n/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      onEvent(buffer.slice(0, end + 2));
      buffer = buffer.slice(end + 2);
    }
  });
  source.on('end', () => {
    if (buffer) onEvent(buffer);
    onEnd();
  });
}

/** True if an SSE event carries a JSON-RPC response (a result or an error for an id). */
function isResponseEvent(event: string): boolean {
  const data = event
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trimStart())
    .join('\n');
  try {
    const message = JSON.parse(data) as Record<string, unknown>;
    return 'id' in message && ('result' in message || 'error' in message);
  } catch {
    return false;
  }
}

/** JSON-RPC methods of a request body (one message or a batch). */
/**
 * The client capability extensions a request declares: in `initialize`'s
 * `capabilities` (2025-11-25) or in any request's
 * `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28).
 */
function extensionsOf(body: Buffer): string[] {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) => {
      const params = (m as { params?: { capabilities?: unknown; _meta?: Record<string, unknown> } } | null)?.params;
      const capabilities = (params?.capabilities ?? params?._meta?.['io.modelcontextprotocol/clientCapabilities']) as
        | { extensions?: object }
        | undefined;
      return Object.keys(capabilities?.extensions ?? {});
    });
  } catch {
    return [];
  }
}

function methodsOf(body: Buffer): string[] {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string'
        ? [(m as { method: string }).method]
        : [],
    );
  } catch {
    return [];
  }
}

const sseEvent = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

// With a content-length, the client sees a complete response that is wrong,
// not a truncated chunked one: the fault is in the content, not the framing.
function send(res: http.ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json', JSON.stringify(body));
}

export async function startFaultProxy({
  port,
  upstream,
}: {
  port: number;
  upstream: string;
}): Promise<{ close(): Promise<void> }> {
  const upstreamUrl = new URL(upstream);
  let mode: FaultMode = 'pass';
  let requests = 0;
  let deletes = 0;
  const sessions = new Set<string>();
  /** Sessions that `expire-session` made unknown (those seen before it was set). */
  let expired = new Set<string>();
  const hanging = new Set<http.ServerResponse>();
  /** Requests received per JSON-RPC method (e.g. how many `resources/list` a notification storm caused). */
  let methods: Record<string, number> = {};
  /** The newest requests that reached the body stage: their `X-Request-Id` header and JSON-RPC methods (the Worker's request ids). */
  let seen: Array<{ requestId: string | null; methods: string[]; extensions: string[] }> = [];
  /** Open standalone GET SSE streams to clients: where `notify` injects server notifications. */
  const notificationStreams = new Set<http.ServerResponse>();
  // No keep-alive upstream: a pooled socket the server has just timed out is a
  // spurious ECONNRESET we would then blame on the client under test.
  const agent = new http.Agent({ keepAlive: false });

  // Destroy rather than end: a 200 with an empty body would be a fault of its
  // own; a reset is what a client that hung on a dead server eventually sees.
  function releaseHanging(): void {
    for (const res of hanging) res.destroy();
    hanging.clear();
  }

  function setMode(next: FaultMode): void {
    if (next !== 'hang') releaseHanging();
    expired = next === 'expire-session' ? new Set(sessions) : new Set();
    mode = next;
  }

  async function control(req: http.IncomingMessage, res: http.ServerResponse, action: string): Promise<void> {
    if (req.method === 'GET' && action === 'state') {
      return sendJson(res, 200, {
        mode,
        requests,
        deletes,
        sessionsSeen: sessions.size,
        methods,
        notificationStreams: notificationStreams.size,
        seen,
      });
    }
    if (req.method === 'POST' && action === 'notify') {
      // A notification storm: `count` copies of one notification, written in one
      // burst into every open GET stream, as a misbehaving server would send them.
      const {
        method,
        params,
        count = 1,
      } = JSON.parse((await readBody(req)).toString('utf8')) as { method: string; params?: object; count?: number };
      const event = sseEvent({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
      for (const stream of notificationStreams) stream.write(event.repeat(count));
      return sendJson(res, 200, { streams: notificationStreams.size, sent: count });
    }
    if (req.method === 'POST' && action === 'cut-get') {
      // The network drops every open standalone GET stream (the server's side ends too: the upstream request goes with it).
      const cut = notificationStreams.size;
      for (const stream of notificationStreams) stream.destroy();
      notificationStreams.clear();
      return sendJson(res, 200, { cut });
    }
    if (req.method === 'POST' && action === 'reset') {
      setMode('pass');
      requests = 0;
      methods = {};
      seen = [];
      sessions.clear();
      res.writeHead(204).end();
      return;
    }
    if (req.method === 'POST' && action === 'mode') {
      let next: unknown;
      try {
        next = (JSON.parse((await readBody(req)).toString('utf8')) as { mode?: unknown }).mode;
      } catch {
        next = undefined;
      }
      if (!FAULT_MODES.includes(next as FaultMode)) {
        return sendJson(res, 400, { error: `mode must be one of ${FAULT_MODES.join(', ')}` });
      }
      setMode(next as FaultMode);
      res.writeHead(204).end();
      return;
    }
    sendJson(res, 404, { error: 'unknown control endpoint' });
  }

  function forward(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer, fault: FaultMode): void {
    const headers = endToEnd(req.headers);
    if (body.length > 0) headers['content-length'] = body.length;
    const upReq = http.request(
      {
        agent,
        hostname: upstreamUrl.hostname,
        port: upstreamUrl.port,
        method: req.method,
        path: upstreamUrl.pathname + upstreamUrl.search,
        headers,
      },
      (upRes) => {
        const sid = upRes.headers['mcp-session-id'];
        if (typeof sid === 'string') sessions.add(sid);
        res.writeHead(upRes.statusCode ?? 502, endToEnd(upRes.headers));
        // Node holds headers until the first body write; a standalone GET SSE
        // stream may not write for a long time, and the client waits on headers.
        res.flushHeaders();
        // `pipe` does not pass on an upstream that dies mid-stream; without this the
        // client would wait forever on a stream that can no longer produce events.
        upRes.on('close', () => {
          if (!upRes.complete) res.destroy();
        });
        const isSse = String(upRes.headers['content-type'] ?? '').includes('text/event-stream');
        if (isSse && req.method === 'GET') {
          // Forwarded event by event, so that `notify` never lands inside an upstream event.
          notificationStreams.add(res);
          res.on('close', () => notificationStreams.delete(res));
          eachEvent(
            upRes,
            (event) => res.write(event),
            () => res.end(),
          );
          return;
        }
        if (isSse && req.method === 'POST' && fault === 'unknown-id') {
          // A response to a request we never sent, ahead of the real one.
          res.write(
            sseEvent({
              jsonrpc: '2.0',
              id: 987_654_321,
              result: { contents: [{ uri: 'stray://answer', text: 'for nobody' }] },
            }),
          );
          upRes.pipe(res);
          return;
        }
        if (isSse && req.method === 'POST' && fault === 'duplicate') {
          // Every response twice; the copy carries a different result, which must not win.
          eachEvent(
            upRes,
            (event) => {
              res.write(event);
              if (isResponseEvent(event)) res.write(event.replace(/"result":\{/, '"result":{"duplicate":true,'));
            },
            () => res.end(),
          );
          return;
        }
        if (fault === 'cut-stream' && req.method === 'POST' && isSse) {
          let budget = 20;
          upRes.on('data', (chunk: Buffer) => {
            if (budget <= 0) return;
            const part = chunk.subarray(0, budget);
            budget -= part.length;
            // Cut only once the bytes are on the wire, so the client really sees a
            // started-then-broken stream rather than a plain connection failure.
            res.write(part, () => {
              if (budget <= 0) {
                res.destroy();
                upReq.destroy();
              }
            });
          });
          upRes.on('end', () => res.end());
          return;
        }
        upRes.pipe(res);
      },
    );
    // Without this a client giving up on an SSE stream would leave the upstream
    // stream (and the server's session stream slot) open forever.
    res.on('close', () => upReq.destroy());
    upReq.on('error', (err) => {
      if (res.headersSent) res.destroy();
      else send(res, 502, 'text/plain', `fault proxy: upstream error: ${err.message}`);
    });
    upReq.end(body);
  }

  async function proxy(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    requests++;
    if (req.method === 'DELETE') deletes++;
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') sessions.add(sid);
    switch (mode) {
      case 'down':
        req.socket.destroy();
        return;
      case 'drop-once':
      case 'drop-twice':
        // A pooled keep-alive connection the server had just closed as idle: the next request's socket goes, then all pass
        // (`drop-twice`: the next two, as when the next pooled connection was just as stale).
        mode = mode === 'drop-twice' ? 'drop-once' : 'pass';
        req.socket.destroy();
        return;
      case 'echo-auth':
        // A careless server that echoes the credential it was sent in its error.
        send(res, 401, 'text/plain', `invalid credentials: ${String(req.headers.authorization)}`);
        return;
      case 'http500':
        send(res, 500, 'text/plain', 'upstream exploded');
        return;
      case 'redirect':
        // A server that moved somewhere else (the transport follows no cross-origin redirect).
        res.writeHead(307, { location: 'https://internal-mcp.example.net/private/path/mcp' });
        res.end();
        return;
      case 'malformed':
        send(res, 200, 'application/json', '{"jsonrpc": "2.0", "id": ');
        return;
      case 'hang':
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      case 'expire-session':
        // Like a server that restarted: every session that existed when the
        // mode was set is gone (404 for good); sessions initialised since work.
        if (typeof sid === 'string' && expired.has(sid)) {
          sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
          return;
        }
        break;
    }
    const body = await readBody(req);
    for (const method of methodsOf(body)) methods[method] = (methods[method] ?? 0) + 1;
    const requestId = req.headers['x-request-id'];
    seen = [
      ...seen.slice(-199),
      {
        requestId: typeof requestId === 'string' ? requestId : null,
        methods: methodsOf(body),
        extensions: extensionsOf(body),
      },
    ];
    if (
      (mode === 'drop-initialized' || mode === 'drop-initialized-twice') &&
      methodsOf(body).includes('notifications/initialized')
    ) {
      // The session exists (initialize was answered); the notification meets a pooled connection the server had closed.
      mode = mode === 'drop-initialized-twice' ? 'drop-initialized' : 'pass';
      req.socket.destroy();
      return;
    }
    if (mode === 'invalid-jsonrpc' && req.method === 'POST' && carriesRequestWithId(body)) {
      sendJson(res, 200, { hello: 'world' });
      return;
    }
    forward(req, res, body, mode);
  }

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy').pathname;
    const handled =
      path === '/mcp'
        ? proxy(req, res)
        : path.startsWith('/__control/')
          ? control(req, res, path.slice('/__control/'.length))
          : Promise.resolve(sendJson(res, 404, { error: 'not found' }));
    handled.catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    async close() {
      releaseHanging();
      // close() alone waits for open SSE streams, which never end by themselves.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      agent.destroy();
    },
  };
}
