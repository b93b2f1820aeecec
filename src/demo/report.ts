import type { Task } from './store';

/*
 * What the demo's `build_report` tool says and gives, as pure functions of
 * time and the board: where a report of `seconds` is after `elapsedMs` (a
 * task's status message, a call's progress), and the report itself. Nothing
 * runs while a report is "being built": its state is computed from its start
 * time whenever someone asks (build-report.ts), so it needs no timer and
 * survives the Durable Object's eviction.
 */

/** The steps a report goes through, each an equal share of its time. */
export const REPORT_STEPS = [
  'Collecting tasks',
  'Reading the guidelines',
  'Estimating the open work',
  'Writing the report',
] as const;

export interface ReportPhase {
  /** 1-based step number (REPORT_STEPS), the last one until the end. */
  step: number;
  /** "Collecting tasks (1/4)". */
  message: string;
  /** When the current step began, ms after the start. */
  stepStartedMs: number;
  /** The time is up: the report can be written. */
  done: boolean;
}

/** Where a report of `durationMs` is after `elapsedMs`. */
export function reportPhase(elapsedMs: number, durationMs: number): ReportPhase {
  const steps = REPORT_STEPS.length;
  const done = elapsedMs >= durationMs;
  const share = durationMs / steps;
  const step = done ? steps : Math.min(steps, Math.floor(Math.max(0, elapsedMs) / share) + 1);
  return {
    step,
    message: done ? 'Report ready' : `${REPORT_STEPS[step - 1]} (${step}/${steps})`,
    stepStartedMs: done ? durationMs : Math.round((step - 1) * share),
    done,
  };
}

/** Most open (and most done) tasks the report lists one by one. */
const LISTED = 20;

/** The report: the board's counts, the open work and its hours, what was done, the rule it was checked against. */
export function reportText(input: { topic?: string | undefined; tasks: Task[]; guidelines: string; at: Date }): string {
  const open = input.tasks.filter((t) => t.status === 'open');
  const done = input.tasks.filter((t) => t.status === 'done');
  const hours = open.reduce((sum, t) => sum + (t.estimateHours ?? 0), 0);
  const unestimated = open.filter((t) => t.estimateHours === null).length;
  const unassigned = open.filter((t) => !t.assignee).length;
  const line = (t: Task) =>
    `- #${t.id} ${t.title}${t.assignee ? ` (${t.assignee})` : ''}${t.estimateHours !== null ? `, ${t.estimateHours} h` : ''}`;
  const list = (tasks: Task[]) => [
    ...tasks.slice(0, LISTED).map(line),
    ...(tasks.length > LISTED ? [`- … and ${tasks.length - LISTED} more`] : []),
  ];
  const rule = input.guidelines
    .split('\n')
    .find((l) => /\bestimate/i.test(l))
    ?.trim()
    .replace(/^\d+\.\s*/, '');
  return [
    `Report${input.topic ? `: ${input.topic}` : ''} (${input.at.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
    '',
    `${open.length} open task(s), ${done.length} done. Open work: ${hours} h estimated` +
      `${unestimated ? `, ${unestimated} task(s) without an estimate` : ''}` +
      `${unassigned ? `, ${unassigned} without an owner` : ''}.`,
    ...(open.length ? ['', 'Open:', ...list(open)] : ['', 'Nothing is open.']),
    ...(done.length ? ['', 'Done:', ...list(done)] : []),
    ...(rule ? ['', `Checked against the guidelines: ${rule}`] : []),
  ].join('\n');
}
