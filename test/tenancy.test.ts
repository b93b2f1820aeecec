import { createExecutionContext } from 'cloudflare:test';
import { env, exports } from 'cloudflare:workers';
import { sign } from 'hono/jwt';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { createApp } from '../src/http/app';
import { ACME_ALICE, api, conversationStub, createConversation, postJson, read } from './helpers/api';
import { settle } from './helpers/conversation';

const ACME_BOB = { ...ACME_ALICE, 'x-end-user': 'bob' };
const GLOBEX = { authorization: 'Bearer test-key-globex', 'x-end-user': 'alice' };
const now = () => Math.floor(Date.now() / 1000);
const token = (claims: Record<string, unknown>, secret = 'acme-test-signing-secret-0123456789') =>
  sign({ tid: 'acme', sub: 'carol', aud: 'mcp-ondemand', exp: now() + 600, ...claims }, secret, 'HS256');
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const errorOf = async (response: Response) =>
  (await response.json<{ error: { code: string; message: string } }>()).error;

describe('authentication', () => {
  it('refuses missing or unknown credentials with 401 JSON', async () => {
    const none = await api('/v1/conversations', { method: 'POST' }, {});
    expect(none.status).toBe(401);
    expect(await errorOf(none)).toMatchObject({ code: 'unauthorized' });
    expect((await api('/v1/servers', {}, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await api('/health', {}, {})).status).toBe(200); // liveness needs no credentials
  });

  it('accepts a browser token; refuses expired, tampered, wrong-audience and wrong-tenant ones', async () => {
    const good = await api('/v1/conversations', { method: 'POST' }, bearer(await token({})));
    expect(good.status).toBe(201);

    const expired = await api('/v1/conversations', { method: 'POST' }, bearer(await token({ exp: now() - 10 })));
    expect(expired.status).toBe(401);
    expect((await errorOf(expired)).code).toBe('token_expired');

    const [h, , s] = (await token({})).split('.');
    const forgedPayload = btoa(JSON.stringify({ tid: 'acme', sub: 'mallory', aud: 'mcp-ondemand', exp: now() + 600 }))
      .replace(/=+$/, '')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(`${h}.${forgedPayload}.${s}`))).status).toBe(401);

    expect(
      (await api('/v1/conversations', { method: 'POST' }, bearer(await token({ aud: 'someone-else' })))).status,
    ).toBe(401);
    // Signed with acme's secret but claiming globex: globex's secret does not verify it.
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(await token({ tid: 'globex' })))).status).toBe(
      401,
    );
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(await token({ tid: 'initech' })))).status).toBe(
      401,
    );
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(await token({ sub: '' })))).status).toBe(401);
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(await token({ sub: 'service' })))).status).toBe(
      401,
    ); // reserved for API-key callers
    expect((await api('/v1/conversations', { method: 'POST' }, bearer('a.bnVsbA.b'))).status).toBe(401); // a null payload
  });

  it('refuses a token whose signature is the same bytes written another way (base64url padding bits set)', async () => {
    const [h, p, s] = (await token({})).split('.');
    // An HS256 signature is 32 bytes: 43 base64url characters, the last carrying 2 bits and 4 unused ones. Setting an
    // unused bit gives another token that decodes to the same signature (hono 4.13.19 accepted it; 4.13.23 does not).
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(s!.at(-1)!);
    const twin = `${s!.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(twin).not.toBe(s);
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(`${h}.${p}.${s}`))).status).toBe(201);
    const malleable = await api('/v1/conversations', { method: 'POST' }, bearer(`${h}.${p}.${twin}`));
    expect(malleable.status).toBe(401);
  });

  it('every bad token gets the same answer: the signature is checked before the expiry', async () => {
    const b64 = (value: unknown) =>
      btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
    const header = b64({ alg: 'HS256', typ: 'JWT' });
    const unsigned = (claims: Record<string, unknown>) =>
      `${header}.${b64({ sub: 'carol', aud: 'mcp-ondemand', ...claims })}.${b64('not-a-signature')}`;
    const answers: Array<{ status: number; error: unknown }> = [];
    for (const t of [
      unsigned({ tid: 'acme', exp: now() - 60 }),
      unsigned({ tid: 'initech', exp: now() - 60 }),
      unsigned({ tid: 'acme', exp: now() + 600 }),
      await token({ exp: now() - 60 }, 'some-other-secret-0123456789'),
    ]) {
      const response = await api('/v1/conversations', { method: 'POST' }, bearer(t));
      answers.push({ status: response.status, error: await errorOf(response) });
    }
    expect(answers.every((a) => JSON.stringify(a) === JSON.stringify(answers[0]))).toBe(true);
    expect(answers[0]).toEqual({ status: 401, error: { code: 'unauthorized', message: 'Invalid token' } });
    // Only a validly signed, expired token is told so.
    const expired = await api('/v1/conversations', { method: 'POST' }, bearer(await token({ exp: now() - 60 })));
    expect((await errorOf(expired)).code).toBe('token_expired');
  });

  it('a WebSocket upgrade authenticates with the token as a subprotocol, never in the URL', async () => {
    const t = await token({ sub: 'dave' });
    const created = await api('/v1/conversations', { method: 'POST' }, bearer(t));
    const { id } = await created.json<{ id: string }>();
    const ok = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket', 'Sec-WebSocket-Protocol': `mcp-ondemand, bearer.${t}` },
    });
    expect(ok.status).toBe(101);
    // The browser needs one protocol chosen: ours, never the token echoed back.
    expect(ok.headers.get('sec-websocket-protocol')).toBe('mcp-ondemand');
    ok.webSocket?.accept();
    ok.webSocket?.close();
    const inUrl = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws?token=${t}`, {
      headers: { Upgrade: 'websocket' },
    });
    expect(inUrl.status).toBe(401);
    expect((await inUrl.json<{ error: { message: string } }>()).error.message).toContain('not accepted');
    const refused = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: { Upgrade: 'websocket' },
    });
    expect(refused.status).toBe(401);
    // Someone else's token names no conversation of theirs: 404.
    const other = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
      headers: {
        Upgrade: 'websocket',
        'Sec-WebSocket-Protocol': `mcp-ondemand, bearer.${await token({ sub: 'erin' })}`,
      },
    });
    expect(other.status).toBe(404);
  });
});

