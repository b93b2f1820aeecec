import { runInDurableObject } from 'cloudflare:test';
import { exports, tracing } from 'cloudflare:workers';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { configureLog, logEvent, setLogLevel } from '../src/observability/log';
import { ACME_ALICE, api, catalog, conversationStub, createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { callTools, runScriptedTurn, say, scriptedModel, sseChunks, userMessage } from './helpers/turns';

/*
 * What an operator watching a deployment relies on (docs/DEPLOY.md,
 * "Watching a deployment"): one JSON object per event on the console, with
 * the request id from the Worker through the conversation's Durable Object
 * to the MCP servers; spans for model calls and tool calls; no secret in
 * any line. The Worker and its Durable Objects share one isolate in these
 * tests, so one console spy sees them all.
 */

type Line = Record<string, unknown>;

/** Every console call while a test runs (silenced): the structured lines, and everything as text. */
function captureConsole() {
  const calls: unknown[][] = [];
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void calls.push(args));
  }
  return {
    /** Every call's arguments, as written. */
    calls: () => calls,
    lines: (event?: string): Line[] =>
      calls
        .filter((args) => args.length === 1 && typeof args[0] === 'object' && args[0] !== null && 'event' in args[0])
        .map((args) => args[0] as Line)
        .filter((line) => event === undefined || line.event === event),
    text: () =>
      calls
        .map((args) =>
          args
            .map((a) =>
              a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a),
            )
            .join(' '),
        )
        .join('\n'),
  };
}

interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
  ended: boolean;
}

/** Every span our code opens (`tracing` from cloudflare:workers, which workerd here implements without exporting). */
function recordSpans(): RecordedSpan[] {
  const spans: RecordedSpan[] = [];
  const open = (name: string) => {
    const recorded: RecordedSpan = { name, attributes: {}, ended: false };
    spans.push(recorded);
    const span = {
      isTraced: true,
      setAttribute: (key: string, value: unknown) => ((recorded.attributes[key] = value), span),
      setAttributes: (attributes: Record<string, unknown>) => (Object.assign(recorded.attributes, attributes), span),
      end: () => void (recorded.ended = true),
    };
    return span;
  };
  vi.spyOn(tracing, 'startSpan').mockImplementation(open as never);
  vi.spyOn(tracing, 'enterSpan').mockImplementation(((
    name: string,
    callback: (span: unknown, ...args: unknown[]) => unknown,
    ...args: unknown[]
  ) => {
    const span = open(name);
    const result = callback(span, ...args);
    return result instanceof Promise ? result.finally(() => span.end()) : (span.end(), result);
  }) as never);
  return spans;
}

const control = inject('faultControlUrl');
const proxySeen = async () =>
  (await (await fetch(`${control}/state`)).json<{ seen: Array<{ requestId: string | null; methods: string[] }> }>())
    .seen;
