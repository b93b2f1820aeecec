import { exports } from 'cloudflare:workers';
import { ProtocolError, type ListResourcesResult, type Resource } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_URL, connectDemoClient, waitFor } from './helpers/demo-client';

type Connected = Awaited<ReturnType<typeof connectDemoClient>>;
const open: Connected[] = [];
/** A client of the demo server: 2026-07-28 unless a test asks for a 2025-11-25 session. */
async function connect(name?: string, protocol: 'auto' | '2025-11-25' = 'auto') {
  const connected = await connectDemoClient(name, { protocol });
  open.push(connected);
  return connected;
}
afterEach(async () => {
  await Promise.all(
    open.splice(0).map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }),
  );
});

/** Every page of resources/list, page by page as the server sends them (the SDK's own walk would hide the pages). */
async function listAllResources(client: Connected['client']) {
  const resources: Resource[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  do {
    const page = (await client.request({
      method: 'resources/list',
      params: cursor ? { cursor } : {},
    })) as ListResourcesResult;
    pages.push(page.resources.length);
    resources.push(...page.resources);
    cursor = page.nextCursor;
  } while (cursor);
  return { resources, pages };
}

async function mcpError(promise: Promise<unknown>): Promise<ProtocolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return error;
    throw error;
  }
  throw new Error('expected an MCP error');
}

const decode = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const blobOf = (contents: { text?: unknown; blob?: unknown }) => {
  if (typeof contents.blob !== 'string') throw new Error('expected blob contents');
  return contents.blob;
};
const textOf = (contents: { text?: unknown; blob?: unknown }) => {
  if (typeof contents.text !== 'string') throw new Error('expected text contents');
  return contents.text;
};

describe('demo MCP server: both protocol eras', () => {
  it('2026-07-28: server/discover gives server info, instructions, capabilities and cache hints; no session', async () => {
    const { client, transport } = await connect();
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();
    expect(client.getServerVersion()).toMatchObject({ name: 'acme-tasks-demo' });
    expect(client.getInstructions()).toContain('task://guidelines');
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true } });
    expect(client.getDiscoverResult()).toMatchObject({
      supportedVersions: expect.arrayContaining(['2026-07-28']),
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    // Cache hints as the demo declares them: the guidelines short-lived and private, the test matrix public.
    expect(await client.readResource({ uri: 'task://guidelines' })).toMatchObject({
      ttlMs: 30_000,
      cacheScope: 'private',
    });
    expect(await client.readResource({ uri: 'docs://test-matrix' })).toMatchObject({
      ttlMs: 300_000,
      cacheScope: 'public',
    });
  });

  it('2025-11-25: initialize gives a session with server info, instructions and capabilities, and no cache hints', async () => {
    const { client, transport } = await connect('legacy', '2025-11-25');
    expect(client.getProtocolEra()).toBe('legacy');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerVersion()).toMatchObject({ name: 'acme-tasks-demo' });
    expect(client.getInstructions()).toContain('task://guidelines');
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      tools: {},
      prompts: {},
      completions: {},
    });
    const read = await client.readResource({ uri: 'task://guidelines' });
    expect(read).not.toHaveProperty('ttlMs');
  });

  it('answers 404 for an unknown 2025 session id and forgets a deleted session', async () => {
    const unknown = await exports.default.fetch(DEMO_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'nope',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(unknown.status).toBe(404);

    const { client, transport } = await connectDemoClient('deleter', { protocol: '2025-11-25' });
    const sessionId = transport.sessionId!;
    await client.ping();
    await transport.terminateSession();
    await client.close();
    const after = await exports.default.fetch(DEMO_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
    });
    expect(after.status).toBe(404);
  });

  it('refuses a first request that is not initialize', async () => {
    const response = await exports.default.fetch(DEMO_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
  });
});

