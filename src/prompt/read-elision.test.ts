import type { ModelMessage, ToolResultPart } from 'ai';
import { describe, expect, it } from 'vitest';
import { continuationNote, resourceBlock, type TextWindow } from './markers';
import { elideReads } from './read-elision';

const READING = new Set(['read_resource', 'search_resource']);
const budgets = (turnBudget: number, earlierBudget: number) => ({ turnBudget, earlierBudget, readingTools: READING });

const user = (text: string): ModelMessage => ({ role: 'user', content: text });

/** A read_resource call and its result, as the tool renders it (a window ends with a continuation note unless it is the last). */
function read(id: string, uri: string, body: string, window?: TextWindow, server = 'docs'): ModelMessage[] {
  let text = resourceBlock({ server, uri, mime: 'text/plain', window }, body);
  if (window && window.to < window.total) text += `\n${continuationNote(window, { uri, server, offset: window.to })}`;
  return [
    {
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: id,
          toolName: 'read_resource',
          input: { uri, ...(window?.from ? { offset: window.from } : {}) },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: id, toolName: 'read_resource', output: { type: 'text', value: text } },
      ],
    },
  ];
}

/** The text the model is sent for each tool result, by call id. */
function sent(messages: ModelMessage[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of messages) {
    if (m.role !== 'tool') continue;
    for (const part of m.content as ToolResultPart[])
      out[part.toolCallId] = part.output.type === 'text' ? part.output.value : JSON.stringify(part.output);
  }
  return out;
}

describe('elideReads', () => {
  it('a skill loaded in an earlier turn (load_skill) becomes a note of a read naming its SKILL.md and server, not a search of "?"', () => {
    const uri = 'skill://triage-a-bug/SKILL.md';
    const text = resourceBlock({ server: 'kit', uri, mime: 'text/markdown' }, 'Steps to triage a bug.');
    const messages: ModelMessage[] = [
      user('Load the triage skill'),
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 's1', toolName: 'load_skill', input: { name: 'triage-a-bug' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 's1', toolName: 'load_skill', output: { type: 'text', value: text } },
        ],
      },
      { role: 'assistant', content: 'Loaded.' },
      user('Now something else'),
    ];
    const out = sent(
      elideReads(messages, { turnBudget: 0, earlierBudget: 0, readingTools: new Set([...READING, 'load_skill']) }),
    );
    expect(out.s1).toMatch(
      /^\[Read in an earlier turn, not repeated: \d+ characters of skill:\/\/triage-a-bug\/SKILL\.md \(server "kit"\); read it again if needed\.\]$/,
    );
  });

  it('sequential windows of one resource in a turn: only the newest is sent, saying which characters came before', () => {
    const messages = [
      user('Summarise docs://a'),
      ...read('c1', 'docs://a', 'A'.repeat(10), { from: 0, to: 10, total: 30 }),
      ...read('c2', 'docs://a', 'B'.repeat(10), { from: 10, to: 20, total: 30 }),
      ...read('c3', 'docs://a', 'C'.repeat(10), { from: 20, to: 30, total: 30 }),
    ];
    const out = elideReads(messages, budgets(1_000_000, 0));
    // The older windows' calls and results are gone, not just their text.
    expect(out).toHaveLength(3);
    expect(JSON.stringify(out)).not.toContain('"c1"');
    expect(JSON.stringify(out)).not.toContain('"c2"');
    expect(sent(out).c3).toBe(
      `[Read before in this turn and not repeated: characters 0-20 of docs://a.]\n${sent(messages).c3}`,
    );
  });

  it('the newest read of the current turn is sent whole even with no turn budget; older reads become a note naming URI and server', () => {
    const messages = [
      user('Compare them'),
      ...read('c1', 'docs://small', 'short text'),
      ...read('c2', 'docs://big', 'x'.repeat(5_000)),
    ];
    const out = sent(elideReads(messages, budgets(0, 0)));
    expect(out.c2).toBe(sent(messages).c2);
    expect(out.c1).toMatch(
      /^\[Read earlier in this turn, not repeated: \d+ characters of docs:\/\/small \(server "docs"\); read it again if needed\.\]$/,
    );
  });

  it("within the turn budget the current turn's older reads stay whole; one that does not fit leaves the budget to older, smaller ones", () => {
    const messages = [
      user('Read all three'),
      ...read('small', 'docs://s', 'tiny'),
      ...read('big', 'docs://b', 'y'.repeat(2_000)),
      ...read('newest', 'docs://n', 'z'),
    ];
    const whole = sent(messages);
    const out = sent(elideReads(messages, budgets(whole.small!.length, 0)));
    expect(out.small).toBe(whole.small);
    expect(out.newest).toBe(whole.newest);
    expect(out.big).toContain('not repeated');
    expect(out.big).toContain('docs://b');
  });

  it("earlier turns' reads are one-line notes (URI, server, characters) with no earlier budget, whole within one", () => {
    const messages = [
      user('What does part one say?'),
      ...read('old', 'docs://a', 'A'.repeat(10), { from: 0, to: 10, total: 30 }, 'library'),
      { role: 'assistant', content: 'It says A.' } as ModelMessage,
      user('And the other document?'),
      ...read('new', 'docs://other', 'B'),
    ];
    const noted = sent(elideReads(messages, budgets(0, 0)));
    expect(noted.old).toBe(
      '[Read in an earlier turn, not repeated: characters 0-10 of 30 of docs://a (server "library"); read it again if needed.]',
    );
    expect(noted.new).toBe(sent(messages).new);
    // The call stays: the model still sees what it asked for.
    expect(JSON.stringify(elideReads(messages, budgets(0, 0)))).toContain(
      '"toolCallId":"old","toolName":"read_resource"',
    );

    const roomy = elideReads(messages, budgets(0, 1_000_000));
    expect(roomy).toBe(messages);
  });

  it('a turn that has not read yet: every read before it counts as an earlier turn', () => {
    const messages = [user('Read docs://a'), ...read('c1', 'docs://a', 'text'), user('Thanks. Now something else?')];
    expect(sent(elideReads(messages, budgets(1_000_000, 0))).c1).toContain('in an earlier turn');
  });

  it('results of tools that are not reading tools are untouched, even when they look like a resource', () => {
    const block = resourceBlock({ server: 'docs', uri: 'docs://a', mime: 'text/plain' }, 'from a server tool');
    const messages: ModelMessage[] = [
      user('Fetch it'),
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't1', toolName: 'docs__fetch', input: { uri: 'docs://a' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't1', toolName: 'docs__fetch', output: { type: 'text', value: block } },
        ],
      },
      user('Again'),
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 't2', toolName: 'docs__fetch', input: { uri: 'docs://a' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 't2', toolName: 'docs__fetch', output: { type: 'text', value: block } },
        ],
      },
    ];
    expect(elideReads(messages, budgets(0, 0))).toBe(messages);

    const mixed = [...messages, ...read('r1', 'docs://b', 'x'), user('And now?')];
    const out = elideReads(mixed, budgets(0, 0));
    expect(sent(out).r1).toContain('not repeated');
    expect(out[2]).toBe(messages[2]);
    expect(out[5]).toBe(messages[5]);
  });

  it('a conversation without reads is returned as is', () => {
    const messages: ModelMessage[] = [
      user('Hello'),
      { role: 'assistant', content: 'Hi! How can I help?' },
      user('Tell me a joke'),
    ];
    expect(elideReads(messages, budgets(0, 0))).toBe(messages);
  });
});
