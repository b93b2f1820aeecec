// A server asks the user something in the middle of a tool call
// (elicitation): 2026-07-28 with an `input_required` result the client
// answers and retries, 2025-11-25 with an `elicitation/create` request on the
// session. Both become the same form in the turn's stream, answered through
// the HTTP API (the widget and the WebSocket use the same path), checked
// against the server's schema; the server's call completes with the answer.
import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ElicitationRecord } from '../src/turn/elicitations';
import { api, conversationStub, createConversation, postJson } from './helpers/api';
import { approveWith, callTools, say, scriptedModel, toolResults, turnUntilApproval } from './helpers/turns';
import { callTool } from './helpers/conversation';

const ERAS = { authorization: 'Bearer test-key-eras', 'x-end-user': 'asked' };

/** The running turn's stream (GET …/stream), read chunk by chunk. */
async function follow(id: string) {
  const response = await api(`/v1/conversations/${id}/stream`, {}, ERAS);
  expect(response.status).toBe(200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const chunks: UIMessageChunk[] = [];
  let buffer = '';
  let done = false;
  const pump = (async () => {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      buffer += next.value;
      const events = buffer.split('\n\n');
      buffer = events.pop()!;
      for (const event of events)
        if (event.startsWith('data: ') && event !== 'data: [DONE]')
          chunks.push(JSON.parse(event.slice(6)) as UIMessageChunk);
    }
    done = true;
  })();
  const until = async <T>(find: () => T | undefined, what: string): Promise<T> => {
    for (let i = 0; i < 200; i++) {
      const found = find();
      if (found !== undefined) return found;
      if (done) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the stream ended (or 10 s passed) without ${what}`);
  };
  return { chunks, until, ended: () => pump };
}

const question = (chunks: UIMessageChunk[], status: ElicitationRecord['status']) =>
  chunks
    .map((c) => (c.type === 'data-elicitation' ? (c as { data: ElicitationRecord }).data : undefined))
    .find((d) => d?.status === status);

for (const [server, era] of [
  ['strict', '2026-07-28 (input_required)'],
  ['stateful2025', '2025-11-25 (elicitation/create)'],
] as const) {
  describe(`a server asks the user, ${era}`, () => {
    it("the form reaches the stream; a bad answer is refused (400); accept completes the server's call with the content", async () => {
      const id = await createConversation(ERAS);
      const model = scriptedModel((call, index) =>
        index === 0
          ? callTools([`${server}__confirm_delete`, {}])
          : say(`The server said: ${toolResults(call.prompt)[0]?.text}`),
      );
      // confirm_delete changes data: it waits for approval first, then asks its own question.
      await approveWith(id, await turnUntilApproval(id, 'delete all notes', model), model, false);
      const stream = await follow(id);
      const asked = await stream.until(() => question(stream.chunks, 'pending'), 'a question');
      expect(asked).toMatchObject({
        server,
        message: 'Delete every note?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
      });

      const wrong = await postJson(
        `/v1/conversations/${id}/elicitations/${asked.id}`,
        { action: 'accept', content: { ok: 'yes' } },
        ERAS,
      );
      expect(wrong.status).toBe(400);
      expect((await wrong.json<{ error: { code: string; message: string } }>()).error).toEqual({
        code: 'invalid_content',
        message: 'The answer does not fit what the server asked for: "ok" must be yes or no.',
      });
      expect(
        (await postJson(`/v1/conversations/${id}/elicitations/nope`, { action: 'accept', content: { ok: true } }, ERAS))
          .status,
      ).toBe(404);
      expect(
        (await postJson(`/v1/conversations/${id}/elicitations/${asked.id}`, { action: 'maybe' }, ERAS)).status,
      ).toBe(400);

      const ok = await postJson(
        `/v1/conversations/${id}/elicitations/${asked.id}`,
        { action: 'accept', content: { ok: true } },
        ERAS,
      );
      expect(ok.status).toBe(200);
      await stream.ended();
      expect(question(stream.chunks, 'accept')).toMatchObject({ id: asked.id, content: { ok: true } });
      expect(toolResults(model.doStreamCalls[1]!.prompt)[0]!.text).toBe('deleted');

      // Saved with the turn: the question and its answer stay in the message (never shown to the model).
      const saved = (
        await (await api(`/v1/conversations/${id}`, {}, ERAS)).json<{ messages: UIMessage[] }>()
      ).messages.at(-1)!;
      expect(saved.parts.find((p) => p.type === 'data-elicitation')).toMatchObject({
        id: asked.id,
        data: { status: 'accept', content: { ok: true } },
      });
      expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).not.toContain('Delete every note?');
    });

    it('decline goes back to the server as decline', async () => {
      const id = await createConversation(ERAS);
      const model = scriptedModel((_call, index) =>
        index === 0 ? callTools([`${server}__confirm_delete`, {}]) : say('ok'),
      );
      await approveWith(id, await turnUntilApproval(id, 'delete all notes', model), model, false);
      const stream = await follow(id);
      const asked = await stream.until(() => question(stream.chunks, 'pending'), 'a question');
      expect(
        (await postJson(`/v1/conversations/${id}/elicitations/${asked.id}`, { action: 'decline' }, ERAS)).status,
      ).toBe(200);
      await stream.ended();
      expect(toolResults(model.doStreamCalls[1]!.prompt)[0]!.text).toBe('kept everything (decline)');
    });
  });
}

describe('outside a turn nobody can answer', () => {
  it('a tool called through the API alone gets "cancel" at once, and the server says what it did', async () => {
    const id = await createConversation(ERAS);
    const result = await callTool(await conversationStub(id), {
      server: 'strict',
      name: 'confirm_delete',
      arguments: {},
    });
    expect(result).toMatchObject({
      ok: true,
      value: { content: [{ type: 'text', text: 'kept everything (cancel)' }] },
    });
  });
});
