import { describe, expect, it } from 'vitest';
import { reportPhase, reportText } from './report';
import type { Task } from './store';

describe('reportPhase', () => {
  it('goes through the four steps in equal shares of the time, then is done', () => {
    const at = (ms: number) => reportPhase(ms, 20_000);
    expect(at(0)).toEqual({ step: 1, message: 'Collecting tasks (1/4)', stepStartedMs: 0, done: false });
    expect(at(4_999).message).toBe('Collecting tasks (1/4)');
    expect(at(5_000)).toMatchObject({ step: 2, message: 'Reading the guidelines (2/4)', stepStartedMs: 5_000 });
    expect(at(12_000).message).toBe('Estimating the open work (3/4)');
    expect(at(19_999)).toMatchObject({ step: 4, message: 'Writing the report (4/4)', stepStartedMs: 15_000 });
    expect(at(20_000)).toEqual({ step: 4, message: 'Report ready', stepStartedMs: 20_000, done: true });
    expect(at(-50).step).toBe(1); // a clock a little behind
  });
});

describe('reportText', () => {
  const task = (id: number, patch: Partial<Task>): Task => ({
    id,
    title: `Task ${id}`,
    assignee: null,
    estimateHours: null,
    status: 'open',
    createdAt: '2026-12-01T00:00:00.000Z',
    completedAt: null,
    ...patch,
  });
  const guidelines = 'Team guidelines\n\n1. One owner.\n2. Estimate in hours, never more than 8.\n';
  const at = new Date('2026-12-02T10:30:00Z');

  it('counts the board, sums the open estimates, lists open and done work, names the estimates rule', () => {
    const text = reportText({
      topic: 'release 4.18',
      tasks: [
        task(1, { assignee: 'sam', estimateHours: 3 }),
        task(2, {}),
        task(3, { status: 'done', assignee: 'kim' }),
      ],
      guidelines,
      at,
    });
    expect(text).toBe(
      [
        'Report: release 4.18 (2026-12-02 10:30 UTC)',
        '',
        '2 open task(s), 1 done. Open work: 3 h estimated, 1 task(s) without an estimate, 1 without an owner.',
        '',
        'Open:',
        '- #1 Task 1 (sam), 3 h',
        '- #2 Task 2',
        '',
        'Done:',
        '- #3 Task 3 (kim)',
        '',
        'Checked against the guidelines: Estimate in hours, never more than 8.',
      ].join('\n'),
    );
  });

  it('an empty board says nothing is open; a long one lists the first 20 and counts the rest', () => {
    expect(reportText({ tasks: [], guidelines: 'No rules.', at })).toBe(
      'Report (2026-12-02 10:30 UTC)\n\n0 open task(s), 0 done. Open work: 0 h estimated.\n\nNothing is open.',
    );
    const many = Array.from({ length: 25 }, (_, i) => task(i + 1, { estimateHours: 1, assignee: 'sam' }));
    const text = reportText({ tasks: many, guidelines, at });
    expect(text).toContain('- #20 Task 20');
    expect(text).not.toContain('- #21 Task 21');
    expect(text).toContain('- … and 5 more');
  });
});
