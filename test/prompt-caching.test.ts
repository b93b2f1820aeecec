import { runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import type { UIMessageChunk } from 'ai';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { sseChunks, textOfChunks, userMessage } from './helpers/turns';
import { turnIn } from './helpers/conversation';
import { waitFor } from './helpers/demo-client';
import type { UsageReport } from '../shared/api/usage';

/*
 * Prompt caching on the wire: turns run through the real provider packages
 * (@ai-sdk/anthropic, @ai-sdk/openai), pointed by ANTHROPIC_BASE_URL and
 * OPENAI_BASE_URL at the fake provider (bench/lib/fake-model.mjs), which
 * records every request body exactly as the package sent it. The tenants
 * (test/infra/tenants.ts): claude, gpt, and the same two with promptCaching off.
 */

const fake = inject('fakeModelUrl');
const as = (tenant: string) => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': 'alice' });

interface Recorded {
  api: 'chat' | 'responses' | 'messages';
  body: Record<string, unknown> & {
    system?: Block[];
    messages?: Array<{ role: string; content: Block[] | string }>;
    tools?: unknown[];
  };
  headers: Record<string, string | undefined>;
}
type Block = { type: string; text?: string; cache_control?: unknown };

const recorded = async (): Promise<Recorded[]> => (await fetch(`${fake}/__requests`)).json();
const EPHEMERAL = { type: 'ephemeral' };

/** The JSON of a value with every `cache_control` taken out: what the provider hashes for its cache, marks aside. */
const unmarked = (value: unknown) => JSON.stringify(value, (key, v) => (key === 'cache_control' ? undefined : v));

async function turn(tenant: string, id: string, text: string): Promise<string> {
  const response = await postJson(`/v1/conversations/${id}/messages`, { text }, as(tenant));
  expect(response.status).toBe(200);
  return textOfChunks(await sseChunks(response));
}

beforeEach(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

describe('Anthropic: cache breakpoints on the system prompt and on the conversation so far', () => {
  it('every request extends the one before it, across turns: tools and system byte-identical, earlier reads re-sent as they were, the end of each request marked for the next', async () => {
    const id = await createConversation(as('claude'));
    expect(await turn('claude', id, 'What do the team guidelines say about estimates?')).toContain('Done:');
    expect(await turn('claude', id, 'And what do the guidelines say about closing a task?')).toContain('Done:');

    const requests = (await recorded()).filter((r) => r.api === 'messages');
    expect(requests).toHaveLength(4); // two turns × (read, answer)
    /** Indexes of the messages whose last block carries a breakpoint. */
    const marked = (body: Recorded['body']) =>
      body.messages!.flatMap((m, i) => ((m.content as Block[]).at(-1)?.cache_control ? [i] : []));
    const lastUserText = (body: Recorded['body']) =>
      body.messages!.findLastIndex((m) => m.role === 'user' && (m.content as Block[]).some((b) => b.type === 'text'));
    for (const { body, headers } of requests) {
      // The key and the endpoint are the configured ones (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
      expect(headers['x-api-key']).toBe('test-anthropic-key-0123456789');
      expect(body.system!.at(-1)!.cache_control).toEqual(EPHEMERAL);
      for (const i of marked(body))
        expect((body.messages![i]!.content as Block[]).at(-1)!.cache_control).toEqual(EPHEMERAL);
      // The question of this turn, and the request's last message (where the next request goes on from).
      expect(marked(body)).toEqual([...new Set([lastUserText(body), body.messages!.length - 1])].sort((a, b) => a - b));
      expect(JSON.stringify(body).match(/"cache_control"/g)!.length).toBeLessThanOrEqual(4);
    }
    // Nothing before the system breakpoint changes between steps or turns: one cached prefix for all four.
    expect(new Set(requests.map((r) => unmarked([r.body.tools, r.body.system]))).size).toBe(1);
    // Each request begins with the whole of the one before it (marks aside): the first turn's read is re-sent as it
    // was in the second turn, not replaced by a note.
    for (let j = 1; j < requests.length; j++) {
      const before = requests[j - 1]!.body.messages!;
      const after = requests[j]!.body.messages!;
      expect(unmarked(after.slice(0, before.length)), `request ${j}`).toBe(unmarked(before));
      // And the previous request's last mark is within the 20 blocks the next request's last mark looks back.
      const blocks = after.slice(before.length).reduce((n, m) => n + (m.content as Block[]).length, 0);
      expect(blocks).toBeLessThanOrEqual(19);
    }
    expect(JSON.stringify(requests.at(-1)!.body)).not.toContain('not repeated');
  });

  it('the step past MAX_STEPS keeps the tools and the system prompt (tool_choice none) and says why in a message', async () => {
    const id = await createConversation(as('claude'));
    const answer = await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [userMessage('loop over the guidelines')], instance.parts.terms.model(), {
        MAX_STEPS: 2,
      });
      const reader = live.reader().getReader();
      let text = '';
      for (let r = await reader.read(); !r.done; r = await reader.read())
        if (r.value.type === 'text-delta') text += r.value.delta;
      return text;
    });
    const requests = (await recorded()).filter((r) => r.api === 'messages');
    expect(requests).toHaveLength(3);
    const [first, second, last] = requests.map((r) => r.body);
    expect(last!.tool_choice).toEqual({ type: 'none' });
    expect(unmarked([last!.tools, last!.system])).toBe(unmarked([first!.tools, first!.system]));
    const lastBlocks = last!.messages!.at(-1)!.content as Block[];
    expect(
      lastBlocks.some((b) => b.type === 'text' && b.text?.includes('You have used all 2 tool steps of this turn')),
    ).toBe(true);
    // It extends the step before it, whose end it reads from the cache, and marks its own end.
    expect(unmarked(last!.messages!.slice(0, second!.messages!.length))).toBe(unmarked(second!.messages));
    expect(lastBlocks.at(-1)!.cache_control).toEqual(EPHEMERAL);
    expect(answer).toContain('You said: You have used all 2 tool steps');
  });
});

