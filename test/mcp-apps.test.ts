import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { UIMessageChunk } from 'ai';
import { describe, expect, inject, it } from 'vitest';
import type { AppToolCall, ViewLink } from '../shared/api/views';
import { loadConfig } from '../src/config';
import { answerView } from '../src/conversation/views';
import { signedViewSegment } from '../src/http/view-url-signature';
import { takeViewCall } from '../src/limits/turn-limits';
import type { McpSessions } from '../src/mcp/sessions';
import { turnContext } from '../src/turn/context';
import { ACME_ALICE, api, catalog, conversationStub, createConversation, postJson, read } from './helpers/api';
import { connectDemoClient, demoTaskTitles, waitFor } from './helpers/demo-client';
import { callTools, runScriptedTurn, say, scriptedModel, sseChunks, toolResults } from './helpers/turns';

/*
 * MCP Apps (issue 17) against the demo server over real MCP (Streamable
 * HTTP): the demo's show_task_board has the view ui://demo/task-board;
 * board_tasks is visible to that view only.
 */

const BOARD = 'ui://demo/task-board';

/** The tenant whose conversations reach the demo server in both protocol eras: `demo` (2026-07-28) and `demo2025` (2025-11-25). */
const ERAS = { authorization: 'Bearer test-key-eras', 'x-end-user': 'alice' };

async function viewLink(
  id: string,
  body: { server: string; uri: string } = { server: 'demo', uri: BOARD },
  as = ACME_ALICE,
) {
  return postJson(`/v1/conversations/${id}/views`, body, as);
}

async function viewDocument(
  id: string,
  server = 'demo',
  as = ACME_ALICE,
): Promise<{ link: ViewLink; response: Response }> {
  const linked = await viewLink(id, { server, uri: BOARD }, as);
  expect(linked.status).toBe(200);
  const link = await linked.json<ViewLink>();
  return { link, response: await api(link.url, {}, {}) };
}

const viewCall = (id: string, body: Record<string, unknown>) => postJson(`/v1/conversations/${id}/views/call`, body);

