import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { Source, SourcesData } from '../shared/api/stream';
import { sourceWindowText } from '../shared/sources';
import { ACME_ALICE, api, conversationStub, createConversation } from './helpers/api';
import { settle } from './helpers/conversation';
import { callTools, runScriptedTurn, say, scriptedModel } from './helpers/turns';

// An answer's `data-sources` part (src/turn/sources.ts), through a real turn in the conversation's Durable Object: the
// demo server's long test matrix read in windows, the docs server's PDF read from a page and searched, an attached
// resource; the part in the stream and in the stored message, each window pointing at the text the model received.
// The "documents" tenant has the demo server and test/infra/document-server.ts ("docs").
const ALICE = { authorization: 'Bearer test-key-documents', 'x-end-user': 'alice' };

const sourcesIn = (chunks: UIMessageChunk[]) =>
  chunks.filter((c) => c.type === 'data-sources').map((c) => (c as unknown as { data: SourcesData }).data);

async function storedAnswer(id: string): Promise<UIMessage> {
  await settle(await conversationStub(id));
  const response = await api(`/v1/conversations/${id}`, {}, ALICE);
  const { messages } = (await response.json()) as { messages: UIMessage[] };
  return messages.at(-1)!;
}

/** The text a source's window points at, looked up in the stored messages as a frontend would. */
function windowText(window: Source['windows'][number], answer: UIMessage, all: UIMessage[] = [answer]): string {
  const at = window.text;
  return sourceWindowText(at, answer, at.in === 'message' ? all.find((m) => m.id === at.messageId) : undefined)!;
}

