import { runInDurableObject } from 'cloudflare:test';
import type { UIMessageChunk } from 'ai';
import { describe, expect, inject, it } from 'vitest';
import { OfflineModel } from '../src/models/offline';
import { buildSystemPrompt } from '../src/prompt/system-prompt';
import { SYNTHETIC_TOOLS } from '../src/tools/synthetic';
import { estimateTokens } from '../src/prompt/tokens';
import type { ServerState } from '../src/mcp/catalog/catalog';
import { api, catalog, conversationStub, createConversation, postJson, read } from './helpers/api';
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

const systemOf = (prompt: { role: string; content: unknown }[]) =>
  prompt
    .filter((m) => m.role === 'system')
    .map((m) => String(m.content))
    .join('\n');
const sentToModel = (model: ReturnType<typeof scriptedModel>) =>
  JSON.stringify(model.doStreamCalls.map((c) => c.prompt));

describe('the model sees a catalog, and reads through synthetic tools', () => {
  it('gets the catalog and no resource content; reads the large document whole, window by window', async () => {
    const id = await createConversation();
    const full = (await read(id, { server: 'demo', uri: 'docs://test-matrix' })).contents[0] as { text: string };
    const model = scriptedModel((call, index) => {
      if (index === 0) return callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo' }]);
      const last = toolResults(call.prompt).at(-1)!.text;
      const next = /"offset":(\d+)/.exec(last);
      return next
        ? callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo', offset: Number(next[1]) }])
        : say('Read it all.');
    });
    const chunks = await runScriptedTurn(id, 'What is the output format of the release test matrix?', model, {
      READ_WINDOW_CHARS: 5_000,
      MAX_STEPS: 8,
    });

    const system = systemOf(model.doStreamCalls[0]!.prompt);
    expect(system).toContain('docs://test-matrix');
    expect(system).toContain('task://guidelines');
    expect(system).not.toContain('Acme Tasks Android'); // only in the document's body (pinned in the test config, but over the pin budget)
    expect(system).not.toContain('Release recommendation'); // ditto
    // The one content the system prompt carries is what config pins: the guidelines.
    expect(system).toContain('Pinned reference material');
    expect(system).toContain('<resource server="demo" uri="task://guidelines" mime="text/plain">');

    // Each step is sent only the newest window (the older ones are named, not repeated): the whole
    // read costs the document about once, not once per step.
    const windows = model.doStreamCalls
      .slice(1)
      .map((call) => toolResults(call.prompt).filter((r) => r.toolName === 'read_resource'));
    // Windows of 5,000 characters at most, each ending with a line (window-end.ts): a few more than 5,000 apart.
    expect(windows.length).toBeGreaterThanOrEqual(Math.ceil(full.text.length / 5_000));
    expect(windows.length).toBeLessThanOrEqual(Math.ceil(full.text.length / 4_000));
    for (const sent of windows) expect(sent).toHaveLength(1);
    const newest = windows.map((sent) => sent[0]!.text);
    const bodies = newest.map((w) => /<resource [^>]*>\n([\s\S]*)\n<\/resource>/.exec(w)![1]!);
    expect(bodies.join('')).toBe(full.text); // nothing dropped, nothing repeated
    for (const body of bodies.slice(0, -1)) expect(body.endsWith('\n')).toBe(true);
    const lastStart = full.text.length - bodies.at(-1)!.length;
    const firstEnd = bodies[0]!.length;
    expect(newest.reduce((sum, w) => sum + w.length, 0)).toBeLessThan(full.text.length * 1.2);
    expect(newest.at(-1)).toContain('Release recommendation: NO-GO');
    expect(newest.at(-1)).toMatch(
      new RegExp(
        `^\\[Read before in this turn and not repeated: characters 0-${lastStart} of docs://test-matrix\\.\\]`,
      ),
    );
    expect(newest[0]).toContain(`part="characters 0-${firstEnd} of ${full.text.length}"`);
    expect(newest[0]).toContain(
      `call read_resource with {"uri":"docs://test-matrix","server":"demo","offset":${firstEnd}}`,
    );
    // The calls of the dropped windows went with them: every call sent has its result.
    const lastPrompt = model.doStreamCalls.at(-1)!.prompt;
    const calls = lastPrompt.flatMap((m) =>
      m.role === 'assistant' ? m.content.filter((p) => p.type === 'tool-call') : [],
    );
    expect(calls).toHaveLength(1);
    expect(textOfChunks(chunks)).toBe('Read it all.');
  });

  it('a PDF becomes its text and a PNG a descriptor: no base64 ever reaches the model', async () => {
    const id = await createConversation();
    const model = scriptedModel((_call, index) =>
      index === 0
        ? callTools(
            ['read_resource', { uri: 'docs://quarterly-report.pdf', server: 'demo' }],
            ['read_resource', { uri: 'assets://logo.png', server: 'demo' }],
          )
        : say('Described.'),
    );
    await runScriptedTurn(id, 'Show me the quarterly report and the logo', model);
    const results = toolResults(model.doStreamCalls[1]!.prompt);
    expect(results[0]!.text).toMatch(
      /^\[Document: application\/pdf, 2\.7 KB, "Quarterly report Q3", 3 pages, uri docs:\/\/quarterly-report\.pdf, server demo/,
    );
    expect(results[0]!.text).toContain('9 tasks were overdue');
    expect(results[1]!.text).toMatch(/^\[Binary resource: image\/png, 291 B, "Team logo", uri assets:\/\/logo\.png/);
    const everything = sentToModel(model);
    expect(everything).not.toContain('JVBERi0'); // "%PDF-" in base64
    expect(everything).not.toContain('iVBORw0KGgo'); // the PNG signature in base64
  });

  it('invoke_prompt with bad arguments is a tool error the model can act on', async () => {
    const id = await createConversation();
    const model = scriptedModel((_call, index) =>
      index === 0
        ? callTools(
            ['invoke_prompt', { server: 'demo', name: 'plan_day', arguments: { hours: '40' } }],
            ['invoke_prompt', { server: 'demo', name: 'plan_day', arguments: { minutes: '30' } }],
            ['invoke_prompt', { server: 'demo', name: 'plan_day', arguments: { hours: '4' } }],
          )
        : say('ok'),
    );
    await runScriptedTurn(id, 'plan my day', model);
    const [tooMany, unknown, good] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(tooMany).toMatchObject({ error: true });
    expect(tooMany!.text).toContain('"hours"');
    expect(tooMany!.text).toContain('between 0.5 and 16');
    expect(unknown).toMatchObject({ error: true });
    expect(unknown!.text).toContain('unknown argument "minutes"');
    expect(good).toMatchObject({ error: false });
    expect(good!.text).toContain('[user] Plan my day: I have 4 hours');
  });

  it('an ambiguous URI is a tool error listing the candidate servers; an unknown one lists the closest URIs', async () => {
    const id = await createConversation();
    const uri = (await catalog(id)).everything!.resources[0]!.uri;
    const model = scriptedModel((_call, index) =>
      index === 0
        ? callTools(['read_resource', { uri }], ['read_resource', { uri: 'docs://test-matrx', server: 'demo' }])
        : say('ok'),
    );
    await runScriptedTurn(id, 'read it', model);
    const [ambiguous, unknown] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(ambiguous).toMatchObject({ error: true });
    expect(ambiguous!.text).toContain('everything, faulty, legacy');
    expect(unknown).toMatchObject({ error: true });
    expect(unknown!.text).toContain('Closest known URIs: docs://test-matrix');
  });

  it('at the step limit, one last step without tools answers; the finish chunk and the metadata agree', async () => {
    const id = await createConversation();
    const model = scriptedModel((call) =>
      call.tools?.length
        ? callTools(['read_resource', { uri: 'task://guidelines', server: 'demo' }])
        : say('I read the guidelines three times; what is left: reading them.'),
    );
    const chunks = await runScriptedTurn(id, 'loop forever', model, { MAX_STEPS: 3 });
    // Three steps with tools, then one without any, told why.
    expect(model.doStreamCalls).toHaveLength(4);
    expect(model.doStreamCalls.slice(0, 3).every((call) => (call.tools?.length ?? 0) > 0)).toBe(true);
    const last = model.doStreamCalls[3]!;
    expect(last.tools ?? []).toEqual([]);
    expect(JSON.stringify(last.prompt[0])).toContain('You have used all 3 tool steps of this turn');
    expect(textOfChunks(chunks)).toContain('what is left: reading them');
    const finish = chunks.find((c) => c.type === 'finish') as {
      finishReason?: string;
      messageMetadata?: { finishReason?: string; stepLimitReached?: boolean };
    };
    expect(finish.finishReason).toBe('stop');
    expect(finish.messageMetadata).toMatchObject({ finishReason: 'stop', stepLimitReached: true });
    // Saved with the answer, so a reload shows it too.
    const saved = (
      await (
        await api(`/v1/conversations/${id}`)
      ).json<{ messages: Array<{ role: string; metadata?: { stepLimitReached?: boolean } }> }>()
    ).messages;
    expect(saved.at(-1)).toMatchObject({ role: 'assistant', metadata: { stepLimitReached: true } });
  });

  it('the offline model answers at the step limit too (MAX_STEPS 1)', async () => {
    const id = await createConversation();
    const stub = await conversationStub(id);
    const chunks = await runInDurableObject(stub, async (instance) => {
      const live = await turnIn(
        instance,
        [userMessage('What do the team guidelines say about estimates?')],
        { model: new OfflineModel(), acceptsImages: false, spec: 'offline' },
        { MAX_STEPS: 1 },
      );
      const all: UIMessageChunk[] = [];
      const reader = live.reader().getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) all.push(r.value);
      return all;
    });
    expect(chunks.filter((c) => c.type === 'tool-input-available')).toHaveLength(1);
    expect(textOfChunks(chunks)).toContain('Estimate in hours');
  });
});

describe('failures leave the history as it was', () => {
  it('a model failure mid-turn streams an error, saves nothing, and the conversation goes on', async () => {
    const id = await createConversation();
    const before = (await (await api(`/v1/conversations/${id}`)).json<{ messages: unknown[] }>()).messages.length;
    const broken = scriptedModel(() => [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Half an ans' },
      { type: 'error', error: new Error('provider exploded') },
    ]);
    const chunks = await runScriptedTurn(id, 'hello', broken);
    const error = chunks.find((c) => c.type === 'error') as { errorText: string } | undefined;
    expect(error?.errorText).toContain('provider exploded');
    expect((await (await api(`/v1/conversations/${id}`)).json<{ messages: unknown[] }>()).messages.length).toBe(before);

    const next = await postJson(`/v1/conversations/${id}/messages`, {
      text: 'What do the team guidelines say about estimates?',
    });
    expect(next.status).toBe(200);
    expect(textOfChunks(await sseChunks(next))).toContain('Estimate in hours');
    const after = await (await api(`/v1/conversations/${id}`)).json<{ messages: Array<{ role: string }> }>();
    expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});

describe('POST /v1/conversations/:id/messages with the offline model', () => {
  it('streams a read_resource step and an answer quoting the guidelines; saves both messages', async () => {
    const id = await createConversation();
    const response = await postJson(`/v1/conversations/${id}/messages`, {
      text: 'What do the team guidelines say about estimates?',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const chunks = await sseChunks(response);
    expect(chunks.find((c) => c.type === 'tool-input-available')).toMatchObject({
      toolName: 'read_resource',
      input: { uri: 'task://guidelines', server: 'demo' },
    });
    const answer = textOfChunks(chunks);
    expect(answer).toContain('From task://guidelines');
    expect(answer).toContain('Estimate in hours, never more than 8');
    const finish = chunks.find((c) => c.type === 'finish') as {
      messageMetadata?: { finishReason?: string; usage?: { totalTokens?: number } };
    };
    expect(finish.messageMetadata?.finishReason).toBe('stop');
    expect(finish.messageMetadata?.usage?.totalTokens).toBeGreaterThan(0);

    const { messages } = await (await api(`/v1/conversations/${id}`)).json<{
      messages: Array<{ role: string; parts: Array<{ type: string }> }>;
    }>();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[1]!.parts.map((p) => p.type)).toContain('tool-read_resource');
  });

  it('reads from a second server (server-everything) when the question is about its documents', async () => {
    const id = await createConversation();
    const doc = (await catalog(id)).everything!.resources.find((r) => r.uri.endsWith('architecture.md'))!;
    const chunks = await sseChunks(
      await postJson(`/v1/conversations/${id}/messages`, { text: `Explain the ${doc.name} document` }),
    );
    const call = chunks.find((c) => c.type === 'tool-input-available') as { input: { uri: string } };
    expect(call.input.uri).toBe(doc.uri);
    expect(textOfChunks(chunks)).toContain(`From ${doc.uri}`);
  });

  it('accepts the useChat body shape and refuses bad ones', async () => {
    const id = await createConversation();
    const useChatBody = {
      id,
      trigger: 'submit-message',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'list resources about customers' }] }],
    };
    const ok = await postJson(`/v1/conversations/${id}/messages`, useChatBody);
    expect(ok.status).toBe(200);
    expect((await sseChunks(ok)).some((c) => c.type === 'tool-input-available')).toBe(true);

    for (const [body, status] of [
      [{}, 400],
      [{ messages: [{ role: 'assistant', parts: [] }] }, 400],
      [{ text: 'x'.repeat(40_000) }, 413],
      [{ text: '   ' }, 400],
    ] as const) {
      const response = await postJson(`/v1/conversations/${id}/messages`, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(status);
    }
    expect((await postJson(`/v1/conversations/${crypto.randomUUID()}/messages`, { text: 'hi' })).status).toBe(404);
  });

  it('GET …/stream answers 204 when no turn is running', async () => {
    const id = await createConversation();
    expect((await api(`/v1/conversations/${id}/stream`)).status).toBe(204);
  });
});

describe('POST /v1/conversations/:id/resources/read shows what the model would see', () => {
  it('returns the same rendering as read_resource', async () => {
    const id = await createConversation();
    const viaApi = await (
      await postJson(`/v1/conversations/${id}/resources/read`, { uri: 'docs://quarterly-report.pdf', server: 'demo' })
    ).json<{
      model: { text: string };
    }>();
    const model = scriptedModel((_c, i) =>
      i === 0 ? callTools(['read_resource', { uri: 'docs://quarterly-report.pdf', server: 'demo' }]) : say('ok'),
    );
    await runScriptedTurn(id, 'report', model);
    expect(toolResults(model.doStreamCalls[1]!.prompt)[0]!.text).toBe(viaApi.model.text);
  });
});

describe('system prompt budget', () => {
  it('10,000 resources: the catalog stays within budget, relevant entries are kept, the rest is announced', () => {
    const resources = Array.from({ length: 10_000 }, (_, i) => ({
      uri: `bulk://invoices/${i}`,
      name: `invoice-${i}`,
      title: `Invoice ${i} for ${['Acme', 'Globex', 'Initech', 'Umbrella'][i % 4]}`,
      mimeType: 'application/json',
      size: 1200 + i,
      description: `Billing record number ${i}`,
    }));
    const server: ServerState = {
      id: 'bulk',
      status: 'connected',
      skills: [],
      instructions: 'Invoices by number.',
      tools: [],
      resources,
      resourceTemplates: [],
      prompts: [],
      fetchedAt: {},
    };
    const build = (conversationText: string) =>
      buildSystemPrompt({
        servers: [server],
        conversationText,
        modelPrompts: () => true,
        settings: { CATALOG_TOKEN_BUDGET: 1_500, INSTRUCTIONS_MAX_CHARS: 4_000 },
        offerable: SYNTHETIC_TOOLS,
      });
    const { text, shown, hidden, relevant, offered } = build('show me invoice 7777');
    // The budget covers the stable catalog and the entries sent with the message together.
    expect(estimateTokens(text) + estimateTokens(relevant ?? '')).toBeLessThan(1_500 + 400); // plus the fixed base text
    expect(shown + hidden).toBe(10_000);
    expect(text).toContain(
      `… ${hidden} more not listed here: list_resources with server "bulk" and a query finds them`,
    );
    expect(offered.has('list_resources')).toBe(true);
    // The relevant entry goes with the message; the system prompt is the same whatever the question.
    expect(relevant).toContain(
      'bulk://invoices/7777 Invoice 7777 for Globex [json 8.8K] Billing record number 7777 [server bulk]',
    );
    expect(text).not.toContain('bulk://invoices/7777');
    expect(build('what about invoice 1234?').text).toBe(text);
    expect(build('what about invoice 1234?').relevant).toContain('bulk://invoices/1234');
  });
});

describe('a real server with 10,000 resources', () => {
  it('is listed whole (20 pages), and the system prompt stays within budget with the relevant entry in it', async () => {
    const { runInDurableObject } = await import('cloudflare:test');
    const { buildSessions } = await import('./helpers/sessions');
    const { conversationStub } = await import('./helpers/api');
    const id = await createConversation();
    await runInDurableObject(await conversationStub(id), async (_instance, state) => {
      const bulk = {
        id: 'bulk',
        url: inject('minimalUrl').replace(/\/mcp$/, '/bulk'),
        transport: 'streamable-http' as const,
        headers: {},
        cacheScope: 'shared' as const,
        autoApprove: [],
        modelPrompts: true,
        pin: [],
      };
      const { sessions, settings } = buildSessions(state.storage, [bulk]);
      const [listed] = await sessions.catalog();
      expect(listed!.resources).toHaveLength(10_000);
      const prompt = buildSystemPrompt({
        servers: [listed!],
        conversationText: 'What is the total of invoice 7777?',
        modelPrompts: () => true,
        settings,
        offerable: SYNTHETIC_TOOLS,
      });
      expect(estimateTokens(prompt.text) + estimateTokens(prompt.relevant ?? '')).toBeLessThan(
        settings.CATALOG_TOKEN_BUDGET + 400,
      );
      expect(prompt.relevant).toContain('bulk://invoices/7777');
      expect(prompt.text).toContain(`… ${prompt.hidden} more not listed here`);
      expect(prompt.hidden).toBeGreaterThan(9_000);
      const read = await sessions.readResource('bulk', 'bulk://invoices/7777', { reuseSince: Date.now() });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
        invoice: 7777,
        customer: 'Globex',
      });
      await sessions.release();
    });
  });
});

