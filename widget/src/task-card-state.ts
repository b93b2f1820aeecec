import type { TaskNotice, ToolProgress } from '../../shared/api/stream';
import { ENGLISH, type Locale } from './i18n/locale';
import type { TextKey } from './i18n/strings';
import type { Message, ToolPart } from './types';

/*
 * What the progress card of a long tool call says, as pure functions (no
 * DOM; tested beside this file): a call that became a task (MCP Tasks: the
 * `data-task` part the message keeps, updated as the task moves) or a call
 * whose server reports progress (the transient `data-progress` parts of the
 * live stream, never stored: kept here beside the message while it streams).
 */

export type CardStatus = TaskNotice['status'];

export interface TaskCardState {
  tool: string;
  server: string;
  status: CardStatus;
  /** The status in words: "Working", "Needs input", … */
  label: string;
  /** The server's status message, or its progress message, or "3 of 4". */
  detail?: string;
  /** Done so far, 0..1, when the server said out of how much. */
  fraction?: number;
  /** ms since epoch. */
  startedAt: number;
  /** When it ended (ms since epoch); absent while it runs. */
  endedAt?: number;
  /** Still running: the clock ticks, the card offers Stop. */
  running: boolean;
}

const LABELS: Record<CardStatus, TextKey> = {
  working: 'tasks.working',
  input_required: 'tasks.inputRequired',
  completed: 'tasks.completed',
  failed: 'tasks.failed',
  cancelled: 'tasks.cancelled',
};

/** A call's latest progress report, and when the widget first heard of the call's progress (its clock's start). */
export interface LiveProgress {
  data: ToolProgress;
  since: number;
}

/** Progress of the calls of a streaming message, by tool call id (transient: gone with the message object). */
const liveProgress = new WeakMap<Message, Map<string, LiveProgress>>();

/** Records a `data-progress` report on the message it belongs to. */
export function noteProgress(message: Message, data: ToolProgress, now: number): void {
  let calls = liveProgress.get(message);
  if (!calls) liveProgress.set(message, (calls = new Map()));
  calls.set(data.toolCallId, { data, since: calls.get(data.toolCallId)?.since ?? now });
}

export function progressOf(message: Message, toolCallId: string): LiveProgress | undefined {
  return liveProgress.get(message)?.get(toolCallId);
}

/** The message's `data-task` parts, by tool call id. */
export function taskNotices(message: Message): Map<string, TaskNotice> {
  const notices = new Map<string, TaskNotice>();
  for (const part of message.parts) {
    const data = part.type === 'data-task' ? (part as { data?: TaskNotice }).data : undefined;
    if (data?.toolCallId) notices.set(data.toolCallId, data);
  }
  return notices;
}

/**
 * The answer's tasks have ended but it has not gone on yet: no step begins
 * after the last of its calls that ran as a task (the turn that continues it
 * adds one). False while it waits for tasks again, for an approval, or once stopped.
 */
export function continuationPending(message: Message): boolean {
  if (message.metadata?.waitingForTasks === true || message.metadata?.stopped === true) return false;
  // Another call of the step waits for the person's approval: the answer goes on when they answer, not by itself.
  if (message.parts.some((part) => (part as { state?: unknown }).state === 'approval-requested')) return false;
  const tasks = taskNotices(message);
  let lastTask = -1;
  message.parts.forEach((part, index) => {
    const id = (part as { toolCallId?: unknown }).toolCallId;
    if (typeof id === 'string' && tasks.has(id)) lastTask = index;
  });
  return lastTask >= 0 && !message.parts.slice(lastTask + 1).some((part) => part.type === 'step-start');
}

/** "3 of 4", "40%" or "3": a progress report in words, when it has no message of its own. */
export function progressText(progress: Pick<ToolProgress, 'progress' | 'total'>, locale: Locale = ENGLISH): string {
  if (progress.total && progress.total > 0) {
    return Number.isInteger(progress.progress) && Number.isInteger(progress.total)
      ? locale.t('tasks.of', { done: progress.progress, total: progress.total })
      : locale.number(progress.progress / progress.total, { style: 'percent' });
  }
  return locale.number(progress.progress);
}

/**
 * The card of one tool call, or undefined when it has none: a task's card
 * stays (its final state, after a reload too); a progress-only card shows
 * while the call runs (what was transient is not shown after it).
 */
export function taskCardState(
  input: {
    part: Pick<ToolPart, 'state'>;
    task?: TaskNotice | undefined;
    progress?: LiveProgress | undefined;
  },
  locale: Locale = ENGLISH,
): TaskCardState | undefined {
  const { task, progress } = input;
  const fromProgress = progress
    ? {
        detail: progress.data.message || progressText(progress.data, locale),
        ...(progress.data.total && progress.data.total > 0
          ? { fraction: Math.min(1, Math.max(0, progress.data.progress / progress.data.total)) }
          : {}),
      }
    : undefined;
  if (task) {
    const running = task.status === 'working' || task.status === 'input_required';
    const detail = task.statusMessage || (running ? fromProgress?.detail : undefined);
    return {
      tool: task.tool,
      server: task.server,
      status: task.status,
      label: locale.t(LABELS[task.status]),
      ...(detail ? { detail } : {}),
      ...(running && fromProgress?.fraction !== undefined ? { fraction: fromProgress.fraction } : {}),
      startedAt: task.startedAt,
      ...(running ? {} : { endedAt: Math.max(task.startedAt, task.updatedAt) }),
      running,
    };
  }
  if (!progress || (input.part.state !== 'input-available' && input.part.state !== 'input-streaming')) return undefined;
  return {
    tool: progress.data.tool,
    server: progress.data.server,
    status: 'working',
    label: locale.t(LABELS.working),
    ...fromProgress,
    startedAt: progress.since,
    running: true,
  };
}

/** "7 s", "1 min 05 s", "2 h 03 min": how long something took or has been running. */
export function formatElapsed(ms: number, locale: Locale = ENGLISH): string {
  return locale.elapsed(ms);
}

/** The card's clock: time since it started (until `now` while running, else until it ended). */
export function elapsedOf(
  state: Pick<TaskCardState, 'startedAt' | 'endedAt'>,
  now: number,
  locale: Locale = ENGLISH,
): string {
  return formatElapsed((state.endedAt ?? now) - state.startedAt, locale);
}
