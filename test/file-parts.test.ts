import { Chat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart, type UIMessage } from 'ai';
import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ACME_ALICE, api, createConversation, openSocketTab, postJson } from './helpers/api';
import { makePdf } from './infra/pdf-fixtures';

/*
 * `useChat` file parts (the AI SDK's FileUIPart, a data: URL) sent by the AI SDK's own chat client, over HTTP and the
 * WebSocket: each becomes an upload of the conversation (the files route's store and limits) attached by reference —
 * the message names it in one line; its bytes never reach the prompt or the history.
 */

/** A tenant of its own (test/infra/tenants.ts): 4 KiB a file, 3 files a conversation, 20,000 bytes a day. */
const UPLOADERS = { authorization: 'Bearer test-key-uploaders', 'x-end-user': 'uma' };

const NOTES = 'Meeting notes, 12 March.\nThe overdue tasks are the invoice export and the SSO rollout.\n';
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const filePart = (bytes: Uint8Array, mediaType: string, filename: string): FileUIPart => ({
  type: 'file',
  mediaType,
  filename,
  url: `data:${mediaType};base64,${base64(bytes)}`,
});
const text = (s: string) => new TextEncoder().encode(s);

function chatOn(id: string, as: Record<string, string> = ACME_ALICE) {
  return new Chat<UIMessage>({
    id,
    transport: new DefaultChatTransport({
      api: 'http://localhost/v1/chat',
      headers: as,
      fetch: (input, init) => exports.default.fetch(input, init),
    }),
  });
}
async function settled(chat: Chat<UIMessage>) {
  for (let i = 0; i < 400 && (chat.status === 'submitted' || chat.status === 'streaming'); i++)
    await new Promise((r) => setTimeout(r, 25));
}

type Listed = { uri: string; name: string; title: string; mimeType: string; size: number };
const listed = async (id: string, as: Record<string, string> = ACME_ALICE) =>
  (await (await api(`/v1/conversations/${id}/files`, {}, as)).json<{ files: Listed[] }>()).files;
const stored = async (id: string, as: Record<string, string> = ACME_ALICE) =>
  (await (await api(`/v1/conversations/${id}`, {}, as)).json<{ messages: UIMessage[] }>()).messages;