describe('reads from earlier turns', () => {
  it('are sent again up to a budget; older ones become a note naming them, while the history keeps them whole', async () => {
    const id = await createConversation();
    const full = (await read(id, { server: 'demo', uri: 'docs://test-matrix' })).contents[0] as { text: string };
    const readMatrix = () =>
      scriptedModel((_call, index) =>
        index === 0 ? callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo' }]) : say('Done.'),
      );
    const settings = { EARLIER_READS_BUDGET_CHARS: 20_000 };
    await runScriptedTurn(id, 'Read the matrix (1).', readMatrix(), settings);
    await runScriptedTurn(id, 'Read the matrix (2).', readMatrix(), settings);
    const third = readMatrix();
    await runScriptedTurn(id, 'Read the matrix (3).', third, settings);

    // The third turn's first step: turn 2's read (newest) whole, turn 1's replaced by a note.
    const earlier = toolResults(third.doStreamCalls[0]!.prompt).filter((r) => r.toolName === 'read_resource');
    expect(earlier).toHaveLength(2);
    expect(earlier[0]!.text).toBe(
      `[Read in an earlier turn, not repeated: ${earlier[1]!.text.length} characters of docs://test-matrix (server "demo"); read it again if needed.]`,
    );
    expect(earlier[1]!.text).toContain(full.text.slice(0, 2_000));
    // This turn's own read is sent whole.
    const current = toolResults(third.doStreamCalls[1]!.prompt).filter((r) => r.toolName === 'read_resource');
    expect(current.at(-1)!.text).toContain(full.text.slice(0, 2_000));
    // The history, which the person sees, still has every read whole.
    const history = (await (await api(`/v1/conversations/${id}`)).json()) as {
      messages: Array<{ parts: Array<{ type: string; output?: { text?: string } }> }>;
    };
    const stored = history.messages.flatMap((m) => m.parts).filter((p) => p.type === 'tool-read_resource');
    expect(stored).toHaveLength(3);
    for (const part of stored) expect(part.output!.text).toContain(full.text.slice(0, 2_000));
  });
});