describe('ownership', () => {
  it('another user of the same tenant, or another tenant, gets 404 everywhere', async () => {
    const id = await createConversation(ACME_ALICE);
    for (const as of [ACME_BOB, GLOBEX]) {
      expect((await api(`/v1/conversations/${id}`, {}, as)).status).toBe(404);
      expect((await api(`/v1/conversations/${id}/catalog`, {}, as)).status).toBe(404);
      expect(
        (await postJson(`/v1/conversations/${id}/resources/read`, { server: 'demo', uri: 'task://guidelines' }, as))
          .status,
      ).toBe(404);
      expect((await postJson(`/v1/conversations/${id}/messages`, { text: 'hi' }, as)).status).toBe(404);
      expect(
        (await postJson(`/v1/conversations/${id}/approvals`, { toolCallId: 'x', approved: true }, as)).status,
      ).toBe(404);
      expect(
        (
          await postJson(
            `/v1/conversations/${id}/prompts/run?preview=1`,
            { server: 'demo', name: 'plan_day', arguments: { hours: '2' } },
            as,
          )
        ).status,
      ).toBe(404);
      expect((await api(`/v1/conversations/${id}`, { method: 'DELETE' }, as)).status).toBe(404);
      const ws = await exports.default.fetch(`http://localhost/v1/conversations/${id}/ws`, {
        headers: { Upgrade: 'websocket', ...as },
      });
      expect(ws.status).toBe(404);
    }
    expect((await api(`/v1/conversations/${id}`)).status).toBe(200); // still there, still alice's
  });
});

