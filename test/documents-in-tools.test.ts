import { describe, expect, inject, it } from 'vitest';
import { createConversation } from './helpers/api';
import { callTools, runScriptedTurn, say, scriptedModel, toolResults } from './helpers/turns';

// Documents that arrive inside tool results: the real `@modelcontextprotocol/server-filesystem` (stdio only), reached
// through test/infra/stdio-bridge.ts, whose `read_media_file` returns a PDF as an embedded resource
// (`application/octet-stream`, a blob). The "filesystem" tenant has that server alone ("files"), its reading tools
// auto-approved; the folder's files are listed in stdio-bridge.ts's header.
const AS = { authorization: 'Bearer test-key-filesystem', 'x-end-user': 'alice' };
const folder = inject('filesystemFolder');
const READ = 'files__read_media_file';

/** What the model was sent back for each tool call of a turn that makes `calls` (one step) and then answers. */
async function turnResults(id: string, calls: Array<[string, unknown]>, overrides = {}) {
  const model = scriptedModel((_call, step) => (step === 0 ? callTools(...calls) : say('done')));
  await runScriptedTurn(id, 'Read the files', model, overrides);
  // This turn's results (the prompt holds the earlier turns' too).
  return toolResults(model.doStreamCalls.at(-1)!.prompt).slice(-calls.length);
}

/** The `read_resource` arguments a window's continuation note names. */
function continuation(text: string): { uri: string; offset: number } {
  const found = /call read_resource with (\{[^\n]*\}) for the next part/.exec(text);
  expect(found, text.slice(-400)).not.toBeNull();
  return JSON.parse(found![1]!) as { uri: string; offset: number };
}

describe('a document in a tool result', () => {
  it('reaches the model as its text, with the line that says what it is — not base64, not a binary', async () => {
    const id = await createConversation(AS);
    const [result] = await turnResults(id, [[READ, { path: `${folder}/report.pdf` }]]);
    expect(result!.error).toBe(false);
    const text = result!.text;
    expect(text).toMatch(
      /^\[Document: application\/octet-stream, [\d.]+ KB, "Field report", 3 pages, uri file:\/\/\/[^,]*\/report\.pdf, server files — its text follows/,
    );
    expect(text).toContain('pages="pages 1-3 of 3"');
    expect(text).toContain('The inspection found 7 cracked bolts on the east span.');
    expect(text).not.toContain('JVBERi0'); // "%PDF-" in base64
    expect(text).not.toContain('[Binary resource');
  });

  it('longer than one window: the first window names its pages, the rest is read on, pages and all, in a later turn', async () => {
    const id = await createConversation(AS);
    const settings = { READ_WINDOW_CHARS: 4_000 };
    const [first] = await turnResults(id, [[READ, { path: `${folder}/manual.pdf` }]], settings);
    const text = first!.text;
    expect(text).toMatch(/^\[Document: application\/octet-stream, [\d.]+ KB, "Maintenance manual", 40 pages/);
    // The window ends where a page starts (in its last fifth: window-end.ts), so it holds whole pages.
    const [, end, lastPage] = /part="characters 0-(\d+) of \d+" pages="pages 1-(\d+) of 40"/.exec(text)!.map(Number);
    expect(end).toBeGreaterThan(3_200);
    expect(end).toBeLessThanOrEqual(4_000);
    expect(text).not.toContain('480 newton metres');
    // Nothing cut silently: the note says where the rest is kept (this call's result, its part 0).
    const next = continuation(text);
    expect(next.uri).toMatch(/^tool-result:\/\/call-[^/]+\/0$/);
    expect(next.offset).toBe(end);

    // The next turn (the kept text outlived the first one) reads on and searches it: each names its pages.
    const [later, search] = await turnResults(
      id,
      [
        ['read_resource', next],
        ['search_resource', { uri: next.uri, query: 'anchor bolts newton metres' }],
      ],
      settings,
    );
    expect(later!.error).toBe(false);
    expect(later!.text).toMatch(
      new RegExp(
        `uri="file:///[^"]*/manual\\.pdf" mime="text/markdown" part="characters ${end}-\\d+ of \\d+" pages="pages ${lastPage! + 1}-\\d+ of 40"`,
      ),
    );
    expect(search!.text).toMatch(/pages="page 31 of 40">[^<]*The anchor bolts are tightened to 480 newton metres\./);
  });

  it('a binary that is no document is still described; a "PDF" that is text is described with the reason', async () => {
    const id = await createConversation(AS);
    const [binary, fake] = await turnResults(id, [
      [READ, { path: `${folder}/data.bin` }],
      [READ, { path: `${folder}/fake.pdf` }],
    ]);
    expect(binary!.text).toMatch(
      /^\[Binary resource: application\/octet-stream, 512 B, uri file:\/\/\/[^,]*\/data\.bin, server files/,
    );
    expect(binary!.text).not.toContain('[Document:');
    expect(fake!.text).toMatch(
      /^\[Binary resource: application\/octet-stream, [\d.]+ B, uri file:\/\/\/[^,]*\/fake\.pdf/,
    );
    expect(fake!.text).toContain('(a document whose text could not be read: its bytes are not a PDF file)');
    expect(fake!.text).not.toContain('only claims to be a PDF');
  });

  it('text read as text is unchanged', async () => {
    const id = await createConversation(AS);
    const [notes] = await turnResults(id, [['files__read_text_file', { path: `${folder}/notes.txt` }]]);
    expect(notes!.text).toBe('Bring the torque wrench.\n');
  });
});
