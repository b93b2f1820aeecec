import { describe, expect, it } from 'vitest';
import { assistant as answer, asking, decided, type Part, user } from '../../test/helpers/tool-parts';
import type { ElicitationNotice, TaskNotice } from '../../shared/api/stream';
import { PendingStep, withOutcome } from './pending-step';

const running = (toolCallId: string, type = 'tool-get_location'): Part =>
  ({ type, toolCallId, state: 'input-available', input: {} }) as Part;
const done = (toolCallId: string): Part => ({
  type: 'tool-jobs__count',
  toolCallId,
  state: 'output-available',
  input: {},
  output: 'Counted.',
});
const task = (toolCallId: string, status: TaskNotice['status'] = 'working'): Part =>
  ({
    type: 'data-task',
    id: toolCallId,
    data: { toolCallId, server: 'jobs', tool: 'build', taskId: 't1', status, startedAt: 1, updatedAt: 1 },
  }) as unknown as Part;
const question = (id: string, status: ElicitationNotice['status'] = 'pending'): Part =>
  ({
    type: 'data-elicitation',
    id,
    data: { id, server: 'jobs', message: 'Name?', requestedSchema: { properties: {} }, status },
  }) as unknown as Part;

describe('the pending step: the last answer’s open calls, one kind each', () => {
  it('names each open call by what it waits for, in the answer’s order; answered calls are not open', () => {
    const step = PendingStep.of([
      user,
      answer(
        asking('c1'),
        running('c2', 'tool-jobs__build'),
        task('c2'),
        question('task:c2:name'),
        running('c3'),
        { type: 'tool-web_search', toolCallId: 'c4', state: 'input-available', input: {}, providerExecuted: true },
        done('c5'),
        decided('c6', true),
        { type: 'dynamic-tool', toolName: 'pick_color', toolCallId: 'c7', state: 'input-available', input: {} },
      ),
    ]);
    expect(step.calls).toEqual([
      { kind: 'approval', toolCallId: 'c1', toolName: 'delete_file', input: { path: 'c1' }, approvalId: 'ap-c1' },
      { kind: 'task', toolCallId: 'c2', toolName: 'jobs__build', task: (task('c2') as { data: TaskNotice }).data },
      { kind: 'question', toolCallId: 'c2', questionId: 'task:c2:name' },
      { kind: 'client-result', toolCallId: 'c3', toolName: 'get_location' },
      { kind: 'client-result', toolCallId: 'c7', toolName: 'pick_color' },
    ]);
    expect(step.find('task:c2:name')?.kind).toBe('question');
    expect(step.find('c3')?.kind).toBe('client-result');
    expect(step.find('c5')).toBeUndefined();
    expect(step.ready()).toBe(false);
  });

  it('only the last message counts, and only when it is an answer', () => {
    expect(PendingStep.of([answer(asking('c1')), user]).calls).toEqual([]);
    expect(PendingStep.of([answer(asking('c1')), user]).ready()).toBe(false);
    expect(PendingStep.of([]).ready()).toBe(false);
  });

  it('a question counts only while its task runs: one left pending by an ended task blocks nothing', () => {
    const ended = answer(done('c2'), task('c2', 'completed'), question('task:c2:name'));
    expect(PendingStep.of([user, ended]).calls).toEqual([]);
    expect(PendingStep.of([user, ended]).ready()).toBe(true);
  });

  it('settle writes a decision, an output or an error into the open call; the given messages stay as they were', () => {
    const messages = [user, answer(asking('c1'), running('c3'))];
    const step = PendingStep.of(messages);
    const approved = step.settle('c1', { kind: 'approval', approved: false, reason: 'no' });
    expect(approved?.parts[0]).toMatchObject({
      state: 'approval-responded',
      approval: { id: 'ap-c1', approved: false, reason: 'no' },
    });
    const located = step.after(approved!).settle('c3', { kind: 'output', output: { city: 'Lyon' } });
    expect(located?.parts[1]).toMatchObject({ state: 'output-available', output: { city: 'Lyon' } });
    expect(step.after(located!).ready()).toBe(true);
    expect(step.after(located!).decided('c1')).toBe(true);
    expect(messages[1]!.parts).toEqual([asking('c1'), running('c3')]);
  });

  it('settle refuses a call that does not wait, or an outcome of the wrong kind for it', () => {
    const step = PendingStep.of([user, answer(asking('c1'), running('c3'), done('c5'))]);
    expect(step.settle('c5', { kind: 'output', output: 1 })).toBeUndefined();
    expect(step.settle('c9', { kind: 'output', output: 1 })).toBeUndefined();
    expect(step.settle('c1', { kind: 'output', output: 1 })).toBeUndefined();
    expect(step.settle('c3', { kind: 'approval', approved: true })).toBeUndefined();
  });

  it('a task’s result settles it, an error replaces a would-be output, and the answer is ready when nothing else waits', () => {
    const waiting = answer(running('c2', 'tool-jobs__build'), task('c2'), done('c5'));
    const step = PendingStep.of([user, waiting]);
    expect(step.of('task').map((c) => c.toolCallId)).toEqual(['c2']);
    const built = step.settle('c2', { kind: 'output', output: 'Built.' })!;
    expect(built.parts[0]).toMatchObject({ state: 'output-available', output: 'Built.' });
    expect(step.after(built).ready()).toBe(true);
    const failed = withOutcome(built, 'c2', { kind: 'error', errorText: 'fire' });
    expect(failed.parts[0]).toMatchObject({ state: 'output-error', errorText: 'fire' });
    expect('output' in failed.parts[0]!).toBe(false);
  });

  it('a call that ran on the user’s approval and became a task is a task until its result, not a decision to act on', () => {
    const approvedTask = { ...decided('c1', true), type: 'tool-jobs__build' } as Part;
    const step = PendingStep.of([user, answer(approvedTask, task('c1'))]);
    expect(step.calls).toEqual([
      { kind: 'task', toolCallId: 'c1', toolName: 'jobs__build', task: (task('c1') as { data: TaskNotice }).data },
    ]);
    expect(step.decided('c1')).toBe(false);
    expect(step.ready()).toBe(false);
    const built = step.settle('c1', { kind: 'output', output: 'Built.' })!;
    expect(built.parts[0]).toMatchObject({ state: 'output-available', output: 'Built.' });
    expect(step.after(built).ready()).toBe(true);
  });

  it('an approval decided while another call of the step ran as a task: ready once the task ends (the AI SDK then runs the approved call)', () => {
    const step = PendingStep.of([user, answer(decided('c1', true), running('c2', 'tool-jobs__build'), task('c2'))]);
    expect(step.ready()).toBe(false);
    expect(step.after(step.settle('c2', { kind: 'output', output: 'Built.' })!).ready()).toBe(true);
  });
});