const setMode = (mode: string) =>
  fetch(`${control}/mode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode }),
  });

afterEach(async () => {
  vi.restoreAllMocks();
  await setMode('pass');
});

describe('log lines', () => {
  it('one http.request line per request: the route pattern, never the path or its query', async () => {
    const logs = captureConsole();
    const requestId = `obs-${crypto.randomUUID()}`;
    const id = await createConversation();
    const response = await api(`/v1/conversations/${id}/messages?limit=5&token=leak-me`, {
      headers: { 'x-request-id': requestId },
    });
    expect(response.headers.get('x-request-id')).toBe(requestId);

    const [line, ...others] = logs.lines('http.request').filter((l) => l.requestId === requestId);
    expect(others).toEqual([]);
    expect(line).toEqual({
      event: 'http.request',
      requestId,
      tenant: 'acme',
      method: 'GET',
      route: '/v1/conversations/:id/messages',
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(logs.text()).not.toContain('leak-me');
    expect(logs.text()).not.toContain(`/v1/conversations/${id}`); // the raw path is not logged
  });

  it("the caller's request id reaches the conversation's turn lines and every MCP server it calls", async () => {
    const logs = captureConsole();
    const id = await createConversation();
    const requestId = `obs-${crypto.randomUUID()}`;
    // The first use of the conversation: it connects to every server under this request.
    const response = await postJson(
      `/v1/conversations/${id}/messages`,
      { text: 'What do the team guidelines say about estimates?' },
      { ...ACME_ALICE, 'x-request-id': requestId },
    );
    expect(response.status).toBe(200);
    await sseChunks(response);

    const turn = await waitFor(
      () => logs.lines('turn.end').find((l) => l.requestId === requestId),
      'the turn.end line',
    );
    expect(turn).toMatchObject({
      tenant: 'acme',
      conversation: id,
      kind: 'message',
      model: 'offline',
      outcome: 'ok',
      finishReason: 'stop',
    });
    expect(turn.inputTokens).toEqual(expect.any(Number));
    expect(turn.durationMs).toEqual(expect.any(Number));
    expect(turn).not.toHaveProperty('user'); // end users are personal data: not logged

    const mine = logs.lines().filter((l) => l.requestId === requestId);
    const events = new Set(mine.map((l) => l.event));
    for (const event of ['http.request', 'mcp.connect', 'mcp.request', 'model.call', 'tool.call', 'turn.end'])
      expect(events).toContain(event);
    expect(mine.find((l) => l.event === 'mcp.request' && l.method === 'resources/read')).toMatchObject({
      conversation: id,
      outcome: 'ok',
    });
    expect(mine.find((l) => l.event === 'model.call')).toMatchObject({
      model: 'offline',
      outcome: 'ok',
      inputTokens: expect.any(Number),
    });
    expect(mine.find((l) => l.event === 'tool.call')).toMatchObject({ tool: 'read_resource', outcome: 'ok' });

    // A server elsewhere got it as X-Request-Id (the fault proxy records what it received)…
    const seen = (await proxySeen()).filter((r) => r.requestId === requestId);
    expect(seen.flatMap((r) => r.methods)).toContain('initialize');
    // …and so did the demo server in this Worker (reached through SELF): its own request lines carry it.
    expect(mine.some((l) => l.event === 'http.request' && l.route === '/demo/mcp')).toBe(true);
  });

  it('a turn over the WebSocket gets a request id of its own', async () => {
    const logs = captureConsole();
    const id = await createConversation();
    const upgradeId = `obs-${crypto.randomUUID()}`;
    const upgrade = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', 'x-request-id': upgradeId, ...ACME_ALICE },
    });
    const socket = upgrade.webSocket!;
    socket.accept();
    const body = JSON.stringify({
      messages: [
        {
          id: crypto.randomUUID(),
          role: 'user',
          parts: [{ type: 'text', text: 'What do the guidelines say about owners?' }],
        },
      ],
    });
    socket.send(JSON.stringify({ type: 'cf_agent_use_chat_request', id: 'ws-1', init: { method: 'POST', body } }));
    const turn = await waitFor(
      () => logs.lines('turn.end').find((l) => l.conversation === id),
      'the turn.end line',
      10_000,
    );
    socket.close();
    expect(turn.requestId).toEqual(expect.stringMatching(/^[0-9a-f-]{36}$/));
    expect(turn.requestId).not.toBe(upgradeId);
    expect(logs.lines('mcp.request').filter((l) => l.requestId === turn.requestId).length).toBeGreaterThan(0);
  });

  it('a turn asked of a conversation that does not exist (deleted meanwhile) is refused with 404 and has its turn.end line', async () => {
    const logs = captureConsole();
    await runInDurableObject(await conversationStub(crypto.randomUUID()), async (instance) => {
      await expect(
        instance.parts.turns.start({ kind: 'message', newMessages: [userMessage('hello')] }),
      ).rejects.toMatchObject({ status: 404, code: 'not_found' });
    });
    expect(logs.lines('turn.end')).toEqual([
      expect.objectContaining({ kind: 'message', error: expect.stringContaining('not found') }),
    ]);
  });

  it('LOG_LEVEL=warn: info lines are not written, warnings and errors are', () => {
    const logs = captureConsole();
    setLogLevel('warn');
    try {
      logEvent('turn.end', { outcome: 'ok' });
      logEvent('mcp.connect', { outcome: 'error' }, 'warn');
      logEvent('http.error', { outcome: 'error' }, 'error');
    } finally {
      setLogLevel('info');
    }
    logEvent('turn.end', { outcome: 'ok' });
    expect(logs.lines().map((l) => l.event)).toEqual(['mcp.connect', 'http.error', 'turn.end']);
  });

  // `npm start` printed each event as a 6–12-line object (7,642 terminal lines for the README's tour).
  it('LOG_FORMAT=line (npm start): one line of text per event — a request, an error with a stack — no object', async () => {
    // The Worker sets the format from its config at its first request, a conversation at its start (the suite's: json):
    // one request first, then a route that starts no conversation.
    await api('/health', {}, {});
    const logs = captureConsole();
    configureLog({ LOG_LEVEL: 'info', LOG_FORMAT: 'line' });
    try {
      expect((await api('/v1/servers', {}, ACME_ALICE)).status).toBe(200);
      logEvent(
        'http.error',
        { outcome: 'error', error: 'it broke', stack: 'Error: it broke\n    at here (x.ts:1:1)' },
        'error',
      );
    } finally {
      configureLog({ LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    }
    const written = logs.calls();
    expect(written.length).toBeGreaterThan(1);
    for (const args of written) {
      expect(args).toHaveLength(1);
      expect(typeof args[0]).toBe('string');
      expect(args[0]).not.toContain('\n');
    }
    const lines = written.map((args) => args[0] as string);
    expect(lines).toContainEqual(
      expect.stringMatching(/^GET \/v1\/servers 200 \d+ms requestId=[0-9a-f-]{36} tenant=acme$/),
    );
    expect(lines).toContain(
      'ERROR http.error outcome=error error="it broke" stack="Error: it broke\\n    at here (x.ts:1:1)"',
    );
    expect(logs.lines()).toEqual([]); // no object
  });

  it('no secret in any line: a server that echoes its bearer token, a key-named field, a URL with a query', async () => {
    const logs = captureConsole();
    const id = await createConversation();
    await setMode('echo-auth');
    await catalog(id); // every request to "faulty" fails with our token in its body
    const failed = await postJson(`/v1/conversations/${id}/messages`, { text: 'What do the guidelines say?' });
    expect(failed.status).toBe(502); // faulty's pinned resource is required
    // The guard itself: key-named fields, credentials in text, query strings.
    logEvent('http.error', {
      authorization: 'Bearer abc.def.ghi',
      apiKey: 'k-123456789',
      accessToken: 'opaque-value-1',
      error:
        'fetch https://user:pw@api.example.com/v1/x?code=opaque-value-2#frag failed: Bearer opaque-value-3 sk-abcdefghijklmnop',
    });

    const lines = logs.lines();
    expect(lines.some((l) => l.event === 'turn.end' && l.outcome === 'pinned_resource_unavailable')).toBe(true);
    expect(lines.some((l) => l.event === 'mcp.connect' && l.server === 'faulty' && l.outcome !== 'ok')).toBe(true);
    const text = logs.text();
    const secrets = [
      'tok_live_9f8e7d6c5b4a3210', // FAULTY_TOKEN, which the server echoed
      'test-key-acme', // the API key the requests were sent with
      'acme-test-signing-secret-0123456789', // ACME_TOKEN_SECRET
      'dGVzdC1vYXV0aC10b2tlbi1rZXk', // OAUTH_TOKEN_KEYS
      'abc.def.ghi',
      'k-123456789',
      'opaque-value',
      'user:pw',
      'sk-abcdefghijklmnop',
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).toContain('https://api.example.com/v1/x failed'); // the URL stays, without userinfo, query or fragment
  });
});

describe('spans', () => {
  it('a model call and a tool call each get a span with model, tokens, finish reason, tool, server and outcome', async () => {
    const id = await createConversation();
    await catalog(id); // connected before the spans are recorded
    const spans = recordSpans();
    captureConsole();
    const model = scriptedModel((_call, index) =>
      index === 0
        ? callTools(
            ['read_resource', { uri: 'task://guidelines', server: 'demo' }],
            ['demo__complete_task', { id: 999_999 }],
          )
        : say('Done.'),
    );
    await runScriptedTurn(id, 'Read the guidelines.', model);

    const calls = spans.filter((s) => s.name === 'model.call');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.attributes).toMatchObject({
      'model.model': 'mock-model-id',
      'model.finishReason': 'tool-calls',
      'model.inputTokens': 10,
      'model.outputTokens': 5,
      'model.outcome': 'ok',
    });
    expect(calls[1]!.attributes).toMatchObject({ 'model.finishReason': 'stop', 'model.outcome': 'ok' });
    expect(calls.every((s) => s.ended)).toBe(true);

    const tools = spans.filter((s) => s.name === 'tool.call');
    expect(tools.map((s) => s.attributes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ 'tool.tool': 'read_resource', 'tool.server': 'demo', outcome: 'ok' }),
        // The demo server answers an unknown task with an error result (isError): the call failed.
        expect.objectContaining({ 'tool.tool': 'demo__complete_task', 'tool.server': 'demo', outcome: 'error' }),
      ]),
    );
    // The MCP request of the tool call: a span of its own, naming server and method.
    expect(
      spans.some(
        (s) =>
          s.name === 'mcp.request' &&
          s.attributes['mcp.method'] === 'tools/call' &&
          s.attributes['mcp.server'] === 'demo',
      ),
    ).toBe(true);
    // Names and numbers only: no prompt text, no tool input or output.
    expect(JSON.stringify(spans)).not.toMatch(/guidelines|Read the|Done\./);
  });
});