describe('cache isolation', () => {
  it('two tenants reading the same URI from different server configs never see each other’s content', async () => {
    const acme = await createConversation(ACME_ALICE);
    const globex = await createConversation(GLOBEX);
    const acmeRead = await read(acme, { server: 'minimal', uri: 'mini://public-note' });
    await settle(await conversationStub(acme)); // acme's copy is in KV now
    const globexRead = await (
      await postJson(
        `/v1/conversations/${globex}/resources/read`,
        { server: 'minimal', uri: 'mini://public-note' },
        GLOBEX,
      )
    ).json<{
      cache: string;
      contents: Array<{ text: string }>;
    }>();
    expect((acmeRead.contents[0] as { text: string }).text).toBe('shared by everyone.');
    expect(globexRead.contents[0]!.text).toBe('globex-only text.');
    expect(globexRead.cache).toBe('miss');
  });

  it('each tenant sees its own servers', async () => {
    const servers = async (as: Record<string, string>) =>
      (await (await api('/v1/servers', {}, as)).json<{ servers: Array<{ id: string }> }>()).servers.map((s) => s.id);
    expect(await servers(GLOBEX)).toEqual(['demo', 'minimal']);
    expect(await servers(ACME_ALICE)).toContain('everything');
  });
});

describe('without TENANTS', () => {
  it('runs as one open tenant (local development): no credentials needed', async () => {
    const app = createApp();
    const open = { ...env, TENANTS: '', AUTH_DISABLED: 'true' } as Env;
    const response = await app.fetch(
      new Request('http://localhost/v1/conversations', { method: 'POST' }),
      open,
      createExecutionContext(),
    );
    expect(response.status).toBe(201);
  });

  it('is refused unless AUTH_DISABLED=true says so: a deploy that forgot TENANTS serves no one', async () => {
    const app = createApp();
    const forgot = { ...env, TENANTS: '' } as Env;
    const response = await app.fetch(
      new Request('http://localhost/v1/conversations', { method: 'POST' }),
      forgot,
      createExecutionContext(),
    );
    expect(response.status).toBe(500);
    // The caller is told nothing of the config (the log line names it: the test below).
    expect(await errorOf(response)).toMatchObject({ code: 'internal_error' });
  });

  // Was: a caller with no credentials read the config's details (which field, which value was wrong).
  it('an invalid config answers 500 internal_error to a caller without credentials; the log line says why', async () => {
    const { vi } = await import('vitest');
    const lines: Array<Record<string, unknown>> = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(line as never));
    const broken = { ...env, TENANTS: '[{"id":"acme","apiKeySha256":["nothex"]}]' } as Env;
    let response: Response;
    try {
      response = await createApp().fetch(new Request('http://localhost/v1/servers'), broken, createExecutionContext());
    } finally {
      spy.mockRestore();
    }
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error.code).toBe('internal_error');
    expect(error.message).toMatch(
      /^Internal error \(request id \S+\): the service is misconfigured; its logs name the cause$/,
    );
    expect(error.message).not.toMatch(/TENANTS|apiKeySha256|acme/);
    expect(lines).toContainEqual(
      expect.objectContaining({
        event: 'http.error',
        outcome: 'invalid_config',
        error: 'TENANTS is invalid: [0].apiKeySha256[0]: must be a SHA-256 hex digest',
        route: '/v1/servers',
      }),
    );
    // `npm start` (no TENANTS, AUTH_DISABLED=true): the developer at the terminal is told in the answer too.
    const local = { ...env, TENANTS: '', AUTH_DISABLED: 'true', MCP_SERVERS: '[{"id":"x"}]' } as Env;
    const told = await createApp().fetch(new Request('http://localhost/v1/servers'), local, createExecutionContext());
    expect(await errorOf(told)).toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('MCP_SERVERS'),
    });
  });

  it('invalid TENANTS is a clear config error', () => {
    expect(() => loadConfig({ TENANTS: '[{"id":"a","apiKeySha256":["nothex"]}]' })).toThrow(
      /TENANTS is invalid: \[0\]\.apiKeySha256\[0\]: must be a SHA-256 hex digest/,
    );
    expect(() => loadConfig({ TENANTS: '[{"id":"a","tokenSecret":"plain-text-secret"}]' })).toThrow(
      /must name a Worker secret/,
    );
  });
});

