import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { say, scriptedModel, sseChunks, textOfChunks } from './helpers/turns';
import { turnIn, withModel } from './helpers/conversation';

type ErrorBody = { error: { code: string; message: string } };
const historyLength = async (id: string) =>
  (await (await api(`/v1/conversations/${id}`)).json<{ messages: unknown[] }>()).messages.length;

describe('POST /v1/conversations/:id/prompts/run', () => {
  it('plan_day with hours "4": the prompt text is the turn input, and it is saved with the turn', async () => {
    const id = await createConversation();
    const model = scriptedModel(() => say('Here is your plan.'));
    const chunks = await runInDurableObject(await conversationStub(id), async (instance) => {
      const { newMessages } = await instance.parts.requests.input(
        { kind: 'prompt', server: 'demo', name: 'plan_day', arguments: { hours: '4' } },
        false,
      );
      const reader = (await turnIn(instance, newMessages, { model, acceptsImages: false, spec: 'mock' }))
        .reader()
        .getReader();
      const out = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
      return out;
    });
    expect(textOfChunks(chunks)).toBe('Here is your plan.');
    const firstUser = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'user')!;
    const text = firstUser.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    expect(text.startsWith('Plan my day: I have 4 hours')).toBe(true);
    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{
      messages: Array<{ role: string; parts: Array<{ text?: string }>; metadata?: unknown }>;
    }>();
    expect(messages[0]).toMatchObject({ role: 'user', metadata: { prompt: { server: 'demo', name: 'plan_day' } } });
    expect(messages[0]!.parts[0]!.text).toContain('I have 4 hours');
  });

  it('runs over HTTP with the offline model and streams', async () => {
    const id = await createConversation();
    const response = await postJson(`/v1/conversations/${id}/prompts/run`, {
      server: 'demo',
      name: 'review_guidelines',
      arguments: { focus: 'estimates' },
    });
    expect(response.status).toBe(200);
    expect(textOfChunks(await sseChunks(response)).length).toBeGreaterThan(0);
    expect(await historyLength(id)).toBe(3); // the prompt's two user messages and the answer
  });

  it.each([
    [{ hours: '40' }, 'between 0.5 and 16'],
    [{ hours: 'abc' }, 'between 0.5 and 16'],
    [{}, 'argument "hours" is required'],
    [{ hours: '4', minutes: '5' }, 'unknown argument "minutes"'],
    [{ hours: 4 }, 'argument "hours" must be a string'],
  ])('plan_day %o → 400 naming the argument; no model call, nothing stored', async (args, message) => {
    const id = await createConversation();
    const response = await postJson(`/v1/conversations/${id}/prompts/run`, {
      server: 'demo',
      name: 'plan_day',
      arguments: args,
    });
    expect(response.status).toBe(400);
    const body = await response.json<ErrorBody>();
    expect(body.error.code).toBe('invalid_argument');
    expect(body.error.message).toContain('hours' in args || message.includes('hours') ? 'hours' : 'minutes');
    expect(body.error.message).toContain(message);
    expect(await historyLength(id)).toBe(0);
  });

  it('?preview=1 returns the rendered messages and stores nothing', async () => {
    const id = await createConversation();
    const response = await postJson(`/v1/conversations/${id}/prompts/run?preview=1`, {
      server: 'demo',
      name: 'review_guidelines',
      arguments: {},
    });
    expect(response.status).toBe(200);
    const preview = await response.json<{
      messages: Array<{ role: string; parts: Array<{ type: string; text: string }> }>;
    }>();
    expect(preview.messages.map((m) => m.role)).toEqual(['user', 'user']);
    expect(preview.messages[0]!.parts[0]!.text).toMatch(
      /^<resource server="demo" uri="task:\/\/guidelines" mime="text\/plain">/,
    );
    expect(preview.messages[1]!.parts[0]!.text).toContain('Review the team guidelines above');
    expect(await historyLength(id)).toBe(0);
  });

  it('unknown server or prompt → 404', async () => {
    const id = await createConversation();
    expect((await postJson(`/v1/conversations/${id}/prompts/run`, { server: 'nope', name: 'x' })).status).toBe(404);
    const unknown = await postJson(`/v1/conversations/${id}/prompts/run`, { server: 'demo', name: 'nope' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json<ErrorBody>()).error.code).toBe('prompt_not_found');
  });

  it('a prompt that gives no messages → 502 prompt_empty; no turn runs and nothing is written', async () => {
    const LEAKY = { authorization: 'Bearer test-key-leaky', 'x-end-user': 'alice' };
    const id = await createConversation(LEAKY);
    const empty = await postJson(`/v1/conversations/${id}/prompts/run`, { server: 'echo', name: 'empty' }, LEAKY);
    expect(empty.status).toBe(502);
    expect((await empty.json<ErrorBody>()).error).toMatchObject({
      code: 'prompt_empty',
      message: expect.stringContaining('Prompt "empty" of MCP server "echo" gave no messages'),
    });
    const { messages } = await (await api(`/v1/conversations/${id}`, {}, LEAKY)).json<{ messages: unknown[] }>();
    expect(messages).toEqual([]);
  });

  it('server-everything: args-prompt with and without its optional argument; resource-prompt embeds a resource', async () => {
    const id = await createConversation();
    const preview = async (name: string, args: Record<string, string>) =>
      (
        await (
          await postJson(`/v1/conversations/${id}/prompts/run?preview=1`, {
            server: 'everything',
            name,
            arguments: args,
          })
        ).json<{ messages: Array<{ parts: Array<{ text: string }> }> }>()
      ).messages;
    expect((await preview('args-prompt', { city: 'Lyon' }))[0]!.parts[0]!.text).toBe("What's weather in Lyon?");
    expect((await preview('args-prompt', { city: 'Austin', state: 'Texas' }))[0]!.parts[0]!.text).toBe(
      "What's weather in Austin, Texas?",
    );
    const embedded = await preview('resource-prompt', { resourceType: 'Text', resourceId: '2' });
    expect(embedded.map((m) => m.parts[0]!.text).join('\n')).toContain(
      '<resource server="everything" uri="demo://resource/dynamic/text/2"',
    );
    const missing = await postJson(`/v1/conversations/${id}/prompts/run?preview=1`, {
      server: 'everything',
      name: 'args-prompt',
      arguments: {},
    });
    expect(missing.status).toBe(400);
    expect((await missing.json<ErrorBody>()).error.message).toContain('"city"');
  });
});

