import { runInDurableObject } from 'cloudflare:test';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import type { UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type PriceCard, priceCardOf } from '../src/config/price-cards';
import { turnContext } from '../src/turn/context';
import { streamTurn } from '../src/turn/stream';
import { searchPassages } from '../src/tools/passage-search';
import { conversationStub, createConversation, read } from './helpers/api';
import { buildSessions } from './helpers/sessions';
import {
  callTools,
  runScriptedTurn,
  say,
  scriptedModel,
  textOfChunks,
  toolResults,
  userMessage,
} from './helpers/turns';

const SONNET = { card: priceCardOf('anthropic:claude-sonnet-4-5')!, promptCache: 'breakpoints' as const };
const systemOf = (call: LanguageModelV4CallOptions) => call.prompt.find((m) => m.role === 'system')!.content as string;
const toolNames = (call: LanguageModelV4CallOptions) => (call.tools ?? []).map((t) => t.name);

/** Turns over `servers` (sessions built by hand in the conversation's Durable Object and kept across its turns). */
async function withSessions<T>(
  id: string,
  servers: Parameters<typeof buildSessions>[1],
  overrides: Parameters<typeof buildSessions>[2],
  body: (turn: (model: MockLanguageModelV4, text: string) => Promise<UIMessageChunk[]>) => Promise<T>,
  /** The model the cost planner plans for: its price card and cache style (the scripted model itself costs nothing). */
  priced: { card?: PriceCard; promptCache?: 'breakpoints' | 'key' } = {},
): Promise<T> {
  return runInDurableObject(await conversationStub(id), async (_instance, state) => {
    const { sessions, settings } = buildSessions(state.storage, servers, overrides);
    const turn = async (model: MockLanguageModelV4, text: string) => {
      const context = await turnContext(sessions, {
        settings,
        acceptsImages: false,
        turnStartedAt: Date.now(),
        model: priced,
      });
      const live = await streamTurn({
        ...context,
        messages: [userMessage(text)],
        model: { model, acceptsImages: false, spec: 'mock' },
        settings,
        onComplete: () => {},
      });
      const reader = live.reader().getReader();
      const chunks: UIMessageChunk[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
      return chunks;
    };
    try {
      return await body(turn);
    } finally {
      await sessions.release();
    }
  });
}

describe('the cost planner puts small resources in the prompt instead of a catalog', () => {
  it('the small one inlined, whole and current (no catalog line for it, fresh after the server changes it); the large one listed', async () => {
    const id = await createConversation();
    // For Claude Sonnet 4.5 over PLANNER_TURNS turns the demo's guidelines (590 B) are cheaper in the cached prefix
    // than read on demand, its test matrix (12.7 KB) is not; its binaries stay in the catalog.
    await withSessions(
      id,
      [{ id: 'demo', url: '/demo/mcp' }],
      {},
      async (turn) => {
        const first = scriptedModel(() => say('ok'));
        await turn(first, 'What do the guidelines say about estimates?');
        const system = systemOf(first.doStreamCalls[0]!);
        expect(system).toContain('Pinned reference material (current; do not read these again)');
        expect(system).toContain('<resource server="demo" uri="task://guidelines"');
        expect(system).toContain('never more than 8'); // the guidelines' text
        expect(system).not.toContain('task://guidelines Team guidelines'); // no catalog line for what is inlined
        expect(system).toContain('docs://test-matrix Release test matrix 4.18 [md 12K]'); // listed, read on demand
        expect(system).not.toContain('Release recommendation: NO-GO');
        expect(system).toContain('assets://logo.png Team logo [png 291B]'); // binaries are still listed
        expect(first.doStreamCalls).toHaveLength(1); // answered without a read

        const { connectDemoClient, waitFor } = await import('./helpers/demo-client');
        const text = `Inlined rules ${crypto.randomUUID()}`;
        const { client, transport } = await connectDemoClient('editor');
        await client.callTool({ name: 'update_guidelines', arguments: { text } });
        await transport.terminateSession();
        await waitFor(async () => {
          const next = scriptedModel(() => say('ok'));
          await turn(next, 'again');
          return systemOf(next.doStreamCalls[0]!).includes(text) ? true : undefined;
        }, 'the new guidelines inlined');
      },
      SONNET,
    );
  });

  it('a document is weighed by its text once read: the small report PDF is then inlined, as its text, current', async () => {
    const id = await createConversation();
    await withSessions(
      id,
      [{ id: 'demo', url: '/demo/mcp' }],
      {},
      async (turn) => {
        // Before any read its listing gives only bytes (a PDF's say little of its text): listed, read on demand.
        const reading = scriptedModel((_c, i) =>
          i === 0 ? callTools(['read_resource', { uri: 'docs://quarterly-report.pdf', server: 'demo' }]) : say('ok'),
        );
        await turn(reading, 'What does the quarterly report say about overdue tasks?');
        const before = systemOf(reading.doStreamCalls[0]!);
        expect(before).toContain('docs://quarterly-report.pdf');
        expect(before).not.toMatch(/<resource server="demo" uri="docs:\/\/quarterly-report\.pdf"/);
        expect(toolResults(reading.doStreamCalls[1]!.prompt)[0]!.text).toContain('[Document: application/pdf');

        // Read once, its text is known to be small: the planner puts it in the cached prefix, as its text.
        const next = scriptedModel(() => say('ok'));
        await turn(next, 'And what about the sprint after that?');
        const after = systemOf(next.doStreamCalls[0]!);
        expect(after).toMatch(/<resource server="demo" uri="docs:\/\/quarterly-report\.pdf" mime="text\/markdown"/);
        expect(after).toMatch(/overdue/i);
        expect(after).not.toContain('JVBERi0'); // never the PDF's base64
      },
      SONNET,
    );
  });

  it('a model without a price card (here the scripted one): on demand — the catalog is used, and the model reads what it needs', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0 ? callTools(['read_resource', { uri: 'task://guidelines', server: 'demo' }]) : say('ok'),
    );
    await withSessions(id, [{ id: 'demo', url: '/demo/mcp' }], {}, (turn) =>
      turn(model, 'What do the guidelines say?'),
    );
    const system = systemOf(model.doStreamCalls[0]!);
    expect(system).not.toContain('Release recommendation: NO-GO');
    expect(system).toContain('docs://test-matrix Release test matrix 4.18 [md 12K]');
    expect(toolResults(model.doStreamCalls[1]!.prompt)[0]!.text).toContain(
      '<resource server="demo" uri="task://guidelines"',
    );
  });
});

