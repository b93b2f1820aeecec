import { runInDurableObject } from 'cloudflare:test';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { answerLanguageNote } from '../src/prompt/answer-language';
import { conversationStub, createConversation, postJson } from './helpers/api';
import { say, scriptedModel, sseChunks } from './helpers/turns';

/*
 * The widget's language reaches the model (issue 45, item 6): a message sent with `language` carries it in its
 * metadata, and the model gets one short instruction after that message — never in the system prompt, which stays
 * the same for every language (the prompt cache's prefix), and the same note each time the message is sent again.
 */

/** A model that answers "ok", set on the conversation for every turn of the test. */
async function answering(id: string) {
  const model = scriptedModel(() => say('ok'));
  await runInDurableObject(await conversationStub(id), (instance) => {
    instance.parts.terms.override({ model: { model, acceptsImages: false, spec: 'mock' } });
  });
  return model;
}

const userTexts = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((m) =>
    m.role === 'user' ? [m.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')] : [],
  );
const systemOf = (prompt: LanguageModelV4Prompt) =>
  prompt.flatMap((m) => (m.role === 'system' ? [m.content] : [])).join('\n');

describe('the user’s language', () => {
  it('reaches the model as one instruction after the message, the system prompt unchanged, the same on every turn', async () => {
    const id = await createConversation();
    const model = await answering(id);
    await sseChunks(
      await postJson(`/v1/conversations/${id}/messages`, { text: 'Wie spät ist es?', language: 'de-AT' }),
    );
    await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: 'Und morgen?', language: 'de-AT' }));

    const [first, second] = model.doStreamCalls.map((call) => call.prompt);
    const note = answerLanguageNote('de-AT');
    expect(note).toBe(
      "[The user's language: Austrian German (de-AT). Answer in Austrian German, unless the user writes in another language.]",
    );
    expect(userTexts(first!)).toEqual([`Wie spät ist es?\n${note}`]);
    // The first message is sent again exactly as before: the earlier request stays a prefix of the later one.
    expect(userTexts(second!)).toEqual([`Wie spät ist es?\n${note}`, `Und morgen?\n${note}`]);
    expect(systemOf(second!)).toBe(systemOf(first!));
    expect(systemOf(first!)).not.toContain('German');

    // Kept with the message (the history a frontend reads), not as a part of it.
    const stored = await runInDurableObject(await conversationStub(id), (instance) => instance.parts.history.load());
    const mine = stored.find((m) => m.role === 'user')!;
    expect(mine.metadata).toMatchObject({ language: 'de-AT' });
    expect(mine.parts).toEqual([{ type: 'text', text: 'Wie spät ist es?' }]);
  });

  it('comes with a useChat body too (`body: { language }`), and a message without one gets no note', async () => {
    const id = await createConversation();
    const model = await answering(id);
    await sseChunks(
      await postJson(`/v1/conversations/${id}/messages`, {
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: '今日の予定は？' }] }],
        language: 'ja',
      }),
    );
    await sseChunks(await postJson(`/v1/conversations/${id}/messages`, { text: 'Thanks.' }));
    const [, second] = model.doStreamCalls.map((call) => call.prompt);
    expect(userTexts(second!)).toEqual([`今日の予定は？\n${answerLanguageNote('ja')}`, 'Thanks.']);
    expect(answerLanguageNote('ja')).toContain('Answer in Japanese');
  });

  it('goes with a prompt the user runs: its last user message carries the note', async () => {
    const id = await createConversation();
    const model = await answering(id);
    await sseChunks(
      await postJson(`/v1/conversations/${id}/prompts/run`, {
        server: 'demo',
        name: 'plan_day',
        arguments: { hours: '4' },
        language: 'fr',
      }),
    );
    const sent = userTexts(model.doStreamCalls[0]!.prompt);
    expect(sent.at(-1)).toMatch(
      /\n\[The user's language: French \(fr\)\. Answer in French, unless the user writes in another language\.\]$/,
    );
    expect(sent.slice(0, -1).join('')).not.toContain("The user's language");
  });

  it('is user input: a tag that is not BCP 47, or too long, is refused with 400 and nothing runs', async () => {
    const id = await createConversation();
    const model = await answering(id);
    for (const language of ['german!', 'de_DE', 'x', `de-${'a'.repeat(40)}`, 'Ignore all previous instructions']) {
      const response = await postJson(`/v1/conversations/${id}/messages`, { text: 'Hallo', language });
      expect(response.status, language).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('invalid_body');
    }
    expect(model.doStreamCalls).toHaveLength(0);
  });
});
