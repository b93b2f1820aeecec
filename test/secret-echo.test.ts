import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ElicitationNotice, TaskNotice } from '../shared/api/stream';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { callTools, say, scriptedModel, sseChunks } from './helpers/turns';

/*
 * A server that echoes the credential it was sent (test/infra/echo-server.ts, and the task server's echo_task): the
 * `secret:` header's value (FAULTY_TOKEN, test/infra/tenants.ts and vitest.config.ts) must reach no model, no stream, no stored message, no
 * cached copy and no response of ours — wherever the server puts it: a tool's text or structured content, an isError
 * result, a resource, a prompt's messages, a question to the user, a task's status and result.
 */
const LEAKY = { authorization: 'Bearer test-key-leaky', 'x-end-user': 'alice' };
const TOKEN = 'tok_live_9f8e7d6c5b4a3210';

/** Runs one turn whose model calls `calls` at its first step, then says what it got; the stream's chunks and the model. */
async function turnCalling(id: string, calls: Array<[string, Record<string, unknown>]>) {
  const model = scriptedModel((_call, index) => (index === 0 ? callTools(...calls) : say('done')));
  await runInDurableObject(await conversationStub(id), (instance) =>
    instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } }),
  );
  const response = await postJson(`/v1/conversations/${id}/messages`, { text: 'go' }, LEAKY);
  expect(response.status).toBe(200);
  return { chunks: await sseChunks(response), model };
}

const stored = async (id: string) =>
  (await (await api(`/v1/conversations/${id}`, {}, LEAKY)).json<{ messages: UIMessage[] }>()).messages;

describe('a server that echoes its credential back', () => {
  for (const server of ['echo', 'echo2025']) {
    it(`${server}: tool text, structured content, an isError result, a resource and a prompt reach nobody with it`, async () => {
      const id = await createConversation(LEAKY);
      const { chunks, model } = await turnCalling(id, [
        [`${server}__whoami`, {}],
        [`${server}__whoami_error`, {}],
        ['read_resource', { server, uri: 'echo://credentials' }],
        ['invoke_prompt', { server, name: 'echo' }],
      ]);
      const streamed = JSON.stringify(chunks);
      // The calls ran and the server did answer with it — masked.
      expect(streamed).toContain('You are calling with Bearer [redacted]');
      expect(streamed).toContain('Denied for Bearer [redacted]');
      expect(streamed).not.toContain(TOKEN);
      const sent = JSON.stringify(model.doStreamCalls.map((c) => c.prompt));
      expect(sent).toContain('The credential you sent: Bearer [redacted]');
      expect(sent).toContain('Use Bearer [redacted] for everything.');
      expect(sent).not.toContain(TOKEN);
      expect(JSON.stringify(await stored(id))).not.toContain(TOKEN);

      // The API's own reads and prompt previews, and the tenant's cached copy a second conversation is served.
      const read = await postJson(
        `/v1/conversations/${id}/resources/read`,
        { server, uri: 'echo://credentials' },
        LEAKY,
      );
      expect(JSON.stringify(await read.json())).not.toContain(TOKEN);
      const preview = await postJson(`/v1/conversations/${id}/prompts/run?preview=1`, { server, name: 'echo' }, LEAKY);
      expect(preview.status).toBe(200);
      expect(JSON.stringify(await preview.json())).not.toContain(TOKEN);
      const other = await createConversation(LEAKY);
      const again = await postJson(
        `/v1/conversations/${other}/resources/read`,
        { server, uri: 'echo://credentials' },
        LEAKY,
      );
      expect(JSON.stringify(await again.json())).toContain('[redacted]');
      const kv = await env.RESOURCE_CACHE.list();
      for (const key of kv.keys) expect((await env.RESOURCE_CACHE.get(key.name)) ?? '').not.toContain(TOKEN);
    });
  }

  it('a question the server asks the user with it in its words shows it masked', async () => {
    const id = await createConversation(LEAKY);
    const model = scriptedModel((_call, index) => (index === 0 ? callTools(['echo__confirm', {}]) : say('done')));
    const question = await runInDurableObject(await conversationStub(id), async (instance) => {
      instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
      const stream = await instance.parts.turns.start({
        kind: 'message',
        newMessages: [{ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: 'confirm' }] }],
      });
      const reader = stream.reader().getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        const chunk = r.value as UIMessageChunk & { data?: ElicitationNotice };
        if (chunk.type === 'data-elicitation' && chunk.data?.status === 'pending') {
          instance.parts.turns.answerElicitation(chunk.data.id, { action: 'decline' });
          return chunk.data;
        }
      }
      return undefined;
    });
    expect(question?.message).toBe('Go on with Bearer [redacted]?');
    await expect.poll(async () => JSON.stringify(await stored(id)), { timeout: 10_000 }).toContain('You chose decline');
    expect(JSON.stringify(await stored(id))).not.toContain(TOKEN);
  });

  it('a task’s status message and result have it masked, in the step and in what the model is sent', async () => {
    const id = await createConversation(LEAKY);
    const model = scriptedModel((_call, index) => (index === 0 ? callTools(['jobs__echo_task', {}]) : say('done')));
    await runInDurableObject(await conversationStub(id), (instance) =>
      instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } }),
    );
    const first = await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: 'go' }, LEAKY));
    expect(JSON.stringify(first)).not.toContain(TOKEN);
    await expect.poll(async () => model.doStreamCalls.length, { timeout: 15_000 }).toBe(2);
    const answer = (await stored(id)).at(-1)!;
    const notice = (answer.parts.find((p) => p.type === 'data-task') as { data: TaskNotice }).data;
    expect(notice.status).toBe('completed');
    expect(JSON.stringify(answer)).toContain('Done with Bearer [redacted]');
    expect(JSON.stringify(answer)).not.toContain(TOKEN);
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain('Done with Bearer [redacted]');
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).not.toContain(TOKEN);
  });
});
