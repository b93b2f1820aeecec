import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import type { ServerState } from '../src/mcp/catalog/catalog';
import type { ResourceRead } from '../src/mcp/sessions';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { callTool } from './helpers/conversation';

// Servers that bend the spec as real ones do (test/infra/bent-results.ts in front of SDK v2 servers): what the
// service accepts from them, how it reads it, and what it says about it.
// The warning is the user-facing text; spelt out once, here.
const NO_HINTS_WARNING = 'the result carries no cache hints (ttlMs, cacheScope): read as ttl 0, private';
const ALICE = { authorization: 'Bearer test-key-lenient', 'x-end-user': 'alice' };
const v2 = inject('v2Url');

const control = (key: string, action: string, body?: object) =>
  fetch(`${v2}/__control/${key}/${action}`, {
    method: body || action !== 'state' ? 'POST' : 'GET',
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

type Warning = { method: string; message: string };

async function catalogOf(id: string): Promise<Record<string, ServerState & { warnings?: Warning[] }>> {
  const response = await api(`/v1/conversations/${id}/catalog`, {}, ALICE);
  expect(response.status).toBe(200);
  return Object.fromEntries((await response.json<{ servers: ServerState[] }>()).servers.map((s) => [s.id, s]));
}

async function readAs(id: string, server: string, uri: string): Promise<ResourceRead & { cacheHint?: unknown }> {
  const response = await postJson(`/v1/conversations/${id}/resources/read`, { server, uri }, ALICE);
  if (response.status !== 200) throw new Error(`read failed: ${response.status} ${await response.text()}`);
  return response.json();
}

const textOf = (read: ResourceRead) => (read.contents[0] as { text: string }).text;

describe('lenient with servers that leave out the 2026 cache hints', () => {
  it.each([
    ['unhinted', 'JSON bodies'],
    ['unhinted-sse', 'SSE bodies'],
  ])('%s (%s): usable, read as ttl 0 / private, and the catalog says so', async (server) => {
    const id = await createConversation(ALICE);
    const state = (await catalogOf(id))[server]!;
    expect(state.status, state.error).toBe('connected');
    expect(state.protocolVersion).toBe('2026-07-28');
    expect(state.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['edit', 'add']));
    expect(state.resources.map((r) => r.uri)).toContain('v2://notes/public');
    expect(state.cacheHints?.tools).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(state.warnings).toEqual(expect.arrayContaining([{ method: 'tools/list', message: NO_HINTS_WARNING }]));

    // A read without hints is stale at once: the next read asks the server again, so a silent change is seen.
    const first = await readAs(id, server, 'v2://notes/public');
    expect(textOf(first)).toBe('public note, version 1');
    const key = `bent-${server === 'unhinted' ? 'strip-json' : 'strip-sse'}-strict`;
    await control(key, 'edit', { uri: 'v2://notes/public', text: 'public note, version 2', silent: true });
    expect(textOf(await readAs(id, server, 'v2://notes/public'))).toBe('public note, version 2');
    expect((await catalogOf(id))[server]!.warnings).toEqual(
      expect.arrayContaining([{ method: 'resources/read', message: NO_HINTS_WARNING }]),
    );

    // Tools work too (a tool call result has no hints to miss).
    const result = await callTool(await conversationStub(id), {
      server,
      name: 'edit',
      arguments: { uri: 'v2://notes/private', text: 'edited' },
    });
    expect(result.ok && result.value.content).toEqual([{ type: 'text', text: 'edited v2://notes/private' }]);
  });

  it('/v1/servers says the same before any conversation', async () => {
    const probe = await (await api('/v1/servers', {}, ALICE)).json<{
      servers: Array<{ id: string; status: string; warnings?: Warning[] }>;
    }>();
    const unhinted = probe.servers.find((s) => s.id === 'unhinted')!;
    expect(unhinted.status).toBe('connected');
    for (const method of ['tools/list', 'resources/list'])
      expect(unhinted.warnings).toContainEqual({ method, message: NO_HINTS_WARNING });
    expect(JSON.stringify(unhinted.warnings)).not.toContain('failed');
    const broken = probe.servers.find((s) => s.id === 'broken2025')!;
    expect(broken.warnings).toContainEqual({
      method: 'tools/list',
      message: expect.stringMatching(/^1 tool dropped: "broken_tool"/),
    });
  });
});

describe('lenient with a 2026 server that leaves out resultType', () => {
  it('its lists, reads and tool calls are read as complete, and the catalog says so', async () => {
    const id = await createConversation(ALICE);
    const state = (await catalogOf(id)).untyped!;
    expect(state.status, state.error).toBe('connected');
    expect(state.protocolVersion).toBe('2026-07-28');
    expect(state.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['edit', 'add']));
    expect(textOf(await readAs(id, 'untyped', 'v2://notes/public'))).toBe('public note, version 1');
    // A tool that ran is not lost for a missing word: its result is the answer.
    const result = await callTool(await conversationStub(id), {
      server: 'untyped',
      name: 'edit',
      arguments: { uri: 'v2://notes/private', text: 'edited' },
    });
    expect(result.ok && result.value.content).toEqual([{ type: 'text', text: 'edited v2://notes/private' }]);
    const warnings = (await catalogOf(id)).untyped!.warnings ?? [];
    for (const method of ['tools/list', 'resources/read', 'tools/call'])
      expect(warnings).toContainEqual({ method, message: 'the result carries no resultType: read as complete' });
  });
});

describe('lenient with a list that holds one broken entry', () => {
  it.each([
    ['broken', '2026-07-28'],
    ['broken2025', '2025-11-25'],
  ])('%s (%s): the entry is dropped, not the server, and the catalog names it', async (server, version) => {
    const id = await createConversation(ALICE);
    const state = (await catalogOf(id))[server]!;
    expect(state.status, state.error).toBe('connected');
    expect(state.protocolVersion).toBe(version);
    expect(state.tools.map((t) => t.name).sort()).toEqual(['add', 'confirm_delete', 'edit', 'slow_job']);
    expect(state.resources.map((r) => r.uri).sort()).toEqual([
      'v2://notes/private',
      'v2://notes/public',
      'v2://notes/short',
      'v2://notes/volatile',
    ]);
    const messages = Object.fromEntries((state.warnings ?? []).map((w) => [w.method, w.message]));
    expect(messages['tools/list']).toMatch(/^1 tool dropped: "broken_tool" \(inputSchema\.type: .+\)$/);
    expect(messages['resources/list']).toMatch(/^1 resource dropped: "nameless" \(uri: .+\)$/);
    // The hints are all there: no warning about them.
    expect(JSON.stringify(state.warnings)).not.toContain('cache hints');
    // The rest of the server works.
    expect(textOf(await readAs(id, server, 'v2://notes/public'))).toBe('public note, version 1');
  });
});