describe('the host side of MCP Apps: catalog and model', () => {
  it('declares the UI extension to the servers it connects to, as a server receives it', async () => {
    // "faulty" is server-everything behind the fault proxy, which records what each request declared.
    const control = inject('faultControlUrl');
    await fetch(`${control}/reset`, { method: 'POST' });
    const requestId = `apps-capability-${crypto.randomUUID()}`;
    const id = await createConversation();
    expect((await api(`/v1/conversations/${id}/catalog`, { headers: { 'x-request-id': requestId } })).status).toBe(200);
    const { seen } = await (await fetch(`${control}/state`)).json<{
      seen: Array<{ requestId: string | null; methods: string[]; extensions: string[] }>;
    }>();
    const mine = seen.filter(
      (r) => r.requestId === requestId && (r.methods.includes('initialize') || r.methods.includes('server/discover')),
    );
    expect(mine.length).toBeGreaterThan(0);
    for (const request of mine) expect(request.extensions).toContain('io.modelcontextprotocol/ui');
  });

  it("the catalog keeps each tool's _meta.ui; a tool visible only to its app is in the catalog but never offered to the model", async () => {
    const id = await createConversation();
    const { demo } = await catalog(id);
    const byName = Object.fromEntries(demo!.tools.map((t) => [t.name, t]));
    expect(byName.show_task_board!._meta).toMatchObject({ ui: { resourceUri: BOARD }, 'ui/resourceUri': BOARD });
    expect(byName.board_tasks!._meta).toMatchObject({ ui: { resourceUri: BOARD, visibility: ['app'] } });

    const tools = await runInDurableObject(await conversationStub(id), (instance) =>
      instance.parts.live.use(async (sessions) => {
        const context = await turnContext(sessions, {
          settings: loadConfig(env).settings,
          acceptsImages: false,
          turnStartedAt: Date.now(),
        });
        return { all: Object.keys(context.tools), searchable: context.mcpToolEntries.map((e) => e.name) };
      }),
    );
    expect(tools.all).toContain('demo__show_task_board');
    expect(tools.all).not.toContain('demo__board_tasks');
    expect(tools.searchable).not.toContain('demo__board_tasks');
  });

  it("a server's listed views stay out of what the model sees of its resources (catalog, corpus, list_resources)", async () => {
    const id = await createConversation();
    const uris = await runInDurableObject(await conversationStub(id), (instance) =>
      instance.parts.live.use(async (sessions) => {
        const listed = sessions.catalog.bind(sessions);
        // As a server built on ext-apps' registerAppResource would list it.
        const view = { uri: 'ui://demo/listed', name: 'listed', mimeType: 'text/html;profile=mcp-app' };
        sessions.catalog = async (since) =>
          (await listed(since)).map((s) => (s.id === 'demo' ? { ...s, resources: [...s.resources, view] } : s));
        try {
          const context = await turnContext(sessions, {
            settings: loadConfig(env).settings,
            acceptsImages: false,
            turnStartedAt: Date.now(),
          });
          return context.states.find((s) => s.id === 'demo')!.resources.map((r) => r.uri);
        } finally {
          sessions.catalog = listed;
        }
      }),
    );
    expect(uris).toContain('task://guidelines');
    expect(uris).not.toContain('ui://demo/listed');
  });

  it('a call of a tool with a view streams a data-mcp-app part (call, then raw result), kept in the history; the model sees the text only', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0 ? callTools(['demo__show_task_board', {}]) : say('Here is the board.'),
    );
    const chunks = await runScriptedTurn(id, 'show me the task board', model);
    const toolCallId = (chunks.find((c) => c.type === 'tool-input-available') as { toolCallId: string }).toolCallId;
    const parts = chunks.filter(
      (c): c is Extract<UIMessageChunk, { type: `data-${string}` }> => c.type === 'data-mcp-app',
    );
    expect(parts.map((p) => p.id)).toEqual([`mcp-app-${toolCallId}`, `mcp-app-${toolCallId}`]);
    expect(parts.every((p) => !p.transient)).toBe(true);
    const [called, ended] = parts.map((p) => p.data as AppToolCall);
    // (The AI SDK keeps the first chunk of an id as the message's part and sets later data on it: read here, it has the result too.)
    expect(called).toMatchObject({
      toolCallId,
      server: 'demo',
      tool: 'show_task_board',
      resourceUri: BOARD,
      input: {},
    });
    expect(ended!.result?.structuredContent).toMatchObject({ tasks: expect.any(Array) });
    expect(ended!.result?.content?.[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/open task|board is empty/),
    });

    const seen = toolResults(model.doStreamCalls[1]!.prompt)[0]!;
    expect(seen).toMatchObject({ toolName: 'demo__show_task_board', error: false });
    expect(seen.text).not.toContain('structuredContent');
    expect(seen.text).not.toContain('"tasks"');

    const snapshot = await (await api(`/v1/conversations/${id}`)).json<{
      messages: Array<{ role: string; parts: Array<{ type: string; data?: AppToolCall }> }>;
    }>();
    const kept = snapshot.messages.at(-1)!.parts.filter((p) => p.type === 'data-mcp-app');
    expect(kept).toHaveLength(1);
    expect(kept[0]!.data!.result?.structuredContent).toBeTruthy();
  });
});

describe('end to end, as `npm start` shows it', () => {
  it('the offline model calls show_task_board when named: the answer over HTTP carries the data-mcp-app part', async () => {
    const id = await createConversation();
    const chunks = await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: 'show_task_board' }));
    const app = chunks.filter((c) => c.type === 'data-mcp-app').map((c) => (c as { data: AppToolCall }).data);
    expect(app.map((a) => Boolean(a.result))).toEqual([false, true]); // the call, then its result
    expect(app[1]).toMatchObject({
      server: 'demo',
      tool: 'show_task_board',
      resourceUri: BOARD,
      result: { structuredContent: { tasks: expect.any(Array) } },
    });
  });
});