describe('OpenAI: prompt_cache_key per conversation', () => {
  it('every request of a conversation carries its id; another conversation gets its own', async () => {
    const first = await createConversation(as('gpt'));
    const second = await createConversation(as('gpt'));
    expect(await turn('gpt', first, 'What do the team guidelines say about estimates?')).toContain('Done:');
    expect(await turn('gpt', second, 'What do the team guidelines say about estimates?')).toContain('Done:');
    const requests = (await recorded()).filter((r) => r.api === 'responses');
    expect(requests).toHaveLength(4);
    expect(requests.map((r) => r.body.prompt_cache_key)).toEqual([first, first, second, second]);
    // The key and the endpoint are the configured ones (OPENAI_API_KEY, OPENAI_BASE_URL): the Responses API.
    for (const { headers } of requests) expect(headers.authorization).toBe('Bearer test-openai-key-0123456789');
  });
});

describe('a tenant with promptCaching: false', () => {
  it('sends neither breakpoints nor a cache key', async () => {
    for (const tenant of ['claude-uncached', 'gpt-uncached']) {
      const id = await createConversation(as(tenant));
      expect(await turn(tenant, id, 'What do the team guidelines say about estimates?')).toContain('Done:');
    }
    const requests = await recorded();
    expect(requests.map((r) => r.api)).toEqual(['messages', 'messages', 'responses', 'responses']);
    for (const { body } of requests) {
      expect(JSON.stringify(body)).not.toContain('cache_control');
      expect(body).not.toHaveProperty('prompt_cache_key');
    }
  });
});