describe('demo MCP server: resources', () => {
  it('lists every resource across several pages, with MIME types and byte sizes', async () => {
    const { client } = await connect();
    const { resources, pages } = await listAllResources(client);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages[0]).toBe(3);
    const byUri = Object.fromEntries(resources.map((r) => [r.uri, r]));
    expect(byUri['task://guidelines']).toMatchObject({ mimeType: 'text/plain', title: 'Team guidelines' });
    expect(byUri['docs://test-matrix']).toMatchObject({ mimeType: 'text/markdown' });
    expect(byUri['docs://quarterly-report.pdf']).toMatchObject({ mimeType: 'application/pdf' });
    expect(byUri['assets://logo.png']).toMatchObject({ mimeType: 'image/png' });
    // Every listed size is the real size of what a read returns.
    for (const uri of ['docs://test-matrix', 'docs://quarterly-report.pdf', 'assets://logo.png']) {
      const [contents] = (await client.readResource({ uri })).contents;
      const bytes =
        'blob' in contents! ? decode(contents.blob).byteLength : new TextEncoder().encode(textOf(contents!)).byteLength;
      expect(byUri[uri]!.size, uri).toBe(bytes);
    }
  });

  it('rejects a forged cursor', async () => {
    const { client } = await connect();
    const error = await mcpError(client.listResources({ cursor: 'bogus!' }));
    expect(error.code).toBe(-32602);
  });

  it('serves the guidelines as text/plain', async () => {
    const { client } = await connect();
    const { contents } = await client.readResource({ uri: 'task://guidelines' });
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: 'task://guidelines', mimeType: 'text/plain' });
    expect(textOf(contents[0]!)).toMatch(/guidelines/i);
  });

  it('serves the large test matrix whole, with its product list and output format near the end', async () => {
    const { client } = await connect();
    const text = textOf((await client.readResource({ uri: 'docs://test-matrix' })).contents[0]!);
    expect(text.length).toBeGreaterThanOrEqual(11_000);
    const products = text.indexOf('## Products under test');
    const format = text.indexOf('## Output format');
    expect(products).toBeGreaterThan(2_000); // what a naive `content[:2000]` host loses
    expect(format).toBeGreaterThan(products);
    expect(text.slice(products)).toContain('Acme Tasks Android');
    expect(text.trimEnd().endsWith('check.')).toBe(true);
  });

  it('serves a real PDF and PNG as base64 blobs', async () => {
    const { client } = await connect();
    const pdf = (await client.readResource({ uri: 'docs://quarterly-report.pdf' })).contents[0]!;
    expect(pdf.mimeType).toBe('application/pdf');
    expect('text' in pdf).toBe(false);
    const pdfBytes = decode(blobOf(pdf));
    expect(new TextDecoder().decode(pdfBytes.slice(0, 5))).toBe('%PDF-');
    expect(new TextDecoder().decode(pdfBytes.slice(-6)).trim()).toBe('%%EOF');

    const png = (await client.readResource({ uri: 'assets://logo.png' })).contents[0]!;
    expect(png.mimeType).toBe('image/png');
    expect([...decode(blobOf(png)).slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('answers an unknown URI with resource-not-found', async () => {
    const { client } = await connect();
    const error = await mcpError(client.readResource({ uri: 'task://nothing-here' }));
    expect([-32002, -32602]).toContain(error.code);
  });
});

describe('demo MCP server: customer template', () => {
  it('is listed as a template and reads a known customer as JSON', async () => {
    const { client } = await connect();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['customer://{customerId}/profile', 'docs://published/{slug}']),
    );
    expect(resourceTemplates.find((t) => t.uriTemplate.startsWith('customer'))).toMatchObject({
      mimeType: 'application/json',
    });

    const { contents } = await client.readResource({ uri: 'customer://globex/profile' });
    expect(contents[0]).toMatchObject({ uri: 'customer://globex/profile', mimeType: 'application/json' });
    expect(JSON.parse(textOf(contents[0]!))).toMatchObject({ id: 'globex', name: 'Globex Inc.', plan: 'team' });
  });

  it('rejects an unknown customer id with a clear resource-not-found error', async () => {
    const { client } = await connect();
    const error = await mcpError(client.readResource({ uri: 'customer://nobody/profile' }));
    expect(error.code).toBe(-32602); // resource not found, as 2026-07-28 says
    expect(error.data).toEqual({ uri: 'customer://nobody/profile' });
    expect(error.message).toContain('Unknown customer "nobody"');
    expect(error.message).toContain('acme');
  });

  it('completes customer ids', async () => {
    const { client } = await connect();
    const ref = { type: 'ref/resource' as const, uri: 'customer://{customerId}/profile' };
    expect((await client.complete({ ref, argument: { name: 'customerId', value: 'g' } })).completion.values).toEqual([
      'globex',
    ]);
    expect(
      (await client.complete({ ref, argument: { name: 'customerId', value: '' } })).completion.values,
    ).toHaveLength(7);
    expect((await client.complete({ ref, argument: { name: 'customerId', value: 'zz' } })).completion.values).toEqual(
      [],
    );
  });
});

