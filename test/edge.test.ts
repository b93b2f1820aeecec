import { runInDurableObject } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { sign } from 'hono/jwt';
import { describe, expect, inject, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/json-depth';
import { upstreamError } from '../src/mcp/connection/errors';
import { api, conversationStub, createConversation, mcpSessionsOf, read, textOf } from './helpers/api';

const errorOf = async (response: Response) =>
  (await response.json<{ error: { code: string; message: string } }>()).error;
const post = (path: string, body: string) =>
  api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('JSON bodies: nesting is bounded at the edge', () => {
  it('100,000 levels inside prompt arguments are a 400 naming the limit, not a 500 from the Durable Object', async () => {
    const id = await createConversation();
    const levels = 100_000;
    const response = await post(
      `/v1/conversations/${id}/prompts/run?preview=1`,
      `{"server":"demo","name":"plan_day","arguments":{"hours":${'['.repeat(levels)}${']'.repeat(levels)}}}`,
    );
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('invalid_json');
    expect(error.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('the limit is generous: brackets inside strings do not count, and real nesting up to it passes the parser', async () => {
    const id = await createConversation();
    // Inside a string: not nesting.
    const inString = await post(
      `/v1/conversations/${id}/prompts/run?preview=1`,
      JSON.stringify({ server: 'demo', name: 'plan_day', arguments: { hours: '[[[['.repeat(1000) } }),
    );
    expect(inString.status).not.toBe(500);
    expect((await errorOf(inString)).message).not.toContain('deeper than');
    // At the limit (the body's own two levels included): parsed, then refused by the schema, not for depth.
    const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const atLimit = await post(
      `/v1/conversations/${id}/prompts/run?preview=1`,
      `{"server":"demo","name":"plan_day","arguments":{"hours":${deep(MAX_JSON_DEPTH - 2)}}}`,
    );
    expect((await errorOf(atLimit)).message).not.toContain('deeper than');
    const past = await post(
      `/v1/conversations/${id}/prompts/run?preview=1`,
      `{"server":"demo","name":"plan_day","arguments":{"hours":${deep(MAX_JSON_DEPTH - 1)}}}`,
    );
    expect(past.status).toBe(400);
    expect((await errorOf(past)).message).toContain('deeper than');
  });
});

describe('an Upgrade header matters only on the WebSocket route', () => {
  const token = () =>
    sign(
      { tid: 'acme', sub: 'carol', aud: 'mcp-ondemand', exp: Math.floor(Date.now() / 1000) + 600 },
      'acme-test-signing-secret-0123456789',
      'HS256',
    );
  const hasSecurityHeaders = (response: Response) => {
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  };

  it('elsewhere, a subprotocol token is not a credential and ?token= is refused; answers keep their security headers', async () => {
    const t = await token();
    const viaSubprotocol = await exports.default.fetch('http://localhost/v1/conversations', {
      method: 'POST',
      headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': `mcp-ondemand, bearer.${t}` },
    });
    expect(viaSubprotocol.status).toBe(401);
    hasSecurityHeaders(viaSubprotocol);
    const viaQuery = await exports.default.fetch(`http://localhost/v1/servers?token=${t}`, {
      headers: { Upgrade: 'websocket' },
    });
    expect(viaQuery.status).toBe(401);
    hasSecurityHeaders(viaQuery);
    // With a real credential, the Upgrade header is just ignored.
    const servers = await api('/v1/servers', { headers: { Upgrade: 'websocket' } });
    expect(servers.status).toBe(200);
    hasSecurityHeaders(servers);
  });

  it('on the WebSocket route the subprotocol token works, ?token= is refused, and a refusal carries the headers', async () => {
    const t = await token();
    const created = await api('/v1/conversations', { method: 'POST' }, { authorization: `Bearer ${t}` });
    const { id } = await created.json<{ id: string }>();
    const ok = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': `mcp-ondemand, bearer.${t}` },
    });
    expect(ok.status).toBe(101);
    ok.webSocket?.accept();
    ok.webSocket?.close();
    const viaQuery = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws?token=${t}`, {
      headers: { Upgrade: 'websocket' },
    });
    expect(viaQuery.status).toBe(401);
    hasSecurityHeaders(viaQuery);
    const unknown = await exports.default.fetch(`http://localhost/v1/conversations/${crypto.randomUUID()}/ws`, {
      headers: { Upgrade: 'websocket', authorization: `Bearer ${t}` },
    });
    expect(unknown.status).toBe(404);
    hasSecurityHeaders(unknown);
  });
});