describe('CORS per tenant', () => {
  it('answers a preflight for an origin some tenant allows, refuses others', async () => {
    const preflight = (origin: string) =>
      exports.default.fetch('http://localhost/v1/conversations', {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
    const allowed = await preflight('https://app.acme.test');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.acme.test');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('authorization');
    const refused = await preflight('https://evil.test');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a browser request from an origin its own tenant does not allow is 403', async () => {
    const t = await token({});
    const ok = await api('/v1/conversations', { method: 'POST' }, { ...bearer(t), origin: 'https://app.acme.test' });
    expect(ok.status).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.acme.test');
    // globex's origin is allowed for globex, not for acme's users.
    const wrong = await api('/v1/conversations', { method: 'POST' }, { ...bearer(t), origin: 'https://globex.test' });
    expect(wrong.status).toBe(403);
    expect((await errorOf(wrong)).code).toBe('origin_not_allowed');
  });
});

describe('turn limits', () => {
  it('past its limit a user gets 429 with Retry-After, and recovers when the window passes', async () => {
    const id = await createConversation(GLOBEX); // globex: 2 turns per user per 2 s
    const turn = () =>
      postJson(`/v1/conversations/${id}/messages`, { text: 'What do the team guidelines say?' }, GLOBEX);
    for (let i = 0; i < 2; i++) {
      const ok = await turn();
      expect(ok.status).toBe(200);
      await ok.text();
    }
    const limited = await turn();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await errorOf(limited)).code).toBe('rate_limited');
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const again = await turn();
    expect(again.status).toBe(200);
    await again.text();
  });
});

describe('server URLs in production config', () => {
  const tenants = '[{"id":"a","apiKeySha256":[]}]';
  it.each([
    ['http://mcp.example.com/mcp', 'must use https'],
    ['https://127.0.0.1:3901/mcp', 'private or loopback'],
    ['https://localhost/mcp', 'private or loopback'],
    ['https://169.254.169.254/latest', 'private or loopback'],
    ['https://10.1.2.3/mcp', 'private or loopback'],
    ['https://[::1]/mcp', 'private or loopback'],
  ])('with TENANTS, %s is refused (%s)', (url, problem) => {
    expect(() => loadConfig({ TENANTS: tenants, MCP_SERVERS: JSON.stringify([{ id: 's', url }]) })).toThrow(problem);
  });

  it('accepts https to public hosts and paths of this Worker; development may opt out', () => {
    expect(
      loadConfig({
        TENANTS: tenants,
        MCP_SERVERS: '[{"id":"s","url":"https://mcp.example.com/mcp"},{"id":"d","url":"/demo/mcp"}]',
        DEMO_MCP_ENABLED: 'true',
      }).mcpServers,
    ).toHaveLength(2);
    expect(
      loadConfig({
        TENANTS: tenants,
        MCP_SERVERS: '[{"id":"s","url":"http://127.0.0.1:3901/mcp"}]',
        ALLOW_PRIVATE_MCP_URLS: 'true',
      }).mcpServers,
    ).toHaveLength(1);
    expect(loadConfig({ MCP_SERVERS: '[{"id":"s","url":"http://127.0.0.1:3901/mcp"}]' }).mcpServers).toHaveLength(1); // no TENANTS: local development
  });
});

describe('the demo MCP server with TENANTS', () => {
  // Shared and writable by anyone: with TENANTS it must be switched on (vitest.config.ts does, for the suite).
  const withoutDemo = (): Env => ({ ...env, DEMO_MCP_ENABLED: undefined });
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const mcpPost = (body: string) =>
    new Request('http://localhost/demo/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });

  it('is off unless DEMO_MCP_ENABLED=true: /demo/mcp answers the 404 of an unknown path', async () => {
    const response = await createApp().fetch(mcpPost(initialize), withoutDemo(), createExecutionContext());
    expect(response.status).toBe(404);
    expect((await errorOf(response)).code).toBe('not_found');
    // A write names no server either.
    const write = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'create_task', arguments: { title: 'x' } },
    });
    expect((await createApp().fetch(mcpPost(write), withoutDemo(), createExecutionContext())).status).toBe(404);
    // Enabled (the suite's config), it serves.
    expect((await createApp().fetch(mcpPost(initialize), env, createExecutionContext())).status).toBe(200);
  });

  it('a server configured at /demo/mcp is then a config error naming the var, not a silent failure', async () => {
    const response = await createApp().fetch(
      new Request('http://localhost/v1/servers', { headers: ACME_ALICE }),
      withoutDemo(),
      createExecutionContext(),
    );
    // The caller learns nothing of the config; the error names the var to the operator (loadConfig, below; the log line).
    expect(response.status).toBe(500);
    expect((await errorOf(response)).code).toBe('internal_error');
    expect(() => loadConfig({ TENANTS: '[{"id":"a"}]', MCP_SERVERS: '[{"id":"d","url":"/demo/mcp"}]' })).toThrow(
      /MCP_SERVERS: server "d": .*DEMO_MCP_ENABLED=true/,
    );
    // Without TENANTS (npm start) it is on.
    expect(loadConfig({ MCP_SERVERS: '[{"id":"d","url":"/demo/mcp"}]' }).mcpServers).toHaveLength(1);
  });
});

