import { describe, expect, it } from 'vitest';
import { assistant, asking, decided as answered, type Part, user } from '../../test/helpers/tool-parts';
import { ApiError } from '../errors';
import { clientApprovals, pendingApprovals, recordAnswer, recordApprovals } from './messages';

const clientCall = (toolCallId: string): Part => ({
  type: 'tool-get_location',
  toolCallId,
  state: 'input-available',
  input: {},
});

/** The error `run` throws (fails the test if it throws none). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('pendingApprovals', () => {
  it('lists the approval-requested calls of the last assistant message, named for tool-x and dynamic-tool parts', () => {
    const dynamic: Part = {
      type: 'dynamic-tool',
      toolName: 'docs__read',
      toolCallId: 'c2',
      state: 'approval-requested',
      input: { uri: 'x' },
      approval: { id: 'ap-c2' },
    };
    const messages = [
      user,
      assistant({ type: 'text', text: 'On it.' }, asking('c1'), dynamic, answered('c3', true), clientCall('c4')),
    ];
    expect(pendingApprovals(messages)).toEqual([
      { toolCallId: 'c1', toolName: 'delete_file', input: { path: 'c1' }, approvalId: 'ap-c1', messageIndex: 1 },
      { toolCallId: 'c2', toolName: 'docs__read', input: { uri: 'x' }, approvalId: 'ap-c2', messageIndex: 1 },
    ]);
  });

  it('ignores requests in any message but the last', () => {
    expect(pendingApprovals([user, assistant(asking('c1')), { ...user, id: 'u2' }])).toEqual([]);
    expect(
      pendingApprovals([
        user,
        assistant(asking('c1')),
        { id: 'a2', role: 'assistant', parts: [{ type: 'text', text: 'done' }] },
      ]),
    ).toEqual([]);
  });
});

describe('recordApprovals', () => {
  it('records each answer; waiting while another call of the step waits, continue once none does', () => {
    const first = recordApprovals(
      [user, assistant(asking('c1'), asking('c2'))],
      [{ toolCallId: 'c1', approved: true }],
    );
    expect(first.next).toBe('waiting');
    expect(first.save?.parts).toEqual([answered('c1', true), asking('c2')]);
    const second = recordApprovals([user, first.save!], [{ toolCallId: 'c2', approved: false, reason: 'keep it' }]);
    expect(second.next).toBe('continue');
    expect(second.save?.parts[1]).toMatchObject({
      state: 'approval-responded',
      approval: { id: 'ap-c2', approved: false, reason: 'keep it' },
    });
  });

  it('records several answers at once, ignoring ones for calls that do not wait', () => {
    const { save, next } = recordApprovals(
      [user, assistant(asking('c1'), asking('c2'))],
      [
        { toolCallId: 'c1', approved: false },
        { toolCallId: 'nope', approved: true },
        { toolCallId: 'c2', approved: true },
      ],
    );
    expect(next).toBe('continue');
    expect(save?.parts).toEqual([answered('c1', false), answered('c2', true)]);
  });

  it('a repeat of answers already recorded, with nothing left waiting, continues with nothing to save', () => {
    expect(
      recordApprovals(
        [user, assistant(answered('c1', true), answered('c2', false))],
        [{ toolCallId: 'c1', approved: true }],
      ),
    ).toEqual({
      next: 'continue',
    });
  });

  it('404 approval_not_found when none of the answered calls waits', () => {
    for (const [messages, answers] of [
      [[user, assistant(asking('c1'))], [{ toolCallId: 'c9', approved: true }]],
      [[user, assistant(asking('c1'))], []],
      [[user, assistant(answered('c1', true), asking('c2'))], [{ toolCallId: 'c1', approved: true }]], // c1 answered, but c2 still waits: not ready
      [[user], [{ toolCallId: 'c1', approved: true }]],
    ] as const) {
      const error = thrown(() => recordApprovals([...messages], [...answers]));
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, code: 'approval_not_found' });
    }
  });

  // Was a bug: answerApproval assigned `parts` on the caller's message (harmless only because History.load() parses a
  // fresh copy every time).
  it('leaves the messages it is given unchanged', () => {
    const messages = [user, assistant(asking('c1'))];
    recordApprovals(messages, [{ toolCallId: 'c1', approved: true }]);
    expect(messages[1]!.parts).toEqual([asking('c1')]);
  });
});

describe('clientApprovals', () => {
  it("keeps only the client's answers for calls still waiting or answered and not yet continued", () => {
    const executed: Part = {
      type: 'tool-delete_file',
      toolCallId: 'c0',
      state: 'output-available',
      input: {},
      output: 'deleted',
      approval: { id: 'ap-c0', approved: true },
    };
    const messages = [user, assistant(executed, answered('c1', true), asking('c2'))];
    const answers = ['c0', 'c1', 'c2', 'c9'].map((toolCallId) => ({ toolCallId, approved: true }));
    expect(clientApprovals(messages, answers).map((a) => a.toolCallId)).toEqual(['c1', 'c2']);
  });
});

describe('recordAnswer', () => {
  it('records a decision or a client result; ready only when nothing of the step waits', () => {
    const approval = recordAnswer([user, assistant(asking('c1'), clientCall('c2'))], {
      kind: 'approval',
      toolCallId: 'c1',
      approved: true,
    });
    expect(approval).toEqual({ message: assistant(answered('c1', true), clientCall('c2')), ready: false });
    const result = recordAnswer([user, approval.message], {
      kind: 'tool-result',
      toolCallId: 'c2',
      output: { city: 'Lyon' },
    });
    expect(result.ready).toBe(true);
    expect(result.message.parts[1]).toMatchObject({
      toolCallId: 'c2',
      state: 'output-available',
      output: { city: 'Lyon' },
    });
    const failed = recordAnswer([user, assistant(clientCall('c2'))], {
      kind: 'tool-result',
      toolCallId: 'c2',
      output: undefined,
      errorText: 'denied by browser',
    });
    expect(failed.message.parts[0]).toMatchObject({ state: 'output-error', errorText: 'denied by browser' });
  });

  it('404 not_waiting for a call that does not wait for this kind of answer', () => {
    const messages = [user, assistant(asking('c1'), clientCall('c2'))];
    for (const answer of [
      { kind: 'approval', toolCallId: 'c2', approved: true },
      { kind: 'tool-result', toolCallId: 'c1', output: 1 },
      { kind: 'tool-result', toolCallId: 'c9', output: 1 },
    ] as const)
      expect(thrown(() => recordAnswer(messages, answer))).toMatchObject({ status: 404, code: 'not_waiting' });
  });
});