describe('search_resource: the relevant part of a long resource without reading it all', () => {
  it('returns ranked passages with the offsets read_resource takes, computed from the cached text', async () => {
    const id = await createConversation();
    const full = ((await read(id, { server: 'demo', uri: 'docs://test-matrix' })).contents[0] as { text: string }).text;
    let offset = -1;
    const model = scriptedModel((call, i) => {
      if (i === 0)
        return callTools([
          'search_resource',
          { uri: 'docs://test-matrix', server: 'demo', query: 'release recommendation' },
        ]);
      if (i === 1) {
        offset = Number(/part="characters (\d+)-/.exec(toolResults(call.prompt).at(-1)!.text)![1]);
        return callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo', offset }]);
      }
      return say('ok');
    });
    await runScriptedTurn(id, 'What is the release recommendation?', model, { READ_WINDOW_CHARS: 2_000 });
    expect(toolNames(model.doStreamCalls[0]!)).toContain('search_resource');
    expect(systemOf(model.doStreamCalls[0]!)).toContain('search_resource({uri, query})');
    const [found] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(found!.text).toMatch(
      /^\[\d passage\(s\) of docs:\/\/test-matrix on server "demo" \(\d+ characters\) matching "release recommendation", best first/,
    );
    // The best passage is the one that says it, and its offsets are the document's.
    const best = /<resource [^>]*part="characters (\d+)-(\d+) of (\d+)">\n([\s\S]*?)\n<\/resource>/.exec(found!.text)!;
    expect(best[4]).toContain('Release recommendation: NO-GO');
    expect(full.slice(Number(best[1]), Number(best[2]))).toBe(best[4]);
    expect(Number(best[3])).toBe(full.length);
    expect(found!.text.length).toBeLessThan(full.length / 2);
    // Reading on from the passage starts exactly there.
    const window = toolResults(model.doStreamCalls[2]!.prompt).at(-1)!.text;
    expect(window).toContain(`part="characters ${offset}-`);
    expect(window).toContain(full.slice(offset, offset + 200));
  });

  it('a binary resource is a tool error the model can act on; a query nothing matches says so', async () => {
    const id = await createConversation();
    const model = scriptedModel((_c, i) =>
      i === 0
        ? callTools(
            ['search_resource', { uri: 'assets://logo.png', server: 'demo', query: 'logo' }],
            ['search_resource', { uri: 'task://guidelines', server: 'demo', query: 'zzqx' }],
          )
        : say('ok'),
    );
    await runScriptedTurn(id, 'search', model);
    const [binary, none] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(binary!.error).toBe(true);
    expect(binary!.text).toContain('has no text to search (binary content)');
    expect(none!.text).toMatch(
      /^\[No passage of task:\/\/guidelines on server "demo" \(\d+ characters\) matches "zzqx"/,
    );
  });

  it('finds a line in a 5 MB log, with exact offsets', () => {
    const lines = Array.from(
      { length: 90_000 },
      (_, i) =>
        `2026-11-30T10:${String(i % 60).padStart(2, '0')}:00Z INFO worker-${i % 17} request served in ${i % 250} ms`,
    );
    lines[41_234] = '2026-11-30T10:14:00Z ERROR worker-3 database connection pool exhausted after 30 s timeout';
    const text = lines.join('\n');
    expect(text.length).toBeGreaterThan(5_000_000);
    const [best] = searchPassages(text, 'database pool exhausted', { passageChars: 800, limit: 5 });
    expect(best!.text).toContain('database connection pool exhausted');
    expect(text.slice(best!.offset, best!.end)).toBe(best!.text);
  });
});

describe('reads within a turn', () => {
  it('the newest read is sent whole; older reads of other resources past TURN_READS_BUDGET_CHARS become notes', async () => {
    const id = await createConversation();
    const reads = [
      { uri: 'task://guidelines', server: 'demo' },
      { uri: 'docs://test-matrix', server: 'demo' },
      { uri: 'mini://public-note', server: 'minimal' },
    ];
    const model = scriptedModel((_c, i) => (i < 3 ? callTools(['read_resource', reads[i]!]) : say('ok')));
    await runScriptedTurn(id, 'read three things', model, { TURN_READS_BUDGET_CHARS: 2_000 });
    const last = toolResults(model.doStreamCalls[3]!.prompt);
    expect(last).toHaveLength(3);
    expect(last[2]!.text).toContain('shared by everyone.'); // the newest: whole
    expect(last[1]!.text).toMatch(
      /^\[Read earlier in this turn, not repeated: \d+ characters of docs:\/\/test-matrix \(server "demo"\); read it again if needed\.\]$/,
    );
    expect(last[0]!.text).toContain('<resource server="demo" uri="task://guidelines"'); // older, but small enough for what the budget has left
  });

  it('reads and searches of earlier turns are a one-line note by default (EARLIER_READS_BUDGET_CHARS 0)', async () => {
    const id = await createConversation();
    const first = scriptedModel((_c, i) =>
      i === 0
        ? callTools(
            ['read_resource', { uri: 'task://guidelines', server: 'demo' }],
            ['search_resource', { uri: 'docs://test-matrix', server: 'demo', query: 'release recommendation' }],
          )
        : say('ok'),
    );
    await runScriptedTurn(id, 'read', first);
    expect(toolResults(first.doStreamCalls[1]!.prompt)[1]!.text).toContain('Release recommendation'); // whole within its own turn
    const next = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'and now?', next);
    const [earlier, searched] = toolResults(next.doStreamCalls[0]!.prompt);
    expect(earlier!.text).toMatch(
      /^\[Read in an earlier turn, not repeated: \d+ characters of task:\/\/guidelines \(server "demo"\); read it again if needed\.\]$/,
    );
    expect(searched!.text).toBe(
      '[Searched in an earlier turn, not repeated: docs://test-matrix (server "demo") for "release recommendation"; search again if needed.]',
    );
  });
});

describe('a stable prompt', () => {
  it('the system prompt and the tool list are byte-identical from step to step and turn to turn while nothing changed', async () => {
    const id = await createConversation();
    const a = scriptedModel((_c, i) =>
      i === 0 ? callTools(['read_resource', { uri: 'task://guidelines', server: 'demo' }]) : say('ok'),
    );
    await runScriptedTurn(id, 'What do the guidelines say about estimates?', a);
    const b = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'Which products does the test matrix cover?', b);
    const calls = [...a.doStreamCalls, ...b.doStreamCalls];
    expect(calls).toHaveLength(3);
    for (const call of calls.slice(1)) {
      expect(systemOf(call)).toBe(systemOf(calls[0]!));
      expect(JSON.stringify(call.tools)).toBe(JSON.stringify(calls[0]!.tools));
    }
  });
});

describe('tool search: MCP tools past MCP_TOOLS_TOKEN_BUDGET', () => {
  it('the most relevant to the opening message are offered, search_tools finds the others, call_tool runs one: the tools never change', async () => {
    const id = await createConversation();
    const model = scriptedModel((_call, i) => {
      if (i === 0) return callTools(['search_tools', { query: 'add two numbers' }]);
      if (i === 1) return callTools(['call_tool', { name: 'everything__get-sum', arguments: { a: 2, b: 3 } }]);
      return say('ok');
    });
    await runScriptedTurn(id, 'Please echo hello back to me', model, { MCP_TOOLS_TOKEN_BUDGET: 300 });
    const first = toolNames(model.doStreamCalls[0]!);
    expect(first).toContain('search_tools');
    expect(first).toContain('call_tool');
    expect(first).toContain('everything__echo'); // relevant to the opening message
    expect(first).not.toContain('everything__get-sum');
    expect(systemOf(model.doStreamCalls[0]!)).toContain('search_tools finds the others');
    const [found] = toolResults(model.doStreamCalls[1]!.prompt);
    // The definition, to call it through call_tool: its name, what it does, its arguments' schema.
    expect(found!.text).toContain('everything__get-sum');
    expect(found!.text).toMatch(/arguments \(JSON Schema\): \{.*"a"/);
    expect(toolResults(model.doStreamCalls[2]!.prompt).at(-1)!.text).toContain('5');

    // A second turn about something else: the same tools, in the same order, at every step of both turns.
    const next = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'Now add 7 and 8, and get the tiny image', next, { MCP_TOOLS_TOKEN_BUDGET: 300 });
    for (const call of [...model.doStreamCalls, ...next.doStreamCalls])
      expect(JSON.stringify(call.tools)).toBe(JSON.stringify(model.doStreamCalls[0]!.tools));
  });

  it('call_tool checks the arguments against the found tool’s schema, and refuses a tool that does not exist', async () => {
    const id = await createConversation();
    const model = scriptedModel((_call, i) => {
      if (i === 0) return callTools(['call_tool', { name: 'everything__get-sum', arguments: { a: 'two' } }]);
      if (i === 1) return callTools(['call_tool', { name: 'everything__nope', arguments: {} }]);
      return say('ok');
    });
    await runScriptedTurn(id, 'Please echo hello back to me', model, { MCP_TOOLS_TOKEN_BUDGET: 300 });
    const [wrong] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(wrong!.text).toMatch(/argument "a"|"b"/);
    expect(toolResults(model.doStreamCalls[2]!.prompt).at(-1)!.text).toContain('No server tool "everything__nope"');
  });

  it('under the budget every tool is offered and search_tools is not', async () => {
    const id = await createConversation();
    const model = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'hello', model);
    const offered = toolNames(model.doStreamCalls[0]!);
    expect(offered).toContain('everything__get-sum');
    expect(offered).toContain('demo__create_task');
    expect(offered).not.toContain('search_tools');
  });
});