describe('the cost planner, through the providers', () => {
  it('inlines the small resource and lists the large one; the catalog says so and why; a change is sent new, once', async () => {
    const id = await createConversation(as('claude'));
    const { plan } = await (await api(`/v1/conversations/${id}/catalog`, {}, as('claude'))).json<{
      plan: { inlined: Array<{ uri: string }>; ttl: string; reason: string; estimate: { chosenUsd: number } };
    }>();
    expect(plan.inlined.map((r) => r.uri)).toEqual(['task://guidelines']);
    expect(plan.ttl).toBe('short');
    expect(plan.reason).toMatch(/^inlined the 1 smallest of 2 resources: \$0\.\d+ over 8 turns on Claude Sonnet 4\.5/);
    expect(await turn('claude', id, 'Hello there')).toContain('You said');
    const first = (await recorded()).at(-1)!.body;
    const system = (first.system as Block[]).map((b) => b.text).join('');
    expect(system).toContain('<resource server="demo" uri="task://guidelines"');
    expect(system).toContain('docs://test-matrix Release test matrix 4.18 [md 12K]');

    // The guidelines change on the server: the next request carries the new text, and only that request rewrites.
    const { connectDemoClient } = await import('./helpers/demo-client');
    const text = `Planner rules ${crypto.randomUUID()}`;
    const { client, transport } = await connectDemoClient('planner-editor');
    const original = await client.readResource({ uri: 'task://guidelines' });
    await client.callTool({ name: 'update_guidelines', arguments: { text } });
    // The demo server is shared by the run: its guidelines are put back as they were at the end.
    onTestFinished(async () => {
      const [content] = original.contents as Array<{ text: string }>;
      await client.callTool({ name: 'update_guidelines', arguments: { text: content!.text } });
      await transport.terminateSession();
    });
    await fetch(`${fake}/__reset`, { method: 'POST' });
    let changed = '';
    for (let tries = 0; tries < 40 && !changed.includes(text); tries++) {
      await turn('claude', id, `Hello again ${tries}`);
      changed = ((await recorded()).at(-1)!.body.system as Block[]).map((b) => b.text).join('');
      if (!changed.includes(text)) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(changed).toContain(text);
    expect(changed).not.toContain('Every task has one owner');
    await turn('claude', id, 'And once more');
    const after = (await recorded()).at(-1)!.body;
    expect(unmarked(after.system)).toBe(unmarked((await recorded()).at(-2)!.body.system));
  });

  it('past CONTEXT_BUDGET_TOKENS the conversation is compacted once, at a turn, and the stream says what was dropped', async () => {
    const id = await createConversation(as('claude'));
    const budget = { CONTEXT_BUDGET_TOKENS: 1_000 };
    const chunks: UIMessageChunk[][] = [];
    await runInDurableObject(await conversationStub(id), async (instance) => {
      for (const question of [
        'What do the team guidelines say about estimates?',
        'What do the team guidelines say about owners?',
        'What do the team guidelines say about reviews?',
        'What do the team guidelines say about bugs?',
      ]) {
        const live = await turnIn(instance, [userMessage(question)], instance.parts.terms.model(), budget);
        const reader = live.reader().getReader();
        const seen: UIMessageChunk[] = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) seen.push(r.value);
        chunks.push(seen);
      }
    });
    const notices = chunks.map((c) =>
      c.filter((x) => x.type === 'data-notice').map((x) => (x as { data: { message: string } }).data.message),
    );
    const compactedAt = notices.findIndex((n) => n.some((m) => m.includes('passed its context budget')));
    expect(compactedAt).toBeGreaterThan(0);
    expect(notices[compactedAt]!.join(' ')).toMatch(
      /what was read in its \d+ earlier turn\(s\) is now a one-line note/,
    );
    // Once: the turn after it does not compact again (the history after the point is still under the budget).
    expect(
      notices
        .slice(compactedAt + 1)
        .flat()
        .some((m) => m.includes('passed its context budget')),
    ).toBe(false);
    const requests = (await recorded()).filter((r) => r.api === 'messages');
    const last = requests.at(-1)!.body;
    expect(JSON.stringify(last)).toContain('[Read in an earlier turn, not repeated');
    // After the compaction each request extends the one before it again (two requests a turn: the read, the answer).
    expect(compactedAt).toBeLessThan(chunks.length - 1);
    for (let j = 2 * compactedAt + 1; j < requests.length; j++) {
      const before = requests[j - 1]!.body.messages!;
      const after = requests[j]!.body.messages!;
      expect(unmarked(after.slice(0, before.length))).toBe(unmarked(before));
    }
  });

  it('a model without a price card runs, on demand, with the provider’s defaults; the catalog says why', async () => {
    const id = await createConversation(as('claude-unknown'));
    const { plan } = await (await api(`/v1/conversations/${id}/catalog`, {}, as('claude-unknown'))).json<{
      plan: { inlined: unknown[]; reason: string; estimate?: unknown };
    }>();
    expect(plan.inlined).toEqual([]);
    expect(plan.estimate).toBeUndefined();
    expect(plan.reason).toContain('no price card');
    expect(await turn('claude-unknown', id, 'What do the team guidelines say about estimates?')).toContain('Done:');
    const [request] = (await recorded()).filter((r) => r.api === 'messages');
    expect(JSON.stringify(request!.body.system)).not.toContain('Every task has one owner'); // nothing inlined
  });

  it('a GPT-5.6-family model (billed writes) is asked for its cache lifetime', async () => {
    const id = await createConversation(as('gpt-terra'));
    expect(await turn('gpt-terra', id, 'Hello')).toContain('You said');
    const [request] = (await recorded()).filter((r) => r.api === 'responses');
    expect(request!.body.prompt_cache_key).toBe(id);
    expect(request!.body.prompt_cache_options).toEqual({ ttl: '30m' });
  });
});