describe('view documents: POST …/views, GET /views/{conversation}/{nonce}', () => {
  it('serves the HTML through the cache with a sandboxing CSP, no-store and no referrer', async () => {
    const id = await createConversation();
    const { link, response } = await viewDocument(id);
    expect(link.url).toMatch(new RegExp(`^/views/${id}/[0-9a-f]{32}\\.[\\w-]{22}$`)); // nonce.signature (TENANTS is set)
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(link.security).toEqual({ prefersBorder: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('ui/initialize');
    // The demo's view declares no domains: the restrictive default (view-csp.test.ts has the declared cases).
    const directives = response.headers.get('content-security-policy')!.split('; ');
    expect(directives.slice(0, -1)).toEqual([
      'sandbox allow-scripts allow-forms',
      "default-src 'none'",
      "script-src 'unsafe-inline'",
      "style-src 'unsafe-inline'",
      'img-src data:',
      "font-src 'none'",
      'media-src data:',
      "connect-src 'none'",
      "frame-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
    ]);
    // Framed by acme's allowed origins (test/infra/tenants.ts) and this service (the request's origin, PUBLIC_URL's).
    expect(directives.at(-1)).toBe('frame-ancestors https://app.acme.test http://localhost https://mcp-ondemand.test');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
  });

  it('is fresh after the server announces a change (resources/updated)', async () => {
    const id = await createConversation();
    const before = await (await viewDocument(id)).response.text();
    expect((await read(id, { server: 'demo', uri: BOARD })).cache).toBe('memory'); // the view was read through the cache, and is kept there
    const headline = `Board rules ${crypto.randomUUID()}`;
    expect(before).not.toContain(headline);
    const { client, transport } = await connectDemoClient('editor');
    await client.callTool({ name: 'update_guidelines', arguments: { text: `${headline}\n\nThe rest.` } });
    await transport.terminateSession();
    await waitFor(async () => (await (await viewDocument(id)).response.text()).includes(headline), 'the new board');
  });

  it('both protocol eras: the view of a 2026-07-28 and of a 2025-11-25 connection, each fresh after an update', async () => {
    const id = await createConversation(ERAS);
    for (const server of ['demo', 'demo2025']) {
      const { response } = await viewDocument(id, server, ERAS);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('ui/initialize');
    }
    const headline = `Both eras ${crypto.randomUUID()}`;
    const { client, transport } = await connectDemoClient('editor');
    await client.callTool({ name: 'update_guidelines', arguments: { text: headline } });
    await transport.terminateSession();
    for (const server of ['demo', 'demo2025']) {
      await waitFor(
        async () => (await (await viewDocument(id, server, ERAS)).response.text()).includes(headline),
        `the new board from ${server}`,
      );
    }
  });

  it('refuses what is no view of the conversation: another scheme, an unknown ui:// URI, a server not its own', async () => {
    const id = await createConversation();
    expect((await viewLink(id, { server: 'demo', uri: 'task://guidelines' })).status).toBe(400);
    expect((await viewLink(id, { server: 'demo', uri: 'ui://demo/elsewhere' })).status).toBe(404);
    expect((await viewLink(id, { server: 'nowhere', uri: BOARD })).status).toBe(404);
  });

  it('a view link opens its document once: the frame’s first load uses it up (its URL may sit in a request log)', async () => {
    const id = await createConversation();
    const { link, response } = await viewDocument(id);
    expect(response.status).toBe(200);
    await response.text();
    const again = await api(link.url, {}, {});
    expect(again.status).toBe(404);
    await again.text();
    // A new mount asks for a new link, which works.
    expect((await viewDocument(id)).response.status).toBe(200);
  });

  it('a HEAD, or a prefetch, does not use a view link up: the frame’s load still opens it', async () => {
    const id = await createConversation();
    const linked = await viewLink(id, { server: 'demo', uri: BOARD });
    const { url } = await linked.json<ViewLink>();
    const head = await api(url, { method: 'HEAD' }, {});
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const purpose of [
      ['sec-purpose', 'prefetch'],
      ['sec-purpose', 'prefetch;prerender'],
      ['purpose', 'prefetch'],
    ] as Array<[string, string]>) {
      const prefetch = await api(url, { headers: [purpose] }, {});
      expect(prefetch.status).toBe(503);
      expect(prefetch.headers.get('cache-control')).toBe('no-store');
      await prefetch.text();
    }
    const load = await api(url, {}, {});
    expect(load.status).toBe(200);
    expect(await load.text()).toContain('<!doctype html>');
    expect((await api(url, { method: 'HEAD' }, {})).status).toBe(404); // used up by the load
  });

  it("an unknown, expired or other conversation's nonce is a 404", async () => {
    const id = await createConversation();
    const other = await createConversation();
    const { link } = await viewDocument(id);
    const segment = link.url.split('/').at(-1)!;
    const nonce = segment.split('.')[0]!;
    // Signed for this conversation only: refused in the Worker for another…
    expect((await api(`/views/${other}/${segment}`, {}, {})).status).toBe(404);
    // …and, signed for the other one, refused by that conversation, which never minted the nonce.
    expect((await api(`/views/${other}/${await signedViewSegment(env, other, nonce)}`, {}, {})).status).toBe(404);
    expect((await api(`/views/${id}/${await signedViewSegment(env, id, '0'.repeat(32))}`, {}, {})).status).toBe(404);
    expect((await api(`/views/${id}/not-a-nonce`, {}, {})).status).toBe(404);
    const expired = await runInDurableObject(await conversationStub(id), (instance) =>
      instance.parts.viewNonces.mint({ server: 'demo', uri: BOARD }, Date.now() - 11 * 60_000),
    );
    const gone = await api(`/views/${id}/${await signedViewSegment(env, id, expired.nonce)}`, {}, {});
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-security-policy')).toContain("default-src 'none'"); // the API's headers on its errors
  });

  it('refuses a nonce without our signature for it, though the conversation minted it (checked in the Worker, before any Durable Object is addressed)', async () => {
    const id = await createConversation();
    const link = await (await viewLink(id, { server: 'demo', uri: BOARD })).json<ViewLink>(); // minted, not loaded yet
    const [nonce, signature] = link.url.split('/').at(-1)!.split('.') as [string, string];
    expect((await api(`/views/${id}/${nonce}`, {}, {})).status).toBe(404); // unsigned
    const forged = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect((await api(`/views/${id}/${nonce}.${forged}`, {}, {})).status).toBe(404);
    expect((await api(link.url, {}, {})).status).toBe(200); // the real link still works
  });
});

describe('reading a view (views.ts) from what a server sends', () => {
  const URI = 'ui://x/view';
  /** The sessions of a conversation whose one server `x` has a tool with the view `URI`, listed (or not), read as `contents`. */
  const serverSending = (contents: unknown[], listed?: object) =>
    ({
      serverIds: ['x'],
      servers: [],
      ensureServer: async () => ({
        id: 'x',
        tools: [{ name: 't', inputSchema: {}, _meta: { ui: { resourceUri: URI } } }],
        resources: listed ? [listed] : [],
      }),
      readResource: async () => ({ contents }),
    }) as unknown as McpSessions;
  const answer = async (sessions: McpSessions, kind: 'link' | 'document') =>
    runInDurableObject(await conversationStub(await createConversation()), async (instance) => {
      const links = instance.parts.viewNonces;
      if (kind === 'link') return answerView(sessions, links, { kind, body: { server: 'x', uri: URI } });
      return answerView(sessions, links, { kind, nonce: links.mint({ server: 'x', uri: URI }).nonce });
    }).catch((error: unknown) => error);

  it('a base64 blob is UTF-8 HTML; the content item’s _meta.ui wins over the listing’s, which is the fallback', async () => {
    const blob = btoa(String.fromCharCode(...new TextEncoder().encode('<p>Grüße</p>')));
    const item = { uri: URI, mimeType: 'text/html;profile=mcp-app', blob, _meta: { ui: { prefersBorder: false } } };
    const listing = {
      uri: URI,
      name: 'v',
      mimeType: 'text/html;profile=mcp-app',
      _meta: { ui: { prefersBorder: true, csp: { connectDomains: ['https://a.dev'] } } },
    };
    expect(await answer(serverSending([item], listing), 'document')).toEqual({
      html: '<p>Grüße</p>',
      ui: { prefersBorder: false },
    });
    const { _meta: _, ...bare } = item;
    expect(await answer(serverSending([bare], listing), 'document')).toMatchObject({ ui: listing._meta.ui });
  });

  it('anything but text/html;profile=mcp-app is refused (502 not_a_view), at the link already', async () => {
    for (const mimeType of ['text/html', 'text/plain', undefined]) {
      for (const kind of ['link', 'document'] as const) {
        expect(await answer(serverSending([{ uri: URI, mimeType, text: '<p>x</p>' }]), kind)).toMatchObject({
          status: 502,
          code: 'not_a_view',
        });
      }
    }
  });
});

describe("a view's tool calls: POST …/views/call", () => {
  it('runs an app-only tool; refuses a tool its app may not call, or of a server not its own', async () => {
    const id = await createConversation();
    const ran = await viewCall(id, { server: 'demo', name: 'board_tasks', arguments: {} });
    expect(ran.status).toBe(200);
    expect((await ran.json<{ result: { structuredContent: unknown } }>()).result.structuredContent).toMatchObject({
      tasks: expect.any(Array),
    });
    for (const body of [
      { server: 'everything', name: 'board_tasks' }, // exists, but on another server
      { server: 'demo', name: 'echo' },
      { server: 'nowhere', name: 'board_tasks' },
    ]) {
      const refused = await viewCall(id, body);
      expect(refused.status).toBe(403);
      expect((await refused.json<{ error: { code: string } }>()).error.code).toBe('tool_not_for_app');
    }
  });

  it('a tool that changes data needs approval (409 approval_required) as the model would; with approved: true it runs', async () => {
    const id = await createConversation();
    const title = `From the board ${crypto.randomUUID()}`;
    const asked = await viewCall(id, { server: 'demo', name: 'create_task', arguments: { title } });
    expect(asked.status).toBe(409);
    const { error } = await asked.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('approval_required');
    expect(error.message).toContain('create_task');
    expect(await demoTaskTitles()).not.toContain(title);

    const approved = await viewCall(id, { server: 'demo', name: 'create_task', arguments: { title }, approved: true });
    expect(approved.status).toBe(200);
    expect(await demoTaskTitles()).toContain(title);
  });

  it('a client that asks (onApprovalRequired: "202") hears that the call waits for the user as a 202, not an HTTP error; nothing ran', async () => {
    const id = await createConversation();
    const title = `Asked in the body ${crypto.randomUUID()}`;
    const body = { server: 'demo', name: 'create_task', arguments: { title }, onApprovalRequired: '202' };
    const asked = await viewCall(id, body);
    expect(asked.status).toBe(202);
    const { approvalRequired } = await asked.json<{
      approvalRequired: { server: string; name: string; message: string };
    }>();
    expect(approvalRequired).toMatchObject({ server: 'demo', name: 'create_task' });
    expect(approvalRequired.message).toContain("needs the user's approval");
    expect(await demoTaskTitles()).not.toContain(title);

    // Other refusals stay errors; the user's yes runs the call as before.
    const forbidden = await viewCall(id, { ...body, name: 'echo' });
    expect(forbidden.status).toBe(403);
    expect((await viewCall(id, { ...body, approved: true })).status).toBe(200);
    expect(await demoTaskTitles()).toContain(title);
    const bad = await viewCall(id, { ...body, onApprovalRequired: '200' });
    expect(bad.status).toBe(400);
  });

  it('are limited per end user and minute (VIEW_CALLS_PER_MINUTE_PER_USER): 429 with Retry-After past it', async () => {
    const config = loadConfig(env);
    const tight = { ...config, settings: { ...config.settings, VIEW_CALLS_PER_MINUTE_PER_USER: 2 } };
    const owner = { tenant: 'acme', user: `views-${crypto.randomUUID()}` };
    await takeViewCall(env, tight, owner);
    await takeViewCall(env, tight, owner);
    const refused = await takeViewCall(env, tight, owner).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 429,
      code: 'rate_limited',
      headers: { 'Retry-After': expect.stringMatching(/^\d+$/) },
    });
    await takeViewCall(env, tight, { ...owner, user: `${owner.user}-other` }); // another user's views are not held back
  });

  it("a tool error is a result; the model's history gets none of these calls", async () => {
    const id = await createConversation();
    const failed = await viewCall(id, { server: 'demo', name: 'complete_task', arguments: { id: 999_999 } }); // autoApprove in test/infra/tenants.ts
    expect(failed.status).toBe(200);
    expect((await failed.json<{ result: { isError?: boolean } }>()).result.isError).toBe(true);
    const snapshot = await (await api(`/v1/conversations/${id}`)).json<{ messages: unknown[] }>();
    expect(snapshot.messages).toEqual([]);
  });
});
