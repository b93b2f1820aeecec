import { describe, expect, it } from 'vitest';
import type { TaskNotice, ToolProgress } from '../../shared/api/stream';
import {
  continuationPending,
  elapsedOf,
  formatElapsed,
  noteProgress,
  progressOf,
  progressText,
  taskCardState,
  taskNotices,
} from './task-card-state';
import type { Message } from './types';

const notice = (patch: Partial<TaskNotice> = {}): TaskNotice => ({
  toolCallId: 'call-1',
  server: 'demo',
  tool: 'build_report',
  taskId: 'task-1',
  status: 'working',
  statusMessage: 'Collecting tasks (1/4)',
  startedAt: 1_000_000,
  updatedAt: 1_002_000,
  ...patch,
});
const progress = (patch: Partial<ToolProgress> = {}): ToolProgress => ({
  toolCallId: 'call-1',
  server: 'jobs',
  tool: 'count',
  progress: 2,
  total: 4,
  ...patch,
});

describe('formatElapsed', () => {
  it('says seconds, then minutes and seconds, then hours and minutes', () => {
    expect(formatElapsed(0)).toBe('0 s');
    expect(formatElapsed(999)).toBe('0 s');
    expect(formatElapsed(7_400)).toBe('7 s');
    expect(formatElapsed(59_999)).toBe('59 s');
    expect(formatElapsed(60_000)).toBe('1 min 00 s');
    expect(formatElapsed(65_000)).toBe('1 min 05 s');
    expect(formatElapsed(3_599_000)).toBe('59 min 59 s');
    expect(formatElapsed(3_600_000 + 3 * 60_000 + 30_000)).toBe('1 h 03 min');
  });

  it('never goes below zero (a clock behind the service)', () => {
    expect(formatElapsed(-5_000)).toBe('0 s');
  });
});

describe('progressText', () => {
  it('counts out of a whole total, a percentage otherwise, the bare number without a total', () => {
    expect(progressText({ progress: 3, total: 4 })).toBe('3 of 4');
    expect(progressText({ progress: 0.25, total: 1 })).toBe('25%');
    expect(progressText({ progress: 12 })).toBe('12');
  });
});

describe('taskCardState', () => {
  it('a working task: its status message, running since startedAt, no end', () => {
    const state = taskCardState({ part: { state: 'input-available' }, task: notice() });
    expect(state).toEqual({
      tool: 'build_report',
      server: 'demo',
      status: 'working',
      label: 'Working',
      detail: 'Collecting tasks (1/4)',
      startedAt: 1_000_000,
      running: true,
    });
    expect(elapsedOf(state!, 1_012_500)).toBe('12 s');
  });

  it('a task needing input says so', () => {
    expect(
      taskCardState({ part: { state: 'input-available' }, task: notice({ status: 'input_required' }) }),
    ).toMatchObject({ label: 'Needs input', running: true });
  });

  it('an ended task keeps its final state, and its clock stops at its last update', () => {
    for (const [status, label] of [
      ['completed', 'Completed'],
      ['failed', 'Failed'],
      ['cancelled', 'Cancelled'],
    ] as const) {
      const state = taskCardState({
        part: { state: 'output-available' },
        task: notice({ status, statusMessage: 'Done', updatedAt: 1_065_000 }),
      });
      expect(state).toMatchObject({ status, label, detail: 'Done', running: false, endedAt: 1_065_000 });
      expect(elapsedOf(state!, 9_999_999)).toBe('1 min 05 s');
    }
  });

  it('a task without a status message shows the progress the stream reported while it runs', () => {
    const state = taskCardState({
      part: { state: 'input-available' },
      task: notice({ statusMessage: undefined }),
      progress: { data: progress({ message: 'Halfway' }), since: 5 },
    });
    expect(state).toMatchObject({ detail: 'Halfway', fraction: 0.5, startedAt: 1_000_000 });
  });

  it('progress alone: a card while the call runs (counted from the first report), none once it ended', () => {
    const live = { data: progress(), since: 2_000 };
    expect(taskCardState({ part: { state: 'input-available' }, progress: live })).toEqual({
      tool: 'count',
      server: 'jobs',
      status: 'working',
      label: 'Working',
      detail: '2 of 4',
      fraction: 0.5,
      startedAt: 2_000,
      running: true,
    });
    expect(taskCardState({ part: { state: 'output-available' }, progress: live })).toBeUndefined();
    expect(taskCardState({ part: { state: 'input-available' } })).toBeUndefined();
  });
});

describe('progress and notices of a message', () => {
  it('keeps the latest report per call, with the time of the first', () => {
    const message: Message = { id: 'a1', role: 'assistant', parts: [] };
    noteProgress(message, progress({ progress: 1 }), 100);
    noteProgress(message, progress({ progress: 3 }), 900);
    expect(progressOf(message, 'call-1')).toEqual({ data: progress({ progress: 3 }), since: 100 });
    expect(progressOf(message, 'call-2')).toBeUndefined();
    expect(progressOf({ ...message }, 'call-1')).toBeUndefined(); // transient: another message object knows nothing
  });

  it("reads the message's data-task parts by tool call id", () => {
    const message: Message = {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'tool-demo__build_report', toolCallId: 'call-1', state: 'input-available' },
        { type: 'data-task', id: 'call-1', data: notice() },
        { type: 'text', text: 'hi' },
      ],
    };
    expect([...taskNotices(message).keys()]).toEqual(['call-1']);
  });
});

describe('continuationPending', () => {
  const call = { type: 'tool-demo__build_report', toolCallId: 'call-1', state: 'output-available', output: 'Report' };
  const task = { type: 'data-task', id: 'call-1', data: notice({ status: 'completed' }) };
  const answer = (parts: Message['parts'], metadata: Record<string, unknown> = {}): Message => ({
    id: 'a1',
    role: 'assistant',
    parts,
    metadata,
  });

  it('the tasks ended and no step came after their call: the answer is about to go on', () => {
    expect(continuationPending(answer([{ type: 'step-start' }, call, task]))).toBe(true);
    // Another call of the same step, after the task's: still the same step.
    const other = { type: 'tool-demo__list_tasks', toolCallId: 'call-2', state: 'output-available', output: '[]' };
    expect(continuationPending(answer([{ type: 'step-start' }, call, other, task]))).toBe(true);
  });

  it('it went on (a step after the call), waits for tasks again, or was stopped: not pending', () => {
    expect(continuationPending(answer([call, task, { type: 'step-start' }, { type: 'text', text: 'Done.' }]))).toBe(
      false,
    );
    expect(continuationPending(answer([call, task, { type: 'step-start' }]))).toBe(false); // begun: GET …/stream has it
    expect(continuationPending(answer([call, task], { waitingForTasks: true }))).toBe(false);
    expect(continuationPending(answer([call, task], { stopped: true }))).toBe(false);
    expect(continuationPending(answer([{ type: 'text', text: 'no tasks here' }]))).toBe(false);
  });

  it('another call of its step waits for the person’s approval: it goes on only once they answer, so not pending', () => {
    const asking = {
      type: 'tool-demo__delete_task',
      toolCallId: 'call-2',
      state: 'approval-requested',
      input: {},
      approval: { id: 'ap-1' },
    };
    expect(continuationPending(answer([{ type: 'step-start' }, call, asking, task]))).toBe(false);
  });
});