describe('stable tools: past MCP_TOOLS_TOKEN_BUDGET the tools array never changes', () => {
  /** Two turns in the tenant's conversation with a tool budget that hides most demo tools: the guidelines, then a tool found. */
  async function twoTurns(tenant: string) {
    const id = await createConversation(as(tenant));
    const budget = { MCP_TOOLS_TOKEN_BUDGET: 120 };
    const answers: string[] = [];
    await runInDurableObject(await conversationStub(id), async (instance) => {
      for (const question of ['What do the team guidelines say about owners?', 'Find a tool to list the tasks']) {
        const live = await turnIn(instance, [userMessage(question)], instance.parts.terms.model(), budget);
        const reader = live.reader().getReader();
        const seen: UIMessageChunk[] = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) seen.push(r.value);
        answers.push(textOfChunks(seen));
      }
    });
    return answers;
  }

  it('Anthropic: the hidden tools are declared deferred; search_tools loads one by reference; it runs', async () => {
    const answers = await twoTurns('claude');
    const requests = (await recorded()).filter((r) => r.api === 'messages');
    expect(requests.length).toBe(5); // read + answer, then search + call + answer
    const tools = requests[0]!.body.tools as Array<{ name: string; defer_loading?: boolean }>;
    expect(tools.find((t) => t.name === 'demo__list_tasks')?.defer_loading).toBe(true);
    expect(tools.some((t) => !t.defer_loading && t.name.startsWith('demo__'))).toBe(true);
    for (const { body } of requests) expect(unmarked(body.tools)).toBe(unmarked(requests[0]!.body.tools));
    const found = JSON.stringify(requests[3]!.body.messages!.at(-1));
    expect(found).toContain('"type":"tool_reference","tool_name":"demo__list_tasks"');
    expect(answers[1]).toMatch(/^Done: /);
    expect(answers[1]).not.toContain('No server tool');
  });

  it('OpenAI (gpt-5.4 on): the hidden tools are left out of the request; search_tools’ result carries their definitions', async () => {
    const answers = await twoTurns('gpt-terra');
    const requests = (await recorded()).filter((r) => r.api === 'responses');
    expect(requests.length).toBe(5);
    const names = (requests[0]!.body.tools as Array<{ name?: string }>).map((t) => t.name);
    expect(names).toContain('search_tools');
    expect(names).not.toContain('demo__list_tasks');
    for (const { body } of requests) expect(JSON.stringify(body.tools)).toBe(JSON.stringify(requests[0]!.body.tools));
    const input = requests[4]!.body.input as Array<{ type: string; tools?: Array<{ name: string }> }>;
    const at = input.findIndex((item) => item.type === 'additional_tools');
    expect(input[at - 1]!.type).toBe('function_call_output'); // right after the search's result
    expect(input[at]!.tools!.map((t) => t.name)).toContain('demo__list_tasks');
    expect(input[at + 1]).toMatchObject({ type: 'function_call', name: 'demo__list_tasks' });
    expect(answers[1]).toMatch(/^Done: /);
  });

  it('other models (gpt-4.1): search_tools gives the definitions, call_tool runs the one found', async () => {
    const answers = await twoTurns('gpt');
    const requests = (await recorded()).filter((r) => r.api === 'responses');
    expect(requests.length).toBe(5);
    const names = (requests[0]!.body.tools as Array<{ name?: string }>).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_tools', 'call_tool']));
    expect(names).not.toContain('demo__list_tasks');
    for (const { body } of requests) expect(JSON.stringify(body.tools)).toBe(JSON.stringify(requests[0]!.body.tools));
    const input = requests[4]!.body.input as Array<{ type: string; name?: string; arguments?: string }>;
    expect(input.findLast((item) => item.type === 'function_call')).toMatchObject({ name: 'call_tool' });
    expect(answers[1]).toMatch(/^Done: /);
    expect(answers[1]).not.toMatch(/failed|No server tool/);
  });
});