describe('secrets stay out of the model and the logs', () => {
  it('a turn with a server that echoes its token: neither the model input nor any log line has it', async () => {
    const { vi } = await import('vitest');
    const { callTools, say, scriptedModel } = await import('./helpers/turns');
    const TOKEN = 'tok_live_9f8e7d6c5b4a3210';
    const logged: string[] = [];
    const spies = (['log', 'warn', 'error', 'info', 'debug'] as const).map((level) =>
      // Log lines are objects (src/observability/log.ts): their fields are what must not hold the token.
      vi
        .spyOn(console, level)
        .mockImplementation(
          (...args: unknown[]) =>
            void logged.push(args.map((a) => (typeof a === 'object' ? JSON.stringify(a) : String(a))).join(' ')),
        ),
    );
    const control = (await import('vitest')).inject('faultControlUrl');
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(
            ['read_resource', { uri: 'demo://resource/dynamic/text/55', server: 'faulty' }],
            ['everything__echo', { message: 'hi' }],
          )
        : say('ok'),
    );
    try {
      await fetch(`${control}/mode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'pass' }),
      });
      const { runScriptedTurn } = await import('./helpers/turns');
      await runScriptedTurn(id, 'read it', model);
      await fetch(`${control}/mode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'echo-auth' }),
      });
      const failing = scriptedModel((_c, i) =>
        i === 0
          ? callTools(['read_resource', { uri: 'demo://resource/dynamic/text/56', server: 'faulty' }])
          : say('ok'),
      );
      await runScriptedTurn(id, 'read another', failing).catch(() => undefined);
      const sent = JSON.stringify([...model.doStreamCalls, ...failing.doStreamCalls].map((c) => c.prompt));
      expect(sent).toContain('faulty'); // the model did hear about the server…
      expect(sent).not.toContain(TOKEN); // …never its credential
      expect(logged.join('\n')).not.toContain(TOKEN);
    } finally {
      for (const spy of spies) spy.mockRestore();
      await fetch(`${control}/mode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'pass' }),
      });
    }
  });
});

describe('a token that limits its user to some servers', () => {
  it('cannot use a conversation of the same user that is not limited the same way', async () => {
    const unrestricted = await createConversation({ authorization: 'Bearer test-key-acme', 'x-end-user': 'frank' });
    const limited = await token({ sub: 'frank', servers: ['demo'] });
    expect((await api(`/v1/conversations/${unrestricted}`, {}, bearer(limited))).status).toBe(404);
    const { servers } = await (await api('/v1/servers', {}, bearer(limited))).json<{
      servers: Array<{ id: string }>;
    }>();
    expect(servers.map((s) => s.id)).toEqual(['demo']);
  });

  it('creates conversations that only see those servers', async () => {
    const t = await token({ sub: 'erin', servers: ['demo'] });
    const { id } = await (await api('/v1/conversations', { method: 'POST' }, bearer(t))).json<{ id: string }>();
    const { servers } = await (await api(`/v1/conversations/${id}/catalog`, {}, bearer(t))).json<{
      servers: Array<{ id: string }>;
    }>();
    expect(servers.map((s) => s.id)).toEqual(['demo']);
    const other = await postJson(
      `/v1/conversations/${id}/resources/read`,
      { server: 'everything', uri: 'demo://resource/dynamic/text/1' },
      bearer(t),
    );
    expect(other.status).toBe(404);
    expect((await api('/v1/conversations', { method: 'POST' }, bearer(await token({ servers: 'demo' })))).status).toBe(
      401,
    );
  });
});
