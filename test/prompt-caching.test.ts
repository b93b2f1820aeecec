import { runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { conversationStub, createConversation, postJson } from './helpers/api';
import { sseChunks, textOfChunks, userMessage } from './helpers/turns';
import { turnIn } from './helpers/conversation';

/*
 * Prompt caching on the wire: turns run through the real provider packages
 * (@ai-sdk/anthropic, @ai-sdk/openai), pointed by ANTHROPIC_BASE_URL and
 * OPENAI_BASE_URL at the fake provider (bench/lib/fake-model.mjs), which
 * records every request body exactly as the package sent it. The tenants
 * (vitest.config.ts): claude, gpt, and the same two with promptCaching off.
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
  it('every request marks the system prompt and the user messages of this turn and the last; tools and system prompt are byte-identical; each request can read what an earlier one cached', async () => {
    const id = await createConversation(as('claude'));
    expect(await turn('claude', id, 'What do the team guidelines say about estimates?')).toContain('Done:');
    expect(await turn('claude', id, 'And what do the guidelines say about closing a task?')).toContain('Done:');

    const requests = (await recorded()).filter((r) => r.api === 'messages');
    expect(requests).toHaveLength(4); // two turns × (read, answer)
    /** Indexes of the messages whose last block carries a breakpoint. */
    const marked = (body: Recorded['body']) =>
      body.messages!.flatMap((m, i) => ((m.content as Block[]).at(-1)?.cache_control ? [i] : []));
    const userTexts = (body: Recorded['body']) =>
      body.messages!.flatMap((m, i) =>
        m.role === 'user' && (m.content as Block[]).some((b) => b.type === 'text') ? [i] : [],
      );
    for (const { body, headers } of requests) {
      // The key and the endpoint are the configured ones (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL).
      expect(headers['x-api-key']).toBe('test-anthropic-key-0123456789');
      expect(body.system!.at(-1)!.cache_control).toEqual(EPHEMERAL);
      for (const i of marked(body))
        expect((body.messages![i]!.content as Block[]).at(-1)!.cache_control).toEqual(EPHEMERAL);
      // The breakpoints on messages are the latest two messages the user wrote (a tool result is not one), within the provider's four.
      expect(marked(body)).toEqual(userTexts(body).slice(-2));
      expect(JSON.stringify(body).match(/"cache_control"/g)!.length).toBeLessThanOrEqual(4);
    }
    expect(requests.map((r) => marked(r.body).length)).toEqual([1, 1, 2, 2]);
    // Nothing before the system breakpoint changes between steps or turns: one cached prefix for all four.
    expect(new Set(requests.map((r) => unmarked([r.body.tools, r.body.system]))).size).toBe(1);
    // Each later request starts with a prefix an earlier request marked (the provider finds it cached).
    for (const [j, request] of requests.entries()) {
      if (j === 0) continue;
      const messages = request.body.messages!;
      const readable = requests
        .slice(0, j)
        .some(({ body }) =>
          marked(body).some((m) => unmarked(messages.slice(0, m + 1)) === unmarked(body.messages!.slice(0, m + 1))),
        );
      expect(readable, `request ${j}`).toBe(true);
    }
  });

  it('the step past MAX_STEPS keeps the tools and the system prompt (tool_choice none) and says why in a message', async () => {
    const id = await createConversation(as('claude'));
    const answer = await runInDurableObject(await conversationStub(id), async (instance) => {
      const live = await turnIn(instance, [userMessage('loop over the guidelines')], instance.parts.context.model(), {
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
    const [first, , last] = requests.map((r) => r.body);
    expect(last!.tool_choice).toEqual({ type: 'none' });
    expect(unmarked([last!.tools, last!.system])).toBe(unmarked([first!.tools, first!.system]));
    const lastBlocks = last!.messages!.at(-1)!.content as Block[];
    expect(
      lastBlocks.some((b) => b.type === 'text' && b.text?.includes('You have used all 2 tool steps of this turn')),
    ).toBe(true);
    // The question's breakpoint is where it was: the steps of the turn share that entry.
    expect(unmarked(last!.messages![0])).toBe(unmarked(first!.messages![0]));
    expect((last!.messages![0]!.content as Block[]).at(-1)!.cache_control).toEqual(EPHEMERAL);
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
