import { describe, expect, it } from 'vitest';
import type { StoredContents } from '../../shared/api/resources';
import { convertDocuments } from './convert-contents';
import type { DocumentReading } from './document-converter';

/** A converter that records what it was given and answers with the format's name. */
function reading(maxBytes = 1_000_000): DocumentReading & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    maxBytes,
    limits: { maxPages: 10, maxChars: 10_000 },
    converter: {
      kind: 'local',
      async convert(_bytes, format) {
        calls.push(format);
        return { ok: true, document: { format, text: `${format} as text`, pageCount: 1 } };
      },
      pageImage: async () => ({ ok: false, reason: 'not used here' }),
    },
  };
}

const b64 = (text: string) => btoa(text);

describe('convertDocuments', () => {
  it('leaves an MCP Apps view alone: HTML to run, not to read', async () => {
    const r = reading();
    const view: StoredContents = {
      uri: 'ui://demo/board',
      mimeType: 'text/html;profile=mcp-app',
      text: '<p>x</p>',
      size: 8,
    };
    const page: StoredContents = { uri: 'https://x/page', mimeType: 'text/html', text: '<p>x</p>', size: 8 };
    const [kept, converted] = await convertDocuments([view, page], r);
    expect(kept).toBe(view);
    expect(converted).toMatchObject({
      mimeType: 'text/markdown',
      text: 'html as text',
      document: { from: 'text/html' },
    });
    expect(r.calls).toEqual(['html']);
  });

  it('a PDF whose bytes are no PDF, and one past DOCUMENT_MAX_BYTES, keep their bytes and say why; nothing is converted', async () => {
    const r = reading(100);
    const fake: StoredContents = { uri: 'f://a.pdf', mimeType: 'application/pdf', blob: b64('not a pdf'), size: 9 };
    const big: StoredContents = { uri: 'f://b.pdf', mimeType: 'application/pdf', blob: b64('%PDF-1.4'), size: 5_000 };
    const [a, b] = await convertDocuments([fake, big], r);
    expect(a).toMatchObject({ blob: fake.blob, document: { failed: 'its bytes are not a PDF file' } });
    expect(b).toMatchObject({ blob: big.blob, document: { failed: expect.stringMatching(/DOCUMENT_MAX_BYTES/) } });
    expect(r.calls).toEqual([]);
  });

  it('text, images and CSV pass through untouched, without a call', async () => {
    const r = reading();
    const contents: StoredContents[] = [
      { uri: 'a://t', mimeType: 'text/plain', text: 'hello', size: 5 },
      { uri: 'a://c.csv', mimeType: 'text/csv', text: 'a,b', size: 3 },
      { uri: 'a://i.png', mimeType: 'image/png', blob: b64('png'), size: 3 },
    ];
    expect(await convertDocuments(contents, r)).toBe(contents);
    expect(r.calls).toEqual([]);
  });
});
