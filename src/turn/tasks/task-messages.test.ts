import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ElicitationNotice, TaskNotice } from '../../../shared/api/stream';
import {
  elicitationOf,
  messageWithToolCall,
  taskNoticeOf,
  withElicitation,
  withoutEmptyLastStep,
  withTaskNotice,
  withTaskWait,
} from './task-messages';
import { withOutcome } from '../pending-step';

const notice = (status: TaskNotice['status'], statusMessage?: string): TaskNotice => ({
  toolCallId: 'c1',
  server: 'jobs',
  tool: 'build',
  taskId: 't1',
  status,
  ...(statusMessage ? { statusMessage } : {}),
  startedAt: 1,
  updatedAt: 2,
});

const answer: UIMessage = {
  id: 'a',
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    { type: 'tool-jobs__build', toolCallId: 'c1', state: 'input-available', input: {} },
    { type: 'tool-jobs__count', toolCallId: 'c2', state: 'output-available', input: {}, output: 'Counted.' },
  ] as UIMessage['parts'],
};

describe('the edits a task makes to its answer', () => {
  it('the task part goes right after its call, then is replaced in place as the task moves', () => {
    const started = withTaskNotice(answer, notice('working', 'Step 1'));
    expect(started.parts.map((p) => p.type)).toEqual([
      'step-start',
      'tool-jobs__build',
      'data-task',
      'tool-jobs__count',
    ]);
    const moved = withTaskNotice(started, notice('working', 'Step 2'));
    expect(moved.parts).toHaveLength(4);
    expect(taskNoticeOf(moved, 'c1')?.statusMessage).toBe('Step 2');
    expect(taskNoticeOf(answer, 'c1')).toBeUndefined();
  });

  it('a question is added once, then updated with its answer', () => {
    const question: ElicitationNotice = {
      id: 'task:c1:name',
      server: 'jobs',
      message: 'Name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
      status: 'pending',
    };
    const asked = withElicitation(answer, question);
    const answered = withElicitation(asked, { ...question, status: 'accept', content: { name: 'Ada' } });
    expect(answered.parts.filter((p) => p.type === 'data-elicitation')).toHaveLength(1);
    expect(elicitationOf(answered, 'task:c1:name')).toMatchObject({ status: 'accept', content: { name: 'Ada' } });
  });

  it('finds the message that holds a call, newest first', () => {
    const user: UIMessage = { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] };
    expect(messageWithToolCall([user, answer], 'c2')).toEqual({ message: answer, index: 1 });
    expect(messageWithToolCall([user, answer], 'nope')).toBeUndefined();
  });
});

describe('withoutEmptyLastStep: the stand-in step of an approved call that became a task', () => {
  const of = (...types: string[]): UIMessage => ({
    id: 'a',
    role: 'assistant',
    parts: types.map((type) => (type === 'tool' ? { ...answer.parts[1]! } : { type })) as UIMessage['parts'],
  });
  const types = (message: UIMessage) => message.parts.map((p) => (p.type.startsWith('tool-') ? 'tool' : p.type));

  it('drops a last step with nothing in it, or only data parts', () => {
    expect(types(withoutEmptyLastStep(of('step-start', 'tool', 'data-task', 'step-start')))).toEqual([
      'step-start',
      'tool',
      'data-task',
    ]);
    expect(types(withoutEmptyLastStep(of('step-start', 'tool', 'step-start', 'data-notice')))).toEqual([
      'step-start',
      'tool',
      'data-notice',
    ]);
  });

  it('keeps a last step with a call or text in it, and the first step', () => {
    for (const message of [of('step-start', 'tool', 'step-start', 'text'), of('step-start', 'data-task'), of('tool')])
      expect(withoutEmptyLastStep(message)).toBe(message);
  });

  it('waitingForTasks is what the pending step says: true while a call runs as a task, false once it is settled', () => {
    const running = withTaskWait(withTaskNotice(answer, notice('working')));
    expect(running.metadata).toEqual({ waitingForTasks: true });
    // A flag left true beside a settled call (the old second state) cannot survive a save.
    const settled = withOutcome(withTaskNotice(running, notice('completed')), 'c1', {
      kind: 'output',
      output: 'Built.',
    });
    expect(withTaskWait(settled).metadata).toEqual({ waitingForTasks: false });
    // An answer that never waited for a task is saved as it is.
    expect(withTaskWait(answer)).toBe(answer);
  });
});
