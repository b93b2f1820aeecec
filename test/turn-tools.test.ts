import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, conversationStub, createConversation } from './helpers/api';
import {
  callTools,
  runScriptedTurn,
  say,
  scriptedModel,
  sseChunks,
  textOfChunks,
  toolResults,
  userMessage,
} from './helpers/turns';
import { turnIn } from './helpers/conversation';

const results = (model: ReturnType<typeof scriptedModel>, step = 1) => toolResults(model.doStreamCalls[step]!.prompt);

describe('images go to models that take them', () => {
  it('a small PNG becomes an image part for an image-capable model, from a resource and from a tool', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(['read_resource', { uri: 'assets://logo.png', server: 'demo' }], ['everything__get-tiny-image', {}])
        : say('ok'),
    );
    await runScriptedTurn(id, 'show the logo', model, {}, true);
    const parts = model.doStreamCalls[1]!.prompt.flatMap((m) => (m.role === 'tool' ? m.content : []));
    const files = parts.flatMap((p) =>
      p.type === 'tool-result' && p.output.type === 'content' ? p.output.value.filter((v) => v.type === 'file') : [],
    );
    expect(files.map((f) => f.mediaType)).toEqual(['image/png', 'image/png']);
    expect(results(model)[0]!.text).toContain('[Image resource: image/png, 291 B, uri assets://logo.png');
  });
});

describe('listing tools', () => {
  it('list_resources ranks by a query; list_resource_templates lists templates', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(['list_resources', { query: 'guidelines rules' }], ['list_resource_templates', { server: 'demo' }])
        : say('ok'),
    );
    // Offered only when the catalog in the system prompt does not show everything (here: a tiny budget).
    await runScriptedTurn(id, 'what is there?', model, { CATALOG_TOKEN_BUDGET: 100 });
    const offered = model.doStreamCalls[0]!.tools?.map((t) => t.name) ?? [];
    expect(offered).toEqual(
      expect.arrayContaining(['list_resources', 'list_resource_templates', 'read_resource', 'search_resource']),
    );
    const [list, templates] = results(model);
    expect(list!.text.split('\n')[1]).toContain('task://guidelines');
    expect(list!.text).not.toContain('docs://quarterly-report.pdf');
    expect(templates!.text).toContain('customer://{customerId}/profile [json]');
  });

  it('are not offered when the system prompt lists the whole catalog: every tool definition is re-sent at every step', async () => {
    const id = await createConversation();
    const model = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'what is there?', model);
    const offered = model.doStreamCalls[0]!.tools?.map((t) => t.name) ?? [];
    expect(offered).toContain('read_resource');
    expect(offered).not.toContain('list_resources');
    expect(offered).not.toContain('list_resource_templates');
    expect(offered).not.toContain('search_tools');
    const system = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'system')!.content as string;
    expect(system).not.toContain('list_resources');
  });
});