describe('useChat file parts (Chat + DefaultChatTransport on POST /v1/chat)', () => {
  it('become uploads, attached by reference: listed in …/files, one line in the message, no bytes in the history', async () => {
    const id = await createConversation();
    const chat = chatOn(id);
    const pdf = makePdf({ title: 'Handbook', pages: [['# Travel', 'Trains are booked two weeks ahead.']] });
    await chat.sendMessage({
      text: 'What does this file say about trains?',
      files: [
        filePart(pdf, 'application/pdf', 'Travel handbook.pdf'),
        filePart(text(NOTES), 'text/plain', 'notes.txt'),
      ],
    });
    await settled(chat);
    expect(chat.error).toBeUndefined();

    const files = await listed(id);
    expect(files.map((f) => [f.name, f.title, f.mimeType, f.size])).toEqual([
      ['Travel_handbook.pdf', 'Travel handbook.pdf', 'application/pdf', pdf.length],
      ['notes.txt', 'notes.txt', 'text/plain', NOTES.length],
    ]);
    const [user] = await stored(id);
    const json = JSON.stringify(user);
    expect(json).not.toContain('data:');
    expect(json).not.toContain(base64(pdf).slice(0, 40));
    expect(user!.parts.some((p) => p.type === 'file')).toBe(false);
    expect(json).toContain(`[The user attached the file \\"Travel handbook.pdf\\" (application/pdf`);
    expect(user!.metadata).toMatchObject({
      attachments: [
        { server: 'uploads', uri: `upload://${id}/Travel_handbook.pdf` },
        { server: 'uploads', uri: `upload://${id}/notes.txt` },
      ],
    });
    // The model read the PDF's text when the question needed it (the offline model quotes it).
    const answer = chat.messages.at(-1)!;
    expect(answer.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).toContain('two weeks ahead');
  });

  it('an upload:// URI of the conversation is attached as it is; another URL is refused (400), nothing stored', async () => {
    const id = await createConversation();
    const form = new FormData();
    form.append('file', new File([NOTES], 'notes.txt', { type: 'text/plain' }));
    expect((await api(`/v1/conversations/${id}/files`, { method: 'POST', body: form })).status).toBe(201);
    const chat = chatOn(id);
    await chat.sendMessage({
      text: 'What is overdue?',
      files: [{ type: 'file', mediaType: 'text/plain', url: `upload://${id}/notes.txt` }],
    });
    await settled(chat);
    expect((await stored(id))[0]!.metadata).toMatchObject({
      attachments: [{ server: 'uploads', uri: `upload://${id}/notes.txt` }],
    });

    const remote = await postJson('/v1/chat', {
      id,
      messages: [
        {
          id: 'm2',
          role: 'user',
          parts: [
            { type: 'text', text: 'and this?' },
            { type: 'file', mediaType: 'application/pdf', filename: 'r.pdf', url: 'https://example.com/r.pdf' },
          ],
        },
      ],
    });
    expect(remote.status).toBe(400);
    const { error } = await remote.json<{ error: { code: string; message: string } }>();
    expect(error.code).toBe('unsupported_file_url');
    expect(error.message).toContain('as a https URL');
    expect((await listed(id)).map((f) => f.name)).toEqual(['notes.txt']);
  });

  it('a file over UPLOAD_MAX_BYTES: the same 413 as the files route, before anything is stored; no message kept', async () => {
    const id = await createConversation(UPLOADERS);
    const big = new Uint8Array(5_000).fill(65);
    const response = await postJson(
      '/v1/chat',
      {
        id,
        messages: [
          {
            id: 'm1',
            role: 'user',
            parts: [
              { type: 'text', text: 'read these' },
              filePart(text('small'), 'text/plain', 'small.txt'),
              filePart(big, 'text/plain', 'big.txt'),
            ],
          },
        ],
      },
      UPLOADERS,
    );
    expect(response.status).toBe(413);
    const { error } = await response.json<{ error: { code: string; message: string; limit: { name: string } } }>();
    expect(error.code).toBe('file_too_large');
    expect(error.limit.name).toBe('UPLOAD_MAX_BYTES');
    expect(error.message).toMatch(/"big.txt" is 4.9 KB; a file may be at most 4.0 KB \(UPLOAD_MAX_BYTES\)/);
    expect(await listed(id, UPLOADERS)).toEqual([]);
    expect((await env.UPLOADS.list({ prefix: `uploaders/${id}/` })).objects).toEqual([]);
    expect(await stored(id, UPLOADERS)).toEqual([]);
  });

  it('at once with uploads to the same conversation: the files together never pass UPLOADS_PER_CONVERSATION', async () => {
    const id = await createConversation(UPLOADERS);
    const chat = postJson(
      '/v1/chat',
      {
        id,
        messages: [
          {
            id: 'm1',
            role: 'user',
            parts: [
              { type: 'text', text: 'read these' },
              filePart(text('one'), 'text/plain', 'one.txt'),
              filePart(text('two'), 'text/plain', 'two.txt'),
            ],
          },
        ],
      },
      UPLOADERS,
    );
    const posts = ['three.txt', 'four.txt'].map((name) => {
      const form = new FormData();
      form.append('file', new File([name], name, { type: 'text/plain' }));
      return api(`/v1/conversations/${id}/files`, { method: 'POST', body: form }, UPLOADERS);
    });
    const [message, ...uploads] = await Promise.all([chat, ...posts]);
    await message!.text(); // the turn's stream, when it was admitted
    const accepted = [
      ...(message!.status === 200 ? ['one.txt', 'two.txt'] : []),
      ...uploads.flatMap((r, i) => (r.status === 201 ? [['three.txt', 'four.txt'][i]!] : [])),
    ].sort();
    // Three fit: whichever came first, the rest was refused as a whole, 429 naming the limit.
    expect(accepted.length).toBeLessThanOrEqual(3);
    for (const refused of [message!, ...uploads].filter((r) => r.status !== 200 && r.status !== 201)) {
      expect(refused.status).toBe(429);
      expect((await refused.json<{ error: { limit: { name: string } } }>()).error.limit.name).toBe(
        'UPLOADS_PER_CONVERSATION',
      );
    }
    expect((await listed(id, UPLOADERS)).map((f) => f.name).sort()).toEqual(accepted);
    const inR2 = (await env.UPLOADS.list({ prefix: `uploaders/${id}/` })).objects.map((o) => o.key.split('/').pop());
    expect(inR2.sort()).toEqual(accepted);
    expect(await stored(id, UPLOADERS)).toHaveLength(message!.status === 200 ? 2 : 0);
  });

  it('a turn refused after the files were stored (a tool call waits for approval) takes them back', async () => {
    const id = await createConversation();
    const chat = chatOn(id);
    await chat.sendMessage({ text: 'create_task title="Write notes"' }); // waits for the user's approval
    await settled(chat);
    const refused = await postJson('/v1/chat', {
      id,
      messages: [
        {
          id: 'm2',
          role: 'user',
          parts: [{ type: 'text', text: 'x' }, filePart(text(NOTES), 'text/plain', 'late.txt')],
        },
      ],
    });
    expect(refused.status).toBe(409);
    expect(await listed(id)).toEqual([]);
    expect((await env.UPLOADS.list({ prefix: `acme/${id}/` })).objects).toEqual([]);
  });
});

describe('file parts over the WebSocket (the useAgentChat request frame)', () => {
  it('become uploads the same way', async () => {
    const id = await createConversation();
    const { socket, frames } = await openSocketTab(id);
    const body = JSON.stringify({
      messages: [
        {
          id: 'w1',
          role: 'user',
          parts: [{ type: 'text', text: 'What is overdue?' }, filePart(text(NOTES), 'text/plain', 'notes.txt')],
        },
      ],
    });
    socket.send(JSON.stringify({ type: 'cf_agent_use_chat_request', id: 'ws-1', init: { method: 'POST', body } }));
    await expect
      .poll(() => frames.some((f) => f.type === 'cf_agent_use_chat_response' && f.id === 'ws-1' && f.done), {
        timeout: 15_000,
      })
      .toBe(true);
    expect((await listed(id)).map((f) => f.name)).toEqual(['notes.txt']);
    const [user] = await stored(id);
    expect(JSON.stringify(user)).not.toContain('data:');
    expect(user!.metadata).toMatchObject({ attachments: [{ server: 'uploads', uri: `upload://${id}/notes.txt` }] });
    socket.close();
  });
});