describe('security headers outside /v1', () => {
  const hasSecurityHeaders = (response: Response) => {
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBeTruthy();
  };

  it('an unknown path answers its JSON 404 with them', async () => {
    const response = await exports.default.fetch('http://localhost/nowhere');
    expect(response.status).toBe(404);
    hasSecurityHeaders(response);
    const underDemo = await exports.default.fetch('http://localhost/demo/other');
    expect(underDemo.status).toBe(404);
    hasSecurityHeaders(underDemo);
  });

  it('the demo MCP server answers with them, and still works as an MCP server', async () => {
    const response = await exports.default.fetch('http://localhost/demo/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(response.status).toBe(200);
    hasSecurityHeaders(response);
    expect(await response.text()).toContain('acme-tasks-demo');
  });
});

describe('where the servers live is not shown to browsers', () => {
  const control = inject('faultControlUrl');
  const setMode = async (mode: string) => {
    const response = await fetch(`${control}/mode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode }),
    });
    if (response.status !== 204) throw new Error(`could not set fault mode ${mode}: ${response.status}`);
  };
  const browser = async () => ({
    authorization: `Bearer ${await sign({ tid: 'acme', sub: 'carol', aud: 'mcp-ondemand', exp: Math.floor(Date.now() / 1000) + 600 }, 'acme-test-signing-secret-0123456789', 'HS256')}`,
  });

  it('/v1/servers gives a browser token ids and status, no url; an API key (the tenant backend) still sees URLs', async () => {
    const asBrowser = await (await api('/v1/servers', {}, await browser())).json<{
      servers: Array<Record<string, unknown>>;
    }>();
    expect(asBrowser.servers.map((s) => s.id)).toContain('demo');
    for (const server of asBrowser.servers) expect(server).not.toHaveProperty('url');
    expect(JSON.stringify(asBrowser)).not.toContain('127.0.0.1');
    const asBackend = await (await api('/v1/servers')).json<{ servers: Array<{ id: string; url?: string }> }>();
    expect(asBackend.servers.find((s) => s.id === 'demo')?.url).toBe('/demo/mcp');
  });

  it('a redirect error names the server, not where it redirects to', async () => {
    const id = await createConversation(await browser());
    await setMode('redirect');
    try {
      const response = await api(
        `/v1/conversations/${id}/resources/read`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ server: 'faulty', uri: 'demo://resource/dynamic/text/901' }),
        },
        await browser(),
      );
      expect(response.status).toBe(502);
      const { message } = (await response.json<{ error: { message: string } }>()).error;
      expect(message).toContain('MCP server "faulty"');
      expect(message).not.toContain('internal-mcp.example.net');
      expect(message).not.toContain('127.0.0.1');
      const servers = await (await api(`/v1/conversations/${id}/catalog`, {}, await browser())).text();
      expect(servers).not.toContain('internal-mcp.example.net');
    } finally {
      await setMode('pass');
    }
  });

  it("the SSE transport's redirect refusal (an Error naming the target) reaches no one with the URL in it", () => {
    const sdkText =
      "Error POSTing to endpoint (HTTP 307): Redirect to https://internal-mcp.example.net/private/path/mcp not followed; use that URL as the endpoint if it is the intended server (redirectPolicy: 'same-origin')";
    const error = upstreamError('legacy', new Error(sdkText), true);
    expect(error.message).toContain(
      'MCP server "legacy" could not be connected to: Error POSTing to endpoint (HTTP 307): Redirect to [URL] not followed',
    );
    expect(error.message).not.toContain('internal-mcp.example.net');
  });
});

describe('a resource_link binds its URI only where no other server claims it', () => {
  it("one server's link cannot take over reads of another server's URI; an unclaimed URI still follows the link", async () => {
    const id = await createConversation();
    await read(id, { server: 'demo', uri: 'task://guidelines' }); // sessions are up
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const sessions = mcpSessionsOf(instance)!;
      // As if everything's tool had returned resource_link task://guidelines (a URI demo lists).
      sessions.registerResourceLink('everything', 'task://guidelines');
      sessions.registerResourceLink('demo', 'unclaimed://only-linked');
    });
    const taken = await read(id, { uri: 'task://guidelines' });
    expect(taken.server).toBe('demo');
    expect(textOf(taken)).toContain('Team guidelines');
    await runInDurableObject(await conversationStub(id), async (instance) => {
      expect(await mcpSessionsOf(instance)!.resolveServer('unclaimed://only-linked')).toBe('demo');
    });
  });
});