describe('demo MCP server: prompts', () => {
  it('lists plan_day and review_guidelines with their arguments', async () => {
    const { client } = await connect();
    const { prompts } = await client.listPrompts();
    const planDay = prompts.find((p) => p.name === 'plan_day');
    expect(planDay?.arguments).toEqual([expect.objectContaining({ name: 'hours', required: true })]);
    const review = prompts.find((p) => p.name === 'review_guidelines');
    expect(review?.arguments).toEqual([expect.objectContaining({ name: 'focus', required: false })]);
  });

  it('plan_day renders a plan request for valid hours', async () => {
    const { client } = await connect();
    await client.callTool({ name: 'create_task', arguments: { title: 'Write release notes', estimateHours: 2 } });
    const result = await client.getPrompt({ name: 'plan_day', arguments: { hours: '4' } });
    expect(result.messages).toHaveLength(1);
    expect(result.messages[0]!.role).toBe('user');
    const text = (result.messages[0]!.content as { text: string }).text;
    expect(text).toContain('I have 4 hours');
    expect(text).toContain('Write release notes (2 h)');
    expect(text).toContain('task://guidelines');
  });

  it.each(['40', 'abc', '0.25', ''])('plan_day rejects hours "%s" naming the argument and the range', async (hours) => {
    const { client } = await connect();
    const error = await mcpError(client.getPrompt({ name: 'plan_day', arguments: { hours } }));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('"hours"');
    expect(error.message).toContain('between 0.5 and 16');
  });

  it('review_guidelines embeds the guidelines resource', async () => {
    const { client } = await connect();
    const current = textOf((await client.readResource({ uri: 'task://guidelines' })).contents[0]!);
    const result = await client.getPrompt({ name: 'review_guidelines', arguments: { focus: 'estimates' } });
    expect(result.messages[0]!.content).toEqual({
      type: 'resource',
      resource: { uri: 'task://guidelines', mimeType: 'text/plain', text: current },
    });
    expect((result.messages[1]!.content as { text: string }).text).toContain('focusing on estimates');
  });

  it('completes plan_day hours', async () => {
    const { client } = await connect();
    const { completion } = await client.complete({
      ref: { type: 'ref/prompt', name: 'plan_day' },
      argument: { name: 'hours', value: '' },
    });
    expect(completion.values).toContain('4');
  });
});

