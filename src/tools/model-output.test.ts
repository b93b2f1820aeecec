import { describe, expect, it } from 'vitest';
import { callOutcome, type RenderHost, toModelOutput } from './model-output';

const PNG = 'iVBORw0KGgo=';

function renderHost(overrides: Partial<RenderHost> = {}): RenderHost & { kept: Map<string, string>; links: string[] } {
  const kept = new Map<string, string>();
  const links: string[] = [];
  return {
    sessions: {
      registerResourceLink: (_server: string, uri: string) => void links.push(uri),
    } as RenderHost['sessions'],
    settings: { READ_WINDOW_CHARS: 200, INLINE_IMAGE_MAX_BYTES: 1_000 },
    acceptsImages: true,
    largeResults: {
      put: (uri, _server, text) => void kept.set(uri, text),
      get: () => undefined,
      keepOnly: () => 0,
    },
    kept,
    links,
    ...overrides,
  };
}

describe('what the model is shown of a tool result', () => {
  it('text alone is text; text with images is content with file parts', () => {
    expect(toModelOutput({ text: 'hello', images: [] })).toEqual({ type: 'text', value: 'hello' });
    expect(toModelOutput({ text: 'chart', images: [{ mediaType: 'image/png', base64: PNG }] })).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'chart' },
        { type: 'file', data: { type: 'data', data: PNG }, mediaType: 'image/png' },
      ],
    });
  });

  it('an MCP result: text kept, an image attached for a model that takes it and described for one that does not, a link made readable', () => {
    const result = {
      content: [
        { type: 'text', text: 'done' },
        { type: 'image', mimeType: 'image/png', data: PNG },
        { type: 'resource_link', uri: 'demo://report/1', name: 'report' },
      ],
    };
    const seeing = renderHost();
    const shown = callOutcome('demo', 'chart', result, 'call-1', seeing);
    expect(shown.kind).toBe('output');
    if (shown.kind !== 'output') return;
    expect(shown.output.images).toEqual([{ mediaType: 'image/png', base64: PNG }]);
    expect(shown.output.text).toContain('attached');
    expect(shown.output.text).toContain('demo://report/1');
    expect(seeing.links).toEqual(['demo://report/1']);
    const blind = callOutcome('demo', 'chart', result, 'call-1', renderHost({ acceptsImages: false }));
    expect(blind.kind === 'output' && blind.output.images).toEqual([]);
    expect(blind.kind === 'output' && blind.output.text).toContain('not shown to this model');
  });

  it('a result longer than one window: its first window and where the rest is kept, nothing cut silently', () => {
    const host = renderHost();
    const text = 'x'.repeat(300);
    const shown = callOutcome('demo', 'dump', { content: [{ type: 'text', text }] }, 'call-2', host);
    expect(shown.kind === 'output' && shown.output.text.startsWith('x'.repeat(200))).toBe(true);
    expect(shown.kind === 'output' && shown.output.text).toContain('tool-result://call-2');
    expect(host.kept.get('tool-result://call-2')).toBe(text);
  });

  it('a document in a result: its own windows, its rest kept as the result part; the result is not windowed again', () => {
    const host = renderHost();
    const text = 'Page one. '.repeat(50);
    const document = {
      uri: 'file:///x/manual.pdf',
      mimeType: 'text/markdown',
      text,
      size: text.length,
      document: {
        from: 'application/octet-stream',
        bytes: 900,
        format: 'pdf' as const,
        pageCount: 2,
        parts: { kind: 'page' as const, starts: [0, 250] },
      },
    };
    const result = {
      content: [
        { type: 'text' as const, text: 'Here it is.' },
        { type: 'resource' as const, resource: { uri: 'file:///x/manual.pdf', blob: 'JVBERi0=' } },
      ],
    };
    const shown = callOutcome('files', 'read', result, 'call-3', host, new Map([[1, document]]));
    const out = shown.kind === 'output' ? shown.output.text : '';
    expect(out).toMatch(/^Here it is\.\n\[Document: application\/octet-stream/);
    expect(out).toContain('part="characters 0-200 of 500" pages="page 1 of 2"');
    expect(out).toContain('"uri":"tool-result://call-3/1"');
    expect(host.kept.get('tool-result://call-3/1')).toBe(text);
    expect(host.kept.has('tool-result://call-3')).toBe(false);
    expect(shown.kind === 'output' && 'windowedChars' in shown.output).toBe(false);
  });

  it('an isError result and a result that is not one are failures, in the words the model is sent', () => {
    expect(
      callOutcome('demo', 'x', { content: [{ type: 'text', text: 'no such row' }], isError: true }, 'c', renderHost()),
    ).toEqual({
      kind: 'error',
      errorText: 'Tool "x" of MCP server "demo" returned an error: no such row',
    });
    const missing = callOutcome('demo', 'x', undefined, 'c', renderHost());
    expect(missing).toEqual({
      kind: 'error',
      errorText: expect.stringMatching(/^Tool "x" of MCP server "demo" failed: /),
    });
  });
});
