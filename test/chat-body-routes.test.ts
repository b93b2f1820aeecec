import { Chat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithApprovalResponses, type UIMessage } from 'ai';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ACME_ALICE, api, createConversation } from './helpers/api';

// The AI SDK's own chat client (Chat + DefaultChatTransport, what useChat runs on) pointed at each route that takes its
// body: one meaning everywhere — a message, a regeneration, approval answers. (The offline model answers; it calls a
// tool the user names verbatim.)

const routes = {
  '/v1/chat': (_id: string) => 'http://localhost/v1/chat',
  '/v1/conversations/:id/messages': (id: string) => `http://localhost/v1/conversations/${id}/messages`,
};

function chatOn(route: keyof typeof routes, id: string) {
  return new Chat<UIMessage>({
    id,
    transport: new DefaultChatTransport({
      api: routes[route](id),
      headers: ACME_ALICE,
      fetch: (input, init) => exports.default.fetch(input, init),
    }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
}

async function settled(chat: Chat<UIMessage>) {
  for (let i = 0; i < 400 && (chat.status === 'submitted' || chat.status === 'streaming'); i++)
    await new Promise((r) => setTimeout(r, 25));
  if (chat.error) throw chat.error;
}

const stored = async (id: string) =>
  (await (await api(`/v1/conversations/${id}`)).json<{ messages: UIMessage[] }>()).messages;
const textOf = (m: UIMessage | undefined) => (m?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');

describe.each(Object.keys(routes) as Array<keyof typeof routes>)('the AI SDK chat body on %s', (route) => {
  it('regenerate replaces the answer: user, assistant — stored once, never appended', async () => {
    const id = await createConversation();
    const chat = chatOn(route, id);
    await chat.sendMessage({ text: 'What does the team work on?' });
    await settled(chat);
    const first = await stored(id);
    expect(first.map((m) => m.role)).toEqual(['user', 'assistant']);

    await chat.regenerate();
    await settled(chat);
    const after = await stored(id);
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(after[0]!.id).toBe(first[0]!.id);
    expect(after[1]!.id).not.toBe(first[1]!.id);
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(textOf(chat.messages[1])).toBe(textOf(after[1]));
  });

  it('an approval answered in the last assistant message continues the turn, once', async () => {
    const id = await createConversation();
    const chat = chatOn(route, id);
    const title = `Chat body task ${crypto.randomUUID().slice(0, 8)}`;
    await chat.sendMessage({ text: `create_task title="${title}"` });
    await settled(chat);
    const asked = chat.messages
      .at(-1)!
      .parts.find((p) => 'approval' in p && (p as { state?: string }).state === 'approval-requested') as
      | { approval: { id: string } }
      | undefined;
    expect(asked, JSON.stringify(chat.messages.at(-1))).toBeTruthy();
    await chat.addToolApprovalResponse({ id: asked!.approval.id, approved: true });
    await settled(chat);
    const after = await stored(id);
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(after[1]!.parts.some((p) => (p as { state?: string }).state === 'output-available')).toBe(true);
    expect(textOf(after[1])).toContain(title);
  });
});
