import { describe, expect, it } from 'vitest';
import { catalog, conversationStub, createConversation, read, textOf } from './helpers/api';
import { waitFor } from './helpers/demo-client';
import { callTool } from './helpers/conversation';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';

// Against @modelcontextprotocol/server-everything, a third-party server
// started on 127.0.0.1 by test/infra/global-setup.ts.
describe('server-everything', () => {
  it('full catalog: 7 resources, 2 templates, 4 prompts, tools and instructions', async () => {
    const id = await createConversation();
    const { everything } = await catalog(id);
    expect(everything!.status).toBe('connected');
    expect(everything!.serverInfo?.name).toBe('mcp-servers/everything');
    expect(everything!.instructions).toContain('Everything Server');
    expect(everything!.resources).toHaveLength(7);
    expect(everything!.resources.every((r) => r.uri.startsWith('demo://resource/static/document/'))).toBe(true);
    expect(everything!.resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    expect(everything!.prompts.map((p) => p.name).sort()).toEqual([
      'args-prompt',
      'completable-prompt',
      'resource-prompt',
      'simple-prompt',
    ]);
    expect(everything!.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'gzip-file-as-resource', 'toggle-subscriber-updates']),
    );
  });

  it('reads a static document whole', async () => {
    const id = await createConversation();
    const doc = (await catalog(id)).everything!.resources.find((r) => r.mimeType === 'text/markdown')!;
    const result = await read(id, { server: 'everything', uri: doc.uri });
    expect(['miss', 'kv']).toContain(result.cache);
    expect(textOf(result).length).toBeGreaterThan(500);
    expect(result.contents[0]!.size).toBe(new TextEncoder().encode(textOf(result)).byteLength);
  });

  it('reads templated URIs: text as text, blob as base64 never decoded', async () => {
    const id = await createConversation();
    const text = await read(id, { server: 'everything', uri: 'demo://resource/dynamic/text/3' });
    expect(textOf(text)).toMatch(/^Resource 3: This is a plaintext resource/);

    const blob = await read(id, { server: 'everything', uri: 'demo://resource/dynamic/blob/4' });
    const entry = blob.contents[0]!;
    expect('text' in entry).toBe(false);
    if (!('blob' in entry)) throw new Error('expected a blob');
    const decoded = atob(entry.blob);
    expect(decoded).toMatch(/^Resource 4: This is a base64 blob/);
    expect(entry.size).toBe(decoded.length);
  });

  it('a blob declared text/plain that is valid UTF-8 is shown to the model as text; the API still returns the blob', async () => {
    const id = await createConversation();
    const uri = 'demo://resource/dynamic/blob/7';
    const model = scriptedModel((call, i) =>
      i === 0
        ? callTools(['read_resource', { uri, server: 'everything' }])
        : say(toolResults(call.prompt)[0]!.text.slice(0, 200)),
    );
    await runScriptedTurn(id, 'read blob 7', model);
    const shown = toolResults(model.doStreamCalls[1]!.prompt)[0]!;
    expect(shown.error).toBe(false);
    expect(shown.text).toMatch(
      new RegExp(`^<resource server="everything" uri="${uri}" mime="text/plain">\\nResource 7: This is a base64 blob`),
    );
    expect(shown.text).not.toContain('Binary resource');
    const api = (await read(id, { server: 'everything', uri })).contents[0]!;
    expect('blob' in api && atob(api.blob)).toMatch(/^Resource 7: This is a base64 blob/);
  });

  it('subscribes to what it read: toggle-subscriber-updates → resources/updated → the next read refetches', async () => {
    const id = await createConversation();
    const doc = (await catalog(id)).everything!.resources[0]!;
    await read(id, { server: 'everything', uri: doc.uri }); // a miss, or a KV hit if another conversation read it
    expect((await read(id, { server: 'everything', uri: doc.uri })).cache).toBe('memory');

    const stub = await conversationStub(id);
    const toggled = await callTool(stub, { server: 'everything', name: 'toggle-subscriber-updates', arguments: {} });
    expect(toggled.ok).toBe(true);
    // The server sends updates every 5 s; an invalidated entry is read from the server again.
    await waitFor(
      async () => ((await read(id, { server: 'everything', uri: doc.uri })).cache === 'miss' ? true : undefined),
      'an invalidation',
      12_000,
    );
    await callTool(stub, { server: 'everything', name: 'toggle-subscriber-updates', arguments: {} });
  });

  it('gzip-file-as-resource → list_changed → the new blob resource is in the catalog and readable', async () => {
    const id = await createConversation();
    const before = (await catalog(id)).everything!.resources.length;
    const stub = await conversationStub(id);
    const name = `notes-${crypto.randomUUID().slice(0, 8)}.txt.gz`;
    const result = await callTool(stub, {
      server: 'everything',
      name: 'gzip-file-as-resource',
      arguments: {
        name,
        data: `data:text/plain;base64,${btoa('hello from the edge '.repeat(20))}`,
        outputType: 'resourceLink',
      },
    });
    expect(result.ok).toBe(true);

    const added = await waitFor(
      async () => (await catalog(id)).everything!.resources.find((r) => r.name === name),
      'the gzip resource in the catalog',
    );
    expect(added.mimeType).toBe('application/gzip');
    expect((await catalog(id)).everything!.resources.length).toBe(before + 1);

    const gz = await read(id, { server: 'everything', uri: added.uri });
    const entry = gz.contents[0]!;
    if (!('blob' in entry)) throw new Error('expected a blob');
    const bytes = Uint8Array.from(atob(entry.blob), (c) => c.charCodeAt(0));
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]); // gzip magic: the bytes are intact
    expect(entry.size).toBe(bytes.byteLength);
  });
});
