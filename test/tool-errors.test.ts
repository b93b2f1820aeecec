import { beforeEach, describe, expect, inject, it } from 'vitest';
import { createConversation, postJson } from './helpers/api';
import { callTools, runScriptedTurn, say, scriptedModel, sseChunks, toolResults } from './helpers/turns';

/*
 * What the model and the person are told when a tool call fails, on the wire: turns through the real provider
 * packages (@ai-sdk/openai, @ai-sdk/anthropic) against the recording fake provider (bench/lib/fake-model.mjs,
 * test/infra/provider-model.ts), whose model calls create_task with a number for a title when told to "get it wrong".
 * The AI SDK words such a call as a chain of its errors (`AI_InvalidToolInputError: … AI_TypeValidationError: …
 * Value: … Error message: …`); the model and the step get one sentence, with the tool's name.
 */
const fake = inject('fakeModelUrl');
const as = (tenant: string) => ({ authorization: `Bearer test-key-${tenant}`, 'x-end-user': 'alice' });
const SENTENCE =
  'Tool "create_task" of MCP server "demo" was not called: argument "title": Instance type "number" is invalid. Expected "string".';

beforeEach(async () => {
  await fetch(`${fake}/__reset`, { method: 'POST' });
});

describe('a tool call whose arguments do not fit the tool', () => {
  for (const tenant of ['gpt', 'claude']) {
    it(`${tenant}: the model is sent one sentence naming the tool and the field; the step shows the same`, async () => {
      const id = await createConversation(as(tenant));
      const response = await postJson(
        `/v1/conversations/${id}/messages`,
        { text: 'create a task, get it wrong' },
        as(tenant),
      );
      expect(response.status).toBe(200);
      const chunks = (await sseChunks(response)) as Array<{ type: string; errorText?: string }>;
      expect(chunks.find((c) => c.type === 'tool-input-error' || c.type === 'tool-output-error')?.errorText).toBe(
        SENTENCE,
      );
      const requests = (await (await fetch(`${fake}/__requests`)).json()) as Array<{
        body: unknown;
        chat: { messages: Array<{ role: string; content: unknown }> };
      }>;
      expect(requests).toHaveLength(2);
      // The tool's result as the provider package sent it (OpenAI wraps an error as `{"error": …}`).
      const result = requests[1]!.chat.messages.find((m) => m.role === 'tool')!.content as string;
      expect(result === SENTENCE || result === JSON.stringify({ error: SENTENCE })).toBe(true);
      expect(JSON.stringify(requests[1]!.body)).not.toMatch(
        /AI_InvalidToolInputError|AI_TypeValidationError|Type validation failed|ToolFailure:/,
      );
    });
  }
});

describe('a call of a tool that does not exist (D18)', () => {
  it('the model is told in words, with the closest names, not AI_NoSuchToolError and every tool; the step and the next turn say the same', async () => {
    const id = await createConversation();
    const model = scriptedModel((_call, i) =>
      i === 0 ? callTools(['read_resources', { uri: 'task://guidelines' }]) : say('ok'),
    );
    const chunks = (await runScriptedTurn(id, 'What do the guidelines say?', model)) as Array<{
      type: string;
      errorText?: string;
    }>;
    // The step's tools: what the model could have called (acme: the demo server, server-everything ×3, ours).
    const offered = model.doStreamCalls[0]!.tools!.map((t) => t.name);
    expect(offered.length).toBeGreaterThan(38);
    const [result] = toolResults(model.doStreamCalls[1]!.prompt);
    expect(result).toMatchObject({ toolName: 'read_resources', error: true });
    expect(result!.text).toBe(
      'There is no tool "read_resources". Did you mean "read_resource" or "search_resource"? Call only the tools you were given, by their exact names.',
    );
    expect(result!.text).not.toMatch(/AI_NoSuchToolError|Available tools/);
    // What the person sees in the step, and what the history keeps: the same sentence.
    expect(chunks.find((c) => c.type === 'tool-input-error')?.errorText).toBe(result!.text);
    const next = scriptedModel(() => say('ok'));
    await runScriptedTurn(id, 'Thanks', next);
    expect(toolResults(next.doStreamCalls[0]!.prompt).map((r) => r.text)).toEqual([result!.text]);
  });
});