describe('the sources of an answer (data-sources)', () => {
  it('a windowed read names its window; a second window of the same resource joins it; the text is what the model got', async () => {
    const id = await createConversation(ALICE);
    const model = scriptedModel((_call, step) =>
      step === 0
        ? callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo' }])
        : step === 1
          ? callTools(['read_resource', { uri: 'docs://test-matrix', server: 'demo', offset: 3000 }])
          : say('The matrix lists the products (docs://test-matrix).'),
    );
    const chunks = await runScriptedTurn(id, 'What does the test matrix list?', model, { READ_WINDOW_CHARS: 3000 });
    const [data] = sourcesIn(chunks);
    expect(sourcesIn(chunks)).toHaveLength(1);
    // Said before the answer's end, so a client has it when the answer is done.
    expect(chunks.findIndex((c) => c.type === 'data-sources')).toBeLessThan(
      chunks.findIndex((c) => c.type === 'finish'),
    );
    const [source] = data!.sources;
    expect(data!.sources).toHaveLength(1);
    expect(source).toMatchObject({ n: 1, server: 'demo', uri: 'docs://test-matrix', via: 'read', partial: true });
    expect(source!.title).toBeTruthy();
    expect(source!.windows.map((w) => [w.offset, w.total > 11_000])).toEqual([
      [0, true],
      [3000, true],
    ]);
    expect(source!.windows[0]!.end).toBeLessThanOrEqual(3000);
    expect(source!.fetchedAt).toBeLessThanOrEqual(source!.readAt);

    // Stored with the answer (the transcript API): each window's text is the body the model was sent.
    const answer = await storedAnswer(id);
    const part = answer.parts.find((p) => p.type === 'data-sources') as unknown as { id: string; data: SourcesData };
    expect(part.id).toBe('sources');
    expect(part.data).toEqual(data);
    const first = windowText(part.data.sources[0]!.windows[0]!, answer);
    const second = windowText(part.data.sources[0]!.windows[1]!, answer);
    const read = await api(`/v1/conversations/${id}/resources/read`, {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'demo', uri: 'docs://test-matrix' }),
    });
    const whole = ((await read.json()) as { contents: Array<{ text: string }> }).contents[0]!.text;
    expect(whole.startsWith(first)).toBe(true);
    expect(whole.slice(source!.windows[1]!.offset).startsWith(second)).toBe(true);
    expect(first.length).toBe(source!.windows[0]!.end);
  });

  it("a page read names the document's pages; a search adds its passages with theirs", async () => {
    const id = await createConversation(ALICE);
    const model = scriptedModel((_call, step) =>
      step === 0
        ? callTools(
            ['read_resource', { uri: 'docs://handbook.pdf', server: 'docs', page: 7 }],
            ['search_resource', { uri: 'docs://handbook.pdf', server: 'docs', query: 'parental leave weeks' }],
          )
        : say('Sixteen weeks, says docs://handbook.pdf.'),
    );
    const chunks = await runScriptedTurn(id, 'How long is parental leave?', model, { READ_WINDOW_CHARS: 1500 });
    const [source] = sourcesIn(chunks)[0]!.sources;
    // The two calls ran at once: the source is named by the first to end (read or search).
    expect(source).toMatchObject({ server: 'docs', uri: 'docs://handbook.pdf', partial: true });
    expect(source!.windows[0]!.pages).toMatch(/^pages? 7(-\d+)? of 12$/);
    expect(source!.windows.some((w) => w.pages === 'page 7 of 12')).toBe(true);
    const answer = await storedAnswer(id);
    const texts = source!.windows.map((w) => windowText(w, answer));
    expect(texts.some((t) => t.includes('Parental leave is sixteen weeks'))).toBe(true);
  });

  it('an attached resource is a source pointing into the question; an answer that read nothing has no part', async () => {
    const id = await createConversation(ALICE);
    const stub = await conversationStub(id);
    const send = await api(`/v1/conversations/${id}/messages`, {
      method: 'POST',
      headers: { ...ALICE, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'What do the guidelines say?',
        attachments: [{ server: 'demo', uri: 'task://guidelines' }],
      }),
    });
    expect(send.status).toBe(200);
    await send.text();
    await settle(stub);
    const response = await api(`/v1/conversations/${id}`, {}, ALICE);
    const { messages } = (await response.json()) as { messages: UIMessage[] };
    const answer = messages.at(-1)!;
    const part = answer.parts.find((p) => p.type === 'data-sources') as unknown as { data: SourcesData };
    const attached = part.data.sources.find((s) => s.uri === 'task://guidelines')!;
    expect(attached).toMatchObject({ server: 'demo', via: 'attachment', partial: false });
    expect(attached.windows[0]!.text).toMatchObject({ in: 'message', messageId: messages.at(-2)!.id });
    expect(windowText(attached.windows[0]!, answer, messages).length).toBeGreaterThan(20);

    const plain = await createConversation(ALICE);
    const chunks = await runScriptedTurn(
      plain,
      'hello',
      scriptedModel(() => say('Hello!')),
    );
    expect(sourcesIn(chunks)).toEqual([]);
  });

  it('a pinned resource is a source when the answer cites it, its text in the part (bounded); uncited, it is not', async () => {
    // The suite's demo server pins task://guidelines (test/infra/tenants.ts): it is in every request's system prompt.
    const id = await createConversation(ACME_ALICE);
    const cited = await runScriptedTurn(
      id,
      'Who owns a task?',
      scriptedModel(() => say('Every task has one owner (task://guidelines).')),
      {
        SOURCE_TEXT_MAX_CHARS: 40,
      },
    );
    const [source] = sourcesIn(cited)[0]!.sources;
    expect(source).toMatchObject({ n: 1, server: 'demo', uri: 'task://guidelines', via: 'pinned', partial: false });
    expect(source!.windows[0]!.text).toMatchObject({ in: 'inline', truncated: true });
    expect((source!.windows[0]!.text as { text: string }).text).toHaveLength(40);

    const uncited = await runScriptedTurn(
      id,
      'Thanks',
      scriptedModel(() => say('You are welcome.')),
    );
    expect(sourcesIn(uncited)).toEqual([]);
  });
});
