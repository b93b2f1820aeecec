import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_TOOL, regenerationCut, settleInterruptedApproval, settleOpenToolCalls } from './messages';

type Part = UIMessage['parts'][number];

const user = (id: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text: `question ${id}` }] });
const assistant = (id: string, ...parts: Part[]): UIMessage => ({
  id,
  role: 'assistant',
  parts: parts.length ? parts : [{ type: 'text', text: `answer ${id}` }],
});
const clientCall = (toolCallId: string): Part => ({
  type: 'tool-get_location',
  toolCallId,
  state: 'input-available',
  input: {},
});
const asking = (toolCallId: string): Part => ({
  type: 'tool-delete_file',
  toolCallId,
  state: 'approval-requested',
  input: {},
  approval: { id: `ap-${toolCallId}` },
});
const answered = (toolCallId: string, approved: boolean): Part => ({
  type: 'tool-delete_file',
  toolCallId,
  state: 'approval-responded',
  input: {},
  approval: { id: `ap-${toolCallId}`, approved },
});

describe('regenerationCut', () => {
  const history = [user('u1'), assistant('a1'), user('u2'), assistant('a2')];

  it('cuts at an assistant message (the last one by default), keeping the user message before it', () => {
    expect(regenerationCut(history)).toEqual({ keep: 3, replaceFrom: 'a2' });
    expect(regenerationCut(history, 'a2')).toEqual({ keep: 3, replaceFrom: 'a2' });
    expect(regenerationCut(history, 'a1')).toEqual({ keep: 1, replaceFrom: 'a1' });
  });

  it('cuts just after a user message, replacing what followed it', () => {
    expect(regenerationCut(history, 'u2')).toEqual({ keep: 3, replaceFrom: 'a2' });
    expect(regenerationCut(history, 'u1')).toEqual({ keep: 1, replaceFrom: 'a1' });
    expect(regenerationCut([user('u1'), assistant('a1'), user('u2')])).toEqual({ keep: 3, replaceFrom: undefined });
  });

  it('undefined when the id is unknown or what stays would not end with a user message', () => {
    expect(regenerationCut(history, 'nope')).toBeUndefined();
    expect(regenerationCut([])).toBeUndefined();
    expect(regenerationCut([assistant('a0'), user('u1')], 'a0')).toBeUndefined();
    expect(regenerationCut([user('u1'), assistant('a1'), assistant('a2')], 'a2')).toBeUndefined();
  });
});

describe('client tool calls (what waits is pending-step.test.ts)', () => {
  it('settleOpenToolCalls: every open call gets the error result, answered calls and other parts stay', () => {
    const done: Part = {
      type: 'tool-get_location',
      toolCallId: 'c0',
      state: 'output-available',
      input: {},
      output: 'Lyon',
    };
    const settled = settleOpenToolCalls([
      user('u1'),
      assistant('a1', { type: 'text', text: 'Let me check.' }, done, clientCall('c1'), clientCall('c2')),
    ]);
    const errorText = 'The client gave no result for this call before the next message.';
    expect(settled?.parts).toEqual([
      { type: 'text', text: 'Let me check.' },
      done,
      { ...clientCall('c1'), state: 'output-error', errorText },
      { ...clientCall('c2'), state: 'output-error', errorText },
    ]);
    expect(settleOpenToolCalls([user('u1'), assistant('a1', done)])).toBeUndefined();
  });
});

describe('settleInterruptedApproval', () => {
  it('an approved call whose run was cut becomes an error result; a denied one a denial; other parts stay', () => {
    expect(settleInterruptedApproval(answered('c1', true))).toEqual({
      ...answered('c1', true),
      state: 'output-error',
      errorText: INTERRUPTED_TOOL,
    });
    expect(settleInterruptedApproval(answered('c1', false))).toEqual({
      ...answered('c1', false),
      state: 'output-denied',
    });
    for (const part of [asking('c1'), clientCall('c2'), { type: 'text', text: 'x' } as Part])
      expect(settleInterruptedApproval(part)).toBe(part);
  });
});