describe('POST /v1/conversations/:id/complete', () => {
  const complete = (id: string, body: unknown) => postJson(`/v1/conversations/${id}/complete`, body);

  it('completes prompt arguments, with and without context (server-everything)', async () => {
    const id = await createConversation();
    const ref = { type: 'ref/prompt', name: 'completable-prompt' };
    const withContext = await complete(id, {
      server: 'everything',
      ref,
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Engineering' } },
    });
    expect(withContext.status).toBe(200);
    expect((await withContext.json<{ completion: { values: string[] } }>()).completion.values).toEqual([
      'Alice',
      'Bob',
      'Charlie',
    ]);
    const without = await complete(id, { server: 'everything', ref, argument: { name: 'name', value: '' } });
    expect((await without.json<{ completion: { values: string[] } }>()).completion.values).toEqual([]);
  });

  it('completes template arguments (demo customer ids), and repeats cheaply', async () => {
    const id = await createConversation();
    const body = {
      server: 'demo',
      ref: { type: 'ref/resource', uri: 'customer://{customerId}/profile' },
      argument: { name: 'customerId', value: 'g' },
    };
    expect((await (await complete(id, body)).json<{ completion: { values: string[] } }>()).completion.values).toEqual([
      'globex',
    ]);
    expect((await (await complete(id, body)).json<{ completion: { values: string[] } }>()).completion.values).toEqual([
      'globex',
    ]);
  });

  it('a server without the completions capability gives an empty list; unknown refs are 404; bad bodies 400', async () => {
    const id = await createConversation();
    const none = await complete(id, {
      server: 'minimal',
      ref: { type: 'ref/resource', uri: 'mini://x/{y}' },
      argument: { name: 'y', value: '' },
    });
    expect(none.status).toBe(200);
    expect((await none.json<{ completion: { values: string[] } }>()).completion.values).toEqual([]);
    expect(
      (
        await complete(id, {
          server: 'demo',
          ref: { type: 'ref/prompt', name: 'nope' },
          argument: { name: 'x', value: '' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await complete(id, { server: 'demo', ref: { type: 'ref/other' }, argument: { name: 'x', value: '' } })).status,
    ).toBe(400);
  });
});

describe('attachments on a user message', () => {
  it('the large document arrives whole (in windows); the PDF as a descriptor; recorded in the message', async () => {
    const id = await createConversation();
    const full = (
      await (
        await postJson(`/v1/conversations/${id}/resources/read`, { server: 'demo', uri: 'docs://test-matrix' })
      ).json<{ contents: Array<{ text: string }> }>()
    ).contents[0]!.text;
    const model = scriptedModel(() => say('Got them.'));
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const { newMessages } = await withModel(
        instance,
        { model, acceptsImages: false, spec: 'mock' },
        { READ_WINDOW_CHARS: 4_000 },
        () =>
          instance.parts.requests.input(
            {
              kind: 'message',
              message: { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Check these' }] },
              attachments: [{ uri: 'docs://test-matrix' }, { server: 'demo', uri: 'docs://quarterly-report.pdf' }],
            },
            false,
          ),
      );
      const reader = (
        await turnIn(instance, newMessages, { model, acceptsImages: false, spec: 'mock' }, { READ_WINDOW_CHARS: 4_000 })
      )
        .reader()
        .getReader();
      while (!(await reader.read()).done);
    });
    const user = model.doStreamCalls[0]!.prompt.find((m) => m.role === 'user')!;
    const texts = user.content.map((p) => (p.type === 'text' ? p.text : ''));
    expect(texts[0]).toBe('Check these');
    const windows = texts.filter((t) => t.includes('uri="docs://test-matrix"'));
    expect(windows).toHaveLength(Math.ceil(full.length / 4_000));
    expect(windows.map((w) => /<resource [^>]*>\n([\s\S]*)\n<\/resource>/.exec(w)![1]).join('')).toBe(full);
    // The attached PDF goes as its text (converted), after the line that says what it is.
    expect(texts.at(-1)).toMatch(/^\[Document: application\/pdf, 2\.7 KB, "Quarterly report Q3", 3 pages/);
    expect(texts.at(-1)).toContain('pages="pages 1-3 of 3"');
    expect(JSON.stringify(user)).not.toContain('JVBERi0');
    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{
      messages: Array<{ metadata?: { attachments?: unknown } }>;
    }>();
    expect(messages[0]!.metadata?.attachments).toEqual([
      { server: 'demo', uri: 'docs://test-matrix' },
      { server: 'demo', uri: 'docs://quarterly-report.pdf' },
    ]);
  });

  it('over HTTP: attachments are accepted; too many → 413; an unknown one → 404; nothing is stored on failure', async () => {
    const id = await createConversation();
    const ok = await postJson(`/v1/conversations/${id}/messages`, {
      text: 'What does this say about estimates?',
      attachments: [{ server: 'demo', uri: 'task://guidelines' }],
    });
    expect(ok.status).toBe(200);
    await sseChunks(ok);
    expect(await historyLength(id)).toBe(2);

    const tooMany = await postJson(`/v1/conversations/${id}/messages`, {
      text: 'all of them',
      attachments: Array.from({ length: 9 }, () => ({ server: 'demo', uri: 'task://guidelines' })),
    });
    expect(tooMany.status).toBe(413);
    expect((await tooMany.json<ErrorBody>()).error.code).toBe('too_many_attachments');
    const unknown = await postJson(`/v1/conversations/${id}/messages`, {
      text: 'this',
      attachments: [{ server: 'demo', uri: 'customer://nobody/profile' }],
    });
    expect(unknown.status).toBe(404);
    expect(await historyLength(id)).toBe(2);
  });
});

describe('pinned resources', () => {
  const systemOf = (model: ReturnType<typeof scriptedModel>, call = 0) =>
    model.doStreamCalls[call]!.prompt.find((m) => m.role === 'system')!.content as string;

  it('a pinned resource is in every model call, current after resources/updated; over budget it stays in the catalog', async () => {
    const { connectDemoClient } = await import('./helpers/demo-client');
    const id = await createConversation();
    const first = scriptedModel(() => say('ok'));
    await runInDurableObject(await conversationStub(id), async (instance) => {
      const reader = (
        await turnIn(instance, [{ id: 'a', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], {
          model: first,
          acceptsImages: false,
          spec: 'mock',
        })
      )
        .reader()
        .getReader();
      while (!(await reader.read()).done);
    });
    const system = systemOf(first);
    const guidelinesSection = system.slice(
      system.indexOf('## Server "demo"'),
      system.indexOf('## Server "everything"'),
    );
    expect(guidelinesSection.indexOf('<instructions server="demo">')).toBeLessThan(
      guidelinesSection.indexOf('Pinned reference material'),
    );
    expect(guidelinesSection).toContain('<resource server="demo" uri="task://guidelines"');
    expect(system).toContain('docs://test-matrix Release test matrix 4.18 [md 12K]'); // in the catalog
    expect(system).not.toContain('Release recommendation'); // not pinned: over budget
    expect(system).toContain('shared by everyone.'); // pinned by the minimal server's own annotations
    expect(system).not.toContain('for one user only'); // not annotated

    const text = `Pinned rules ${crypto.randomUUID()}`;
    const { client, transport } = await connectDemoClient('editor');
    await client.callTool({ name: 'update_guidelines', arguments: { text } });
    await transport.terminateSession();
    const { waitFor } = await import('./helpers/demo-client');
    await waitFor(async () => {
      const next = scriptedModel(() => say('ok'));
      await runInDurableObject(await conversationStub(id), async (instance) => {
        const reader = (
          await turnIn(
            instance,
            [{ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'again' }] }],
            {
              model: next,
              acceptsImages: false,
              spec: 'mock',
            },
          )
        )
          .reader()
          .getReader();
        while (!(await reader.read()).done);
      });
      return systemOf(next).includes(text) ? true : undefined;
    }, 'the new guidelines in the system prompt');
  });

  it('a required pin on a server that is down fails the turn with 502 naming it; nothing is stored', async () => {
    const { inject } = await import('vitest');
    const control = inject('faultControlUrl');
    const id = await createConversation();
    await fetch(`${control}/mode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'down' }),
    });
    try {
      const response = await postJson(`/v1/conversations/${id}/messages`, { text: 'hello' });
      expect(response.status).toBe(502);
      const body = await response.json<ErrorBody>();
      expect(body.error.code).toBe('pinned_resource_unavailable');
      expect(body.error.message).toContain('demo://resource/dynamic/text/1');
      expect(body.error.message).toContain('"faulty"');
      expect(await historyLength(id)).toBe(0);
    } finally {
      await fetch(`${control}/mode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'pass' }),
      });
    }
    // The server is back; once its connection back-off has passed, turns run again.
    const { waitFor } = await import('./helpers/demo-client');
    const ok = await waitFor(
      async () => {
        const response = await postJson(`/v1/conversations/${id}/messages`, {
          text: 'What do the team guidelines say about owners?',
        });
        return response.status === 200 ? response : undefined;
      },
      'a turn after the server is back',
      10_000,
    );
    await sseChunks(ok);
    expect(await historyLength(id)).toBe(2);
  });
});

