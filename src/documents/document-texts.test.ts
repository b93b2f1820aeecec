import { describe, expect, it } from 'vitest';
import type { StoredContents } from '../../shared/api/resources';
import { emptyServerState } from '../mcp/catalog/catalog';
import { documentTextChars, rememberDocumentText } from './document-texts';

const converted = (uri: string, text: string, bytes: number): StoredContents => ({
  uri,
  mimeType: 'text/markdown',
  text,
  size: text.length,
  document: { from: 'application/pdf', bytes, format: 'pdf' },
});

describe('document text sizes', () => {
  it('are known once read, while the listing gives the bytes they were converted from', () => {
    const state = emptyServerState('docs');
    expect(rememberDocumentText(state, 'docs://a.pdf', [converted('docs://a.pdf', 'x'.repeat(300), 9_000)])).toBe(true);
    expect(rememberDocumentText(state, 'docs://a.pdf', [converted('docs://a.pdf', 'x'.repeat(300), 9_000)])).toBe(
      false,
    );
    expect(documentTextChars(state, { uri: 'docs://a.pdf', size: 9_000 })).toBe(300);
    // A new version (listed at other bytes) is weighed again only when read.
    expect(documentTextChars(state, { uri: 'docs://a.pdf', size: 9_500 })).toBeUndefined();
    expect(documentTextChars(state, { uri: 'docs://a.pdf' })).toBeUndefined();
  });

  it('nothing for what is no converted document (text, a failed conversion), and at most 200 per server', () => {
    const state = emptyServerState('docs');
    expect(rememberDocumentText(state, 'docs://t', [{ uri: 'docs://t', text: 'plain', size: 5 }])).toBe(false);
    const failed = {
      uri: 'docs://f.pdf',
      blob: 'AAAA',
      size: 3,
      document: { from: 'application/pdf', bytes: 3, failed: 'no' },
    };
    expect(rememberDocumentText(state, 'docs://f.pdf', [failed])).toBe(false);
    for (let i = 0; i < 210; i++)
      rememberDocumentText(state, `docs://${i}.pdf`, [converted(`docs://${i}.pdf`, 'y', 10)]);
    expect(Object.keys(state.documentTexts!)).toHaveLength(200);
    expect(documentTextChars(state, { uri: 'docs://0.pdf', size: 10 })).toBeUndefined(); // the oldest went first
    expect(documentTextChars(state, { uri: 'docs://209.pdf', size: 10 })).toBe(1);
  });
});