describe('one round trip when the document is predictable (PREDICTED_READS)', () => {
  async function turns(tenant: string, questions: string[]) {
    const id = await createConversation(as(tenant));
    const seen: UIMessageChunk[][] = [];
    await runInDurableObject(await conversationStub(id), async (instance) => {
      for (const question of questions) {
        const live = await turnIn(instance, [userMessage(question)], instance.parts.terms.model(), {
          PREDICTED_READS: 'on',
          // The guidelines are not inlined: the test is about reading them.
          INLINE_MAX_TOKENS: 0,
        });
        const reader = live.reader().getReader();
        const chunks: UIMessageChunk[] = [];
        for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
        seen.push(chunks);
      }
    });
    return { id, seen };
  }

  it('the guidelines are read before the model is asked: one request, which the next turn extends', async () => {
    const { id, seen } = await turns('claude', [
      'What do the team guidelines say about estimates?',
      'And what do the team guidelines say about owners?',
    ]);
    const requests = (await recorded()).filter((r) => r.api === 'messages');
    // The first turn took one request: the read rode with the question.
    expect(requests.filter((r) => !JSON.stringify(r.body.messages).includes('about owners'))).toHaveLength(1);
    const first = requests[0]!.body.messages!;
    expect(first.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(first[1])).toContain('"name":"read_resource"');
    expect(JSON.stringify(first[2])).toContain('task://guidelines');
    expect(textOfChunks(seen[0]!)).toMatch(/^Done: /);
    // The answer shows the call as any other (a tool part), and the history keeps it.
    expect(seen[0]!.some((c) => c.type === 'tool-output-available')).toBe(true);
    const { messages } = await (await api(`/v1/conversations/${id}`, {}, as('claude'))).json<{
      messages: Array<{ role: string; parts: Array<{ type: string }> }>;
    }>();
    expect(messages[1]!.parts.map((p) => p.type)).toContain('tool-read_resource');
    // The second turn: the guidelines were read already (their text is in the history), so we read nothing before
    // the model is asked (this test's fake model reads whenever it is asked about guidelines), and its request
    // starts with everything the first one sent.
    const second = requests[1]!.body.messages!;
    expect(unmarked(second.slice(0, first.length))).toBe(unmarked(first));
    expect(JSON.stringify(second).match(/call_predicted_/g)).toHaveLength(2); // the first turn's call and its result
    // The read made ahead is metered like the model's own (the second turn's): two reads, two tool runs.
    const row = await waitFor(async () => {
      const report = await (await api('/v1/usage?groupBy=conversation', {}, as('claude'))).json<UsageReport>();
      const mine = report.rows.find((r) => r.key === id);
      return mine && mine.requests >= requests.length && mine;
    }, "the conversation's usage");
    expect(row.readsMemory + row.readsKv + row.readsServer).toBe(2);
    expect(row.toolCalls).toBe(2);
  });

  it('a message that points at no document is asked as it is', async () => {
    await turns('gpt', ['Hello there']);
    const [request] = (await recorded()).filter((r) => r.api === 'responses');
    expect((request!.body.input as Array<{ type?: string }>).some((item) => item.type === 'function_call')).toBe(false);
  });
});