describe('streamed deltas are coalesced before the pipeline', () => {
  const chatty = (deltas: number, delayMs: number) =>
    new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' });
            for (let i = 0; i < deltas; i++) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: `w${i} ` });
              if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
            }
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
      }),
    });
  const expected = (n: number) => Array.from({ length: n }, (_, i) => `w${i} `).join('');

  it('500 one-token chunks reach a client as a few chunks, with the same text in the same order', async () => {
    const id = await createConversation();
    const chunks = await runScriptedTurn(id, 'talk', chatty(500, 0));
    const deltas = chunks.filter((c) => c.type === 'text-delta');
    expect(textOfChunks(chunks)).toBe(expected(500));
    expect(deltas.length).toBeLessThan(10);
    const types = chunks.map((c) => c.type);
    expect(types.indexOf('text-start')).toBeLessThan(types.indexOf('text-delta'));
    expect(types.lastIndexOf('text-delta')).toBeLessThan(types.indexOf('text-end'));
  });

  it('a slow model still streams: what is held goes out within the window', async () => {
    const id = await createConversation();
    const chunks = await runScriptedTurn(id, 'talk', chatty(20, 20));
    expect(textOfChunks(chunks)).toBe(expected(20));
    const deltas = chunks.filter((c) => c.type === 'text-delta').length;
    expect(deltas).toBeGreaterThan(3); // ≈ 400 ms of answer in 30 ms windows
    expect(deltas).toBeLessThan(20);
  });

  it('STREAM_COALESCE_MS 0 passes every chunk as the model sent it', async () => {
    const id = await createConversation();
    const chunks = await runScriptedTurn(id, 'talk', chatty(50, 0), { STREAM_COALESCE_MS: 0 });
    expect(chunks.filter((c) => c.type === 'text-delta')).toHaveLength(50);
  });
});