describe('demo MCP server: tools', () => {
  it('lists its tools with read-only hints where they apply', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual([
      'board_tasks',
      'build_report',
      'complete_task',
      'create_task',
      'list_tasks',
      'publish_document',
      'show_task_board',
      'update_guidelines',
      'weekly_report',
    ]);
    expect(byName.list_tasks!.annotations?.readOnlyHint).toBe(true);
    expect(byName.weekly_report!.annotations?.readOnlyHint).toBe(true); // it asks the user instead (elicitation.test.ts, the widget)
    expect(byName.create_task!.annotations?.readOnlyHint).toBe(false);
  });

  it('creates, lists and completes a task', async () => {
    const { client } = await connect();
    const title = `Fix flaky login test ${crypto.randomUUID().slice(0, 8)}`;
    const created = await client.callTool({
      name: 'create_task',
      arguments: { title, assignee: 'sam', estimateHours: 3 },
    });
    const task = (created.structuredContent as { task: { id: number; status: string } }).task;
    expect(task.status).toBe('open');

    const open = await client.callTool({ name: 'list_tasks', arguments: {} });
    expect((open.structuredContent as { tasks: Array<{ title: string }> }).tasks.map((t) => t.title)).toContain(title);

    const done = await client.callTool({ name: 'complete_task', arguments: { id: task.id } });
    expect(done.isError).toBeFalsy();
    const closed = await client.callTool({ name: 'list_tasks', arguments: { status: 'done' } });
    expect((closed.structuredContent as { tasks: Array<{ id: number }> }).tasks.map((t) => t.id)).toContain(task.id);
  });

  it('reports tool-level errors the model can act on', async () => {
    const { client } = await connect();
    const missing = await client.callTool({ name: 'complete_task', arguments: { id: 999_999 } });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('No task #999999');

    const tooBig = await client.callTool({
      name: 'create_task',
      arguments: { title: 'Rewrite everything', estimateHours: 40 },
    });
    expect(tooBig.isError).toBe(true);
  });
});

describe('demo MCP server: notifications (2026-07-28, subscriptions/listen)', () => {
  it('notifies a listener of the URIs it asked for, and of list changes', async () => {
    const watcher = await connect('watcher');
    const editor = await connect('editor');
    const updated: string[] = [];
    let listChanged = 0;
    watcher.client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    watcher.client.setNotificationHandler('notifications/resources/list_changed', () => void listChanged++);
    const subscription = await watcher.client.listen({
      resourceSubscriptions: ['task://guidelines'],
      resourcesListChanged: true,
    });
    expect(subscription.honoredFilter).toMatchObject({
      resourceSubscriptions: ['task://guidelines'],
      resourcesListChanged: true,
    });

    const text = `Guidelines v-${crypto.randomUUID()}: ship small.`;
    await editor.client.callTool({ name: 'update_guidelines', arguments: { text } });
    await waitFor(() => updated.includes('task://guidelines'), 'resources/updated on the listener');
    expect(textOf((await watcher.client.readResource({ uri: 'task://guidelines' })).contents[0]!)).toBe(text);

    const slug = `retro-${crypto.randomUUID().slice(0, 8)}`;
    await editor.client.callTool({
      name: 'publish_document',
      arguments: { slug, title: 'Sprint retro', markdown: '# Retro' },
    });
    await waitFor(() => listChanged > 0, 'resources/list_changed on the listener');
    // A URI it did not ask for: nothing (the published document is updated by publishing it again).
    await editor.client.callTool({
      name: 'publish_document',
      arguments: { slug, title: 'Sprint retro', markdown: '# Retro, v2' },
    });
    await editor.client.callTool({ name: 'update_guidelines', arguments: { text: `${text} (2)` } });
    await waitFor(() => updated.length >= 2, 'the second guidelines update');
    expect(updated).not.toContain(`docs://published/${slug}`);
    await subscription.close();
    expect(await subscription.closed).toBe('local');
  });

  it('a change made by a 2025 session reaches 2026 listeners, and the other way round', async () => {
    const modern = await connect('modern-watcher');
    const legacy = await connect('legacy-watcher', '2025-11-25');
    const editor = await connect('editor');
    const heardByModern: string[] = [];
    modern.client.setNotificationHandler(
      'notifications/resources/updated',
      (n) => void heardByModern.push(n.params.uri),
    );
    await modern.client.listen({ resourceSubscriptions: ['task://guidelines'] });
    await legacy.client.subscribeResource({ uri: 'task://guidelines' });

    await editor.client.callTool({
      name: 'update_guidelines',
      arguments: { text: `From 2026 ${crypto.randomUUID()}` },
    });
    await waitFor(
      () => legacy.notifications.find((n) => n.method === 'notifications/resources/updated'),
      'the 2025 session to hear a 2026 change',
    );
    await waitFor(() => heardByModern.length === 1, 'the 2026 listener');

    const legacyEditor = await connect('legacy-editor', '2025-11-25');
    await legacyEditor.client.callTool({
      name: 'update_guidelines',
      arguments: { text: `From 2025 ${crypto.randomUUID()}` },
    });
    await waitFor(() => heardByModern.length === 2, 'the 2026 listener to hear a 2025 change');
  });
});

