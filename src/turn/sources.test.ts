import type { UIMessage, UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import type { SourcesData } from '../../shared/api/stream';
import { sourceWindowText } from '../../shared/sources';
import type { ServerState } from '../mcp/catalog/catalog';
import { resourceBlock } from '../prompt/markers';
import { SourceCollector } from './sources';

const states = [
  {
    id: 'docs',
    resources: [
      { uri: 'docs://guide', name: 'guide', title: 'User guide', annotations: { lastModified: '2026-12-01' } },
    ],
  },
] as unknown as ServerState[];

const block = (from: number, to: number, text: string, pages?: string) =>
  resourceBlock(
    { server: 'docs', uri: 'docs://guide', mime: 'text/plain', window: { from, to, total: 100 }, pages },
    text,
  );

const question: UIMessage = { id: 'q1', role: 'user', parts: [{ type: 'text', text: 'What does the guide say?' }] };

function collect(collector: SourceCollector, chunks: UIMessageChunk[]): SourcesData | undefined {
  for (const chunk of chunks) collector.observe(chunk);
  return (collector.chunks()[0] as { data?: SourcesData } | undefined)?.data;
}

const read = (toolCallId: string, output: unknown, toolName = 'read_resource'): UIMessageChunk[] => [
  { type: 'tool-input-available', toolCallId, toolName, input: {} },
  { type: 'tool-output-available', toolCallId, output },
];

describe('SourceCollector', () => {
  it("one source per resource: its windows in order, partial until they cover it, the catalog's title and version", () => {
    const first = `[note]\n${block(0, 40, 'a'.repeat(40), 'page 1 of 3')}\n[Showing characters 0-40 of 100.]`;
    const data = collect(new SourceCollector({ states, messages: [question], maxInlineChars: 10, now: () => 5 }), [
      ...read('c1', { text: first, images: [], fetchedAt: 3 }),
      ...read('c2', block(40, 100, 'b'.repeat(60)), 'search_resource'),
    ]);
    const [source] = data!.sources;
    expect(data!.sources).toHaveLength(1);
    expect(source).toMatchObject({
      n: 1,
      title: 'User guide',
      version: '2026-12-01',
      via: 'read',
      partial: false,
      readAt: 5,
      fetchedAt: 3,
    });
    expect(source!.windows.map((w) => [w.offset, w.end, w.pages])).toEqual([
      [0, 40, 'page 1 of 3'],
      [40, 100, undefined],
    ]);
    // Each window points at exactly the body the model was sent.
    const answer = {
      parts: [
        { type: 'tool-read_resource', toolCallId: 'c1', output: { text: first } },
        { type: 'tool-search_resource', toolCallId: 'c2', output: block(40, 100, 'b'.repeat(60)) },
      ],
    };
    expect(sourceWindowText(source!.windows[0]!.text, answer)).toBe('a'.repeat(40));
    expect(sourceWindowText(source!.windows[1]!.text, answer)).toBe('b'.repeat(60));
  });

  it('a continuation lists the answer so far too; a long tool result and a failed call are no sources', () => {
    const before: UIMessage = {
      id: 'a1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-read_resource',
          toolCallId: 'c1',
          state: 'output-available',
          input: {},
          output: block(0, 10, 'x'.repeat(10)),
        },
      ],
    } as UIMessage;
    const kept = resourceBlock({ server: 'demo', uri: 'tool-result://c9', mime: 'text/plain' }, 'long');
    const data = collect(new SourceCollector({ states, messages: [question, before], maxInlineChars: 10 }), [
      ...read('c2', { text: kept, images: [] }, 'demo__search'),
      { type: 'tool-output-error', toolCallId: 'c3', errorText: 'no' },
    ]);
    expect(data!.sources.map((s) => [s.uri, s.partial])).toEqual([['docs://guide', true]]);
  });

  it('says nothing when nothing was read', () => {
    expect(new SourceCollector({ states, messages: [question], maxInlineChars: 10 }).chunks()).toEqual([]);
  });
});
