import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ServerState } from '../mcp/catalog/catalog';
import { emptyServerState } from '../mcp/catalog/catalog';
import { predictedRead, readInHistory } from './predicted-read';

const server = (id: string, resources: ServerState['resources']): ServerState => ({
  ...emptyServerState(id),
  status: 'connected',
  resources,
});
const HANDBOOK = server('docs', [
  {
    uri: 'docs://on-call',
    name: 'on-call',
    title: 'On-call rotation',
    description: 'Who is paged and when pages escalate',
    mimeType: 'text/markdown',
    size: 6_000,
  },
  {
    uri: 'docs://travel',
    name: 'travel',
    title: 'Travel',
    description: 'Booking trips, hotels and per-diem limits',
    mimeType: 'text/markdown',
    size: 6_000,
  },
  {
    uri: 'docs://expenses',
    name: 'expenses',
    title: 'Expenses',
    description: 'Claims, receipts and approval limits',
    mimeType: 'text/markdown',
    size: 6_000,
  },
  { uri: 'docs://logo.png', name: 'logo', title: 'Travel logo', mimeType: 'image/png' },
]);
const none = { inlined: new Set<string>(), read: new Set<string>(), windowChars: 24_000 };

describe('predictedRead', () => {
  it('a resource that clearly leads the ranking is predicted', () => {
    expect(predictedRead([HANDBOOK], 'After how many minutes do pages escalate?', none)).toEqual({
      server: 'docs',
      uri: 'docs://on-call',
      because: 'leads',
    });
  });

  it('a message that names a resource by its title or URI predicts it', () => {
    expect(predictedRead([HANDBOOK], 'Summarise the On-call rotation for me', none)?.because).toBe('named');
    expect(predictedRead([HANDBOOK], 'what is in docs://expenses?', none)).toMatchObject({ uri: 'docs://expenses' });
  });

  it('more of the message’s words lead over a heavier single word', () => {
    const notes = server('notes', [
      {
        uri: 'notes://job-queue',
        name: 'job-queue',
        title: 'Design note: job queue',
        description: 'Why we built it',
        mimeType: 'text/markdown',
        size: 6_000,
      },
      {
        uri: 'notes://notifications',
        name: 'notifications',
        title: 'Runbook: notifications',
        description: 'Queues, workers and paging rules',
        mimeType: 'text/markdown',
        size: 6_000,
      },
    ]);
    expect(predictedRead([notes], 'On which dashboard do the workers report their queue depth?', none)?.uri).toBe(
      'notes://notifications',
    );
    expect(predictedRead([notes], 'How is the job queue designed?', none)?.uri).toBe('notes://job-queue');
  });

  it('one word is a lead only when no other resource holds any', () => {
    const demo = server('demo', [
      {
        uri: 'docs://matrix',
        name: 'test-matrix',
        title: 'Release test matrix',
        description: 'Manual release checks',
        mimeType: 'text/markdown',
        size: 6_000,
      },
      {
        uri: 'task://guidelines',
        name: 'guidelines',
        title: 'Team guidelines',
        description: 'How the team closes tasks',
        mimeType: 'text/plain',
        size: 600,
      },
    ]);
    expect(predictedRead([demo], 'create_task title="Write release notes"', none)).toBeUndefined();
    expect(predictedRead([demo], 'When is the next release frozen?', none)?.uri).toBe('docs://matrix');
  });

  it('nothing when no resource leads by far, or the message points nowhere', () => {
    expect(predictedRead([HANDBOOK], 'Hello there', none)).toBeUndefined();
    // "limits" is in two descriptions: a tie is the model's call.
    expect(predictedRead([HANDBOOK], 'What are the limits?', none)).toBeUndefined();
  });

  it('nothing for a resource already in the prompt, already read, or not text', () => {
    const q = 'After how many minutes do pages escalate?';
    expect(predictedRead([HANDBOOK], q, { ...none, inlined: new Set(['docs\u0000docs://on-call']) })).toBeUndefined();
    expect(predictedRead([HANDBOOK], q, { ...none, read: new Set(['docs\u0000docs://on-call']) })).toBeUndefined();
    expect(predictedRead([HANDBOOK], 'Show me the travel logo image', none)?.uri).not.toBe('docs://logo.png');
  });

  it('nothing for a document longer than one window, or of unknown size: its first window is rarely the passage needed', () => {
    const q = 'After how many minutes do pages escalate?';
    expect(predictedRead([HANDBOOK], q, { ...none, windowChars: 5_000 })).toBeUndefined();
    const unsized = server(
      'docs',
      HANDBOOK.resources.map(({ size: _size, ...r }) => r),
    );
    expect(predictedRead([unsized], q, none)).toBeUndefined();
  });

  it('a server that is not usable offers nothing to predict', () => {
    expect(predictedRead([{ ...HANDBOOK, status: 'error' }], 'When do pages escalate?', none)).toBeUndefined();
  });
});

describe('readInHistory', () => {
  it('collects what the answers read, by the server and URI the read resolved', () => {
    const messages = [
      { id: '1', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
      {
        id: '2',
        role: 'assistant',
        parts: [
          {
            type: 'tool-read_resource',
            toolCallId: 'a',
            state: 'output-available',
            input: { uri: 'docs://travel' },
            output: { server: 'docs', uri: 'docs://travel' },
          },
          {
            type: 'tool-search_resource',
            toolCallId: 'b',
            state: 'output-available',
            input: { uri: 'docs://on-call', server: 'docs' },
            output: {},
          },
          {
            type: 'tool-docs__other',
            toolCallId: 'c',
            state: 'output-available',
            input: { uri: 'docs://expenses' },
            output: {},
          },
        ],
      },
    ] as unknown as UIMessage[];
    expect(readInHistory(messages)).toEqual(new Set(['docs\u0000docs://travel', 'docs\u0000docs://on-call']));
  });
});