describe('MCP tool results, mapped faithfully', () => {
  it('resource links become readable; embedded resources are wrapped (text, and a textual blob) or described (binary); isError is an error', async () => {
    const id = await createConversation();
    const model = scriptedModel((call, i) => {
      if (i === 0)
        return callTools(
          ['everything__get-resource-links', { count: 2 }],
          ['everything__get-resource-reference', { resourceType: 'Text', resourceId: 3 }],
          ['everything__get-resource-reference', { resourceType: 'Blob', resourceId: 4 }],
          ['demo__complete_task', { id: 999_999 }],
        );
      const link = () => /\[Resource link: (\S+)/.exec(toolResults(call.prompt)[0]!.text)![1]!;
      // Follow the first link. "faulty" and "legacy" list it too, so the link alone does not decide
      // (a server cannot take over URIs another claims): the read must name the server.
      if (i === 1) return callTools(['read_resource', { uri: link() }]);
      if (i === 2) return callTools(['read_resource', { uri: link(), server: 'everything' }]);
      return say('ok');
    });
    await runScriptedTurn(id, 'use the tools', model);
    const [links, text, blob, failed] = results(model, 1);
    expect(links!.text).toContain('[Resource link: demo://resource/dynamic/blob/1');
    expect(text!.text).toContain(
      '<resource server="everything" uri="demo://resource/dynamic/text/3" mime="text/plain">',
    );
    // A blob declared text/plain whose bytes are UTF-8 is shown as the text it is (issue 25); other blobs are still described.
    expect(blob!.text).toContain(
      '<resource server="everything" uri="demo://resource/dynamic/blob/4" mime="text/plain">\nResource 4: This is a base64 blob',
    );
    expect(blob!.text).not.toContain('[Binary resource');
    expect(failed).toMatchObject({ error: true });
    expect(failed!.text).toContain('No task #999999');
    const unnamed = results(model, 2).at(-1)!;
    expect(unnamed).toMatchObject({ toolName: 'read_resource', error: true });
    expect(unnamed.text).toContain('everything');
    const followed = results(model, 3).at(-1)!;
    expect(followed).toMatchObject({ toolName: 'read_resource', error: false });
    expect(followed.text).toContain(
      '<resource server="everything" uri="demo://resource/dynamic/blob/1" mime="text/plain">',
    );
  });
});

describe('user-only prompts', () => {
  it('a server configured modelPrompts: false keeps its prompts out of the catalog and refuses invoke_prompt', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0 ? callTools(['invoke_prompt', { server: 'legacy', name: 'simple-prompt', arguments: {} }]) : say('ok'),
    );
    await runScriptedTurn(id, 'run the simple prompt', model);
    expect(results(model)[0]).toMatchObject({ error: true });
    expect(results(model)[0]!.text).toContain('for users only');
    const system = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'system')!.content as string;
    const legacySection = system.slice(system.indexOf('## Server "legacy"'), system.indexOf('## Server "minimal"'));
    expect(legacySection).not.toContain('Prompts (invoke_prompt)');
    expect(system.slice(system.indexOf('## Server "everything"'))).toContain('simple-prompt');
  });
});

describe('resuming a stream', () => {
  it('GET …/stream replays the running turn from its first chunk and follows it to the end', async () => {
    const id = await createConversation();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = scriptedModel(() => []);
    slow.doStream = async () => ({
      stream: new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: 'text-start', id: 't' });
          controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hello ' });
          await gate; // the client has "disconnected" by now
          controller.enqueue({ type: 'text-delta', id: 't', delta: 'world' });
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: undefined },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
          });
          controller.close();
        },
      }),
    });
    await runInDurableObject(await conversationStub(id), async (instance) => {
      await turnIn(instance, [userMessage('say hello')], { model: slow, acceptsImages: false, spec: 'mock' }); // nobody reads it
    });
    const resumed = api(`/v1/conversations/${id}/stream`);
    setTimeout(release, 200);
    const response = await resumed;
    expect(response.status).toBe(200);
    expect(textOfChunks(await sseChunks(response))).toBe('Hello world');
    expect((await api(`/v1/conversations/${id}/stream`)).status).toBe(204);
    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{ messages: Array<{ role: string }> }>();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('resource bytes per turn', () => {
  it('past MAX_RESOURCE_BYTES_PER_TURN, read_resource answers with an error the model can act on', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(
            ['read_resource', { uri: 'docs://test-matrix', server: 'demo' }],
            ['read_resource', { uri: 'docs://test-matrix', server: 'demo' }],
          )
        : say('ok'),
    );
    await runScriptedTurn(id, 'read it twice', model, { MAX_RESOURCE_BYTES_PER_TURN: 20_000 });
    const [first, second] = results(model);
    expect(first).toMatchObject({ error: false });
    expect(second).toMatchObject({ error: true });
    expect(second!.text).toContain('This turn may read 20000 bytes of resources');
  });
});
