import { describe, expect, it } from 'vitest';
import type { StoredContents } from '../cache/types';
import { parseContinuation, parseResourceBlocks } from './markers';
import { renderResource, wrapPassage } from './render';

const TEXT = 'The quick brown fox jumps over the lazy dog.'; // 44 characters
const text = (uri: string, body: string, mimeType = 'text/plain'): StoredContents => ({
  uri,
  mimeType,
  text: body,
  size: body.length,
});
const blob = (uri: string, mimeType: string, base64: string, size: number): StoredContents => ({
  uri,
  mimeType,
  blob: base64,
  size,
});
const OPTIONS = { windowChars: 1_000, images: true, maxImageBytes: 1_000 };

describe('renderResource: text', () => {
  it('a short text is one wrapped block, whole, with no window and no continuation', () => {
    const view = renderResource({ server: 'docs', uri: 'docs://fox', contents: [text('docs://fox', TEXT)] }, OPTIONS);
    expect(parseResourceBlocks(view.text)).toEqual([
      { server: 'docs', uri: 'docs://fox', mime: 'text/plain', body: TEXT },
    ]);
    expect(parseContinuation(view.text)).toBeUndefined();
    expect(view.window).toEqual({ offset: 0, end: 44, total: 44 });
  });

  it('a long text comes in windows that say where the next starts; read in order they give the whole text back', () => {
    const target = { server: 'docs', uri: 'docs://fox', contents: [text('docs://fox', TEXT)] };
    const bodies: string[] = [];
    let offset: number | undefined = 0;
    let windows = 0;
    while (offset !== undefined) {
      const view = renderResource(target, { ...OPTIONS, windowChars: 20, offset });
      const [block] = parseResourceBlocks(view.text);
      expect(block!.window).toEqual({ from: offset, to: view.window.end, total: 44 });
      bodies.push(block!.body);
      const note = parseContinuation(view.text);
      if (view.window.nextOffset === undefined)
        expect(note).toBeUndefined(); // the last window says nothing more is coming
      else expect(note?.next).toEqual({ uri: 'docs://fox', server: 'docs', offset: view.window.nextOffset });
      offset = view.window.nextOffset;
      windows++;
    }
    expect(windows).toBe(3);
    expect(bodies.join('')).toBe(TEXT);
  });

  it('windows run across several text entries of one resource', () => {
    const target = {
      server: 'docs',
      uri: 'docs://pair',
      contents: [text('docs://pair#1', 'a'.repeat(15)), text('docs://pair#2', 'b'.repeat(15))],
    };
    const blocks = parseResourceBlocks(renderResource(target, { ...OPTIONS, windowChars: 20 }).text);
    expect(blocks.map((b) => [b.uri, b.body, b.window])).toEqual([
      ['docs://pair#1', 'a'.repeat(15), { from: 0, to: 15, total: 30 }],
      ['docs://pair#2', 'b'.repeat(5), { from: 15, to: 20, total: 30 }],
    ]);
  });

  it('an empty resource says so', () => {
    expect(renderResource({ server: 'docs', uri: 'docs://none', contents: [] }, OPTIONS).text).toBe(
      '[Resource docs://none on server docs is empty]',
    );
  });

  // Was a bug: an offset at or past the end (a stale offset, a resource that shrank between windows) called a
  // 44-character resource empty.
  it('an offset past the end says where the text ends, never that the resource is empty', () => {
    const view = renderResource(
      { server: 'docs', uri: 'docs://fox', contents: [text('docs://fox', TEXT)] },
      { ...OPTIONS, offset: 100 },
    );
    expect(view.window.total).toBe(44);
    expect(view.text).not.toContain('is empty');
    expect(view.text).toContain('has 44 characters; offset 44 is at or past its end');
  });
});

describe('renderResource: binaries and images', () => {
  const PDF = btoa('%PDF-1.7 not really a pdf');

  it('a binary is described (type, size, title, URI, server), never decoded', () => {
    const view = renderResource(
      {
        server: 'files',
        uri: 'files://a.pdf',
        title: 'Annual report',
        contents: [blob('files://a.pdf', 'application/pdf', PDF, 2_048)],
      },
      OPTIONS,
    );
    expect(view.text).toBe(
      '[Binary resource: application/pdf, 2.0 KB, "Annual report", uri files://a.pdf, server files — binary content cannot be shown inline]',
    );
    expect(view.text).not.toContain(PDF);
    expect(view.images).toEqual([]);
  });

  it('a blob declared text whose bytes are UTF-8 is shown as its text', () => {
    const view = renderResource(
      { server: 'docs', uri: 'docs://b', contents: [blob('docs://b', 'text/plain', btoa(TEXT), 44)] },
      OPTIONS,
    );
    expect(parseResourceBlocks(view.text)[0]?.body).toBe(TEXT);
  });

  it('an image becomes an image part only when the model takes images and it is within maxImageBytes', () => {
    const png = blob('img://cat.png', 'image/png', 'iVBORw0KGgo=', 800);
    const target = { server: 'img', uri: 'img://cat.png', contents: [png] };
    const attached = renderResource(target, OPTIONS);
    expect(attached.images).toEqual([{ mediaType: 'image/png', base64: 'iVBORw0KGgo=', uri: 'img://cat.png' }]);
    expect(attached.text).toContain('attached as an image');
    for (const options of [
      { ...OPTIONS, images: false },
      { ...OPTIONS, maxImageBytes: 799 },
    ]) {
      const described = renderResource(target, options);
      expect(described.images).toEqual([]);
      expect(described.text).toMatch(/^\[Binary resource: image\/png, 800 B, uri img:\/\/cat\.png, server img/);
      expect(described.text).not.toContain('iVBORw0KGgo=');
    }
  });
});

describe('wrapPassage', () => {
  it('wraps a passage like the window of the resource it comes from', () => {
    const wrapped = wrapPassage('logs', 'logs://app', 'text/plain', { offset: 120, end: 164, text: TEXT }, 5_000);
    expect(parseResourceBlocks(wrapped)).toEqual([
      {
        server: 'logs',
        uri: 'logs://app',
        mime: 'text/plain',
        window: { from: 120, to: 164, total: 5_000 },
        body: TEXT,
      },
    ]);
  });
});