describe('optional pins that cannot be read', () => {
  it('are skipped with a notice in the stream, right after its start', async () => {
    const { env } = await import('cloudflare:workers');
    const { loadConfig } = await import('../src/config');
    const { buildSessions } = await import('./helpers/sessions');
    const { readPinned } = await import('../src/prompt/pinned');
    const { LiveStream } = await import('../src/turn/live-stream');
    const id = await createConversation();
    await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const { mcpServers } = loadConfig(env);
      const demo = {
        ...mcpServers.find((s) => s.id === 'demo')!,
        pin: [
          { uri: 'task://guidelines', required: false },
          { uri: 'customer://nobody/profile', required: false },
        ],
      };
      const { sessions, settings } = buildSessions(state.storage, [demo]);
      const pinned = await readPinned(sessions, await sessions.catalog(), {
        configs: [demo],
        settings,
        reuseSince: Date.now(),
      });
      expect(pinned.byServer.get('demo')).toHaveLength(1);
      expect(pinned.notices).toEqual([
        expect.stringContaining('Pinned resource customer://nobody/profile on server "demo" was skipped: '),
      ]);

      const source = new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'start' });
          controller.enqueue({ type: 'finish' });
          controller.close();
        },
      });
      const live = new LiveStream(
        source,
        pinned.notices.map((message) => ({ type: 'data-notice' as const, data: { message } })),
      );
      const reader = live.reader().getReader();
      const types: string[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) types.push(r.value.type);
      expect(types).toEqual(['start', 'data-notice', 'finish']);
      await sessions.release();
    });
  });
});