describe('demo MCP server: notifications (2025-11-25 sessions)', () => {
  it('notifies subscribers when the guidelines change, and serves the new text', async () => {
    const watcher = await connect('watcher', '2025-11-25');
    const editor = await connect('editor', '2025-11-25');
    await watcher.client.subscribeResource({ uri: 'task://guidelines' });

    const text = `Guidelines v-${crypto.randomUUID()}: ship small.`;
    await editor.client.callTool({ name: 'update_guidelines', arguments: { text } });

    await waitFor(
      () =>
        watcher.notifications.find(
          (n) =>
            n.method === 'notifications/resources/updated' &&
            (n.params as { uri?: string })?.uri === 'task://guidelines',
        ),
      'resources/updated on the watcher',
    );
    expect(textOf((await watcher.client.readResource({ uri: 'task://guidelines' })).contents[0]!)).toBe(text);
    // The editor did not subscribe, so it hears nothing.
    expect(editor.notifications.filter((n) => n.method === 'notifications/resources/updated')).toEqual([]);
  });

  it('delivers the update to the session that made it inside its POST response stream', async () => {
    const self = await connect('self-editor', '2025-11-25');
    await self.client.subscribeResource({ uri: 'task://guidelines' });
    await self.client.callTool({ name: 'update_guidelines', arguments: { text: 'Only in-stream.' } });
    // The notification arrived before the tool result, on the same stream: no waiting needed.
    expect(self.notifications.some((n) => n.method === 'notifications/resources/updated')).toBe(true);
  });

  it('stops notifying after unsubscribe', async () => {
    const watcher = await connect('watcher', '2025-11-25');
    const editor = await connect('editor', '2025-11-25');
    await watcher.client.subscribeResource({ uri: 'task://guidelines' });
    await watcher.client.unsubscribeResource({ uri: 'task://guidelines' });
    await editor.client.callTool({ name: 'update_guidelines', arguments: { text: 'Nobody is listening.' } });
    await watcher.client.ping(); // a round trip for anything in flight
    expect(watcher.notifications.filter((n) => n.method === 'notifications/resources/updated')).toEqual([]);
  });

  it('refuses to subscribe to an unknown URI', async () => {
    const { client } = await connect('subscriber', '2025-11-25');
    const error = await mcpError(client.subscribeResource({ uri: 'task://unknown' }));
    expect(error.code).toBe(-32602);
  });

  it('announces list_changed when a document is published, and serves it', async () => {
    const watcher = await connect('watcher', '2025-11-25');
    const publisher = await connect('publisher', '2025-11-25');
    const slug = `retro-${crypto.randomUUID().slice(0, 8)}`;
    const before = (await listAllResources(watcher.client)).resources.length;

    const result = await publisher.client.callTool({
      name: 'publish_document',
      arguments: { slug, title: 'Sprint retro', markdown: '# Retro\n\nWhat went well: everything.' },
    });
    expect(result.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `docs://published/${slug}` }),
    );
    expect(publisher.notifications.some((n) => n.method === 'notifications/resources/list_changed')).toBe(true);
    await waitFor(
      () => watcher.notifications.find((n) => n.method === 'notifications/resources/list_changed'),
      'list_changed on the watcher',
    );

    const after = await listAllResources(watcher.client);
    expect(after.resources.length).toBe(before + 1);
    expect(after.resources.find((r) => r.uri === `docs://published/${slug}`)).toMatchObject({
      title: 'Sprint retro',
      mimeType: 'text/markdown',
    });
    const read = await watcher.client.readResource({ uri: `docs://published/${slug}` });
    expect(textOf(read.contents[0]!)).toContain('What went well');
  });
});
