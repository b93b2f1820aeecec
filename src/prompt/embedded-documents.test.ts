import { describe, expect, it } from 'vitest';
import type { ConvertOutput, DocumentFormat } from '../../shared/documents';
import type { DocumentReading } from '../documents/document-converter';
import { embeddedDocuments, renderEmbeddedDocument } from './embedded-documents';
import { renderPrompt } from '../tools/synthetic/invoke-prompt';
import { promptMessages } from './prompt-messages';

const b64 = (text: string) => btoa(text);
const PDF = b64('%PDF-1.4 three pages');

/** A converter that answers three pages of text (or `text`), and records what it was given. */
function fakeReading(text = 'Page one.\n\nPage two.\n\nPage three.'): DocumentReading & { seen: DocumentFormat[] } {
  const seen: DocumentFormat[] = [];
  const starts = [0, text.indexOf('Page two'), text.indexOf('Page three')].map((s) => Math.max(0, s));
  return {
    seen,
    maxBytes: 1_000_000,
    limits: { maxPages: 500, maxChars: 2_000_000 },
    converter: {
      kind: 'local',
      convert: async (_bytes, format): Promise<ConvertOutput> => {
        seen.push(format);
        return { ok: true, document: { format, text, title: 'Report', pageCount: 3, parts: { kind: 'page', starts } } };
      },
      pageImage: async () => ({ ok: false, reason: 'not used here' }),
    },
  };
}

describe('documents embedded in a result or a prompt', () => {
  it('are found by type, or by name when the type says only octet-stream; their bytes are checked', async () => {
    const reading = fakeReading();
    const found = await embeddedDocuments(
      [
        { type: 'text' },
        {
          type: 'resource',
          resource: { uri: 'file:///x/report.pdf', mimeType: 'application/octet-stream', blob: PDF },
        },
        { type: 'resource', resource: { uri: 'file:///x/data.bin', mimeType: 'application/octet-stream', blob: PDF } },
        { type: 'resource', resource: { uri: 'file:///x/fake.pdf', mimeType: 'application/pdf', blob: b64('not') } },
        { type: 'resource', resource: { uri: 'file:///x/notes.md', mimeType: 'text/markdown', text: '# notes' } },
      ],
      reading,
    );
    expect([...found.keys()].sort()).toEqual([1, 3]);
    expect(found.get(1)).toMatchObject({ mimeType: 'text/markdown', document: { format: 'pdf', pageCount: 3 } });
    expect(found.get(3)).toMatchObject({ document: { failed: 'its bytes are not a PDF file' } });
    expect(reading.seen).toEqual(['pdf']);
    // DOCUMENT_CONVERTER=off: none.
    expect(
      (await embeddedDocuments([{ type: 'resource', resource: { uri: 'a.pdf', blob: PDF } }], undefined)).size,
    ).toBe(0);
  });

  it('are shown as a read shows them: whole within a window; past it, the first window and where the rest is kept', async () => {
    const long = Array.from({ length: 3 }, (_, i) => `Page ${['one', 'two', 'three'][i]}. ${'words '.repeat(40)}`).join(
      '\n\n',
    );
    const [entry] = (
      await embeddedDocuments(
        [{ type: 'resource', resource: { uri: 'file:///x/report.pdf', blob: PDF } }],
        fakeReading(long),
      )
    ).values();
    const whole = renderEmbeddedDocument('files', entry!, { windowChars: 10_000 });
    expect(whole).toMatch(
      /^\[Document: application\/octet-stream, .*"Report", 3 pages, uri file:\/\/\/x\/report\.pdf, server files/,
    );
    expect(whole).toContain('pages="pages 1-3 of 3"');

    const kept: Array<{ text: string; uri: string }> = [];
    const windowed = renderEmbeddedDocument('files', entry!, {
      windowChars: 300,
      keep: (text, source) => {
        kept.push({ text, uri: source.uri });
        return 'tool-result://c1/0';
      },
    });
    expect(kept).toEqual([{ text: long, uri: 'file:///x/report.pdf' }]);
    // The first window ends where page two starts (in its last fifth: window-end.ts).
    expect(windowed).toContain(`part="characters 0-${long.indexOf('Page two')} of ${long.length}"`);
    expect(windowed).toContain('"uri":"tool-result://c1/0"');
    // Nothing keeps it: the whole text, never cut.
    expect(renderEmbeddedDocument('files', entry!, { windowChars: 300 })).toContain(long);
  });

  it("a prompt's documents become its messages' text, whole (the user chose to send them)", async () => {
    const result = {
      messages: [
        { role: 'user' as const, content: { type: 'text' as const, text: 'Summarise this' } },
        {
          role: 'user' as const,
          content: { type: 'resource' as const, resource: { uri: 'file:///x/report.pdf', blob: PDF } },
        },
      ],
    };
    const documents = await embeddedDocuments(
      result.messages.map((m) => m.content),
      fakeReading(),
    );
    const messages = promptMessages(
      'files',
      'summarise',
      result,
      {
        settings: { READ_WINDOW_CHARS: 10, INLINE_IMAGE_MAX_BYTES: 0 },
        acceptsImages: false,
      },
      documents,
    );
    const text = (messages[1]!.parts[0] as { text: string }).text;
    expect(text).toMatch(/^\[Document: /);
    expect(text).toContain('Page three.');
    expect(text).not.toContain('[Binary resource');
  });

  it('invoke_prompt windows them like a tool result, the rest kept as its part', async () => {
    const long = `Page one. ${'words '.repeat(100)}`;
    const result = {
      messages: [
        { role: 'user' as const, content: { type: 'resource' as const, resource: { uri: 'a.pdf', blob: PDF } } },
      ],
    };
    const found = await embeddedDocuments(
      result.messages.map((m) => m.content),
      fakeReading(long),
    );
    const kept = new Map<string, string>();
    const largeResults = {
      put: (uri: string, _s: string, text: string) => void kept.set(uri, text),
      get: () => undefined,
      keepOnly: () => 0,
    };
    const text = renderPrompt(
      'files',
      'p',
      result,
      { settings: { READ_WINDOW_CHARS: 100 } as never, largeResults },
      { found, toolCallId: 'c9' },
    );
    expect(text).toContain('[user] [Document: ');
    expect(text).toContain('"uri":"tool-result://c9/0"');
    expect(kept.get('tool-result://c9/0')).toBe(long);
  });
});
