import { h } from './dom';
import { ENGLISH, type Locale } from './i18n/locale';
import { elapsedOf, type TaskCardState } from './task-card-state';

/**
 * The progress card below the step of a long tool call (a task, or a call
 * reporting progress; task-card-state.ts says what it shows): the tool, the
 * status, the server's message, how long it has been running, and Stop
 * while it runs. Its clock is ticked in place by `tickElapsed`, once a second,
 * without re-rendering the message (a re-render would disturb the reader).
 */
export function taskCard(state: TaskCardState, stop: (() => void) | undefined, locale: Locale = ENGLISH): HTMLElement {
  const t = locale.t.bind(locale);
  const clock = h(
    'span',
    {
      class: 'elapsed',
      'data-started-at': state.startedAt,
      ...(state.running ? { 'data-running': true } : { 'data-ended-at': state.endedAt }),
      title: t('tasks.started', { time: locale.time(state.startedAt) }),
    },
    elapsedOf(state, Date.now(), locale),
  );
  const stopButton =
    state.running && stop
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            part: 'task-stop',
            'aria-label': t('tasks.stopLabel', { tool: state.tool }),
            onclick: (event: Event) => {
              (event.currentTarget as HTMLButtonElement).disabled = true;
              stop();
            },
          },
          t('tasks.stop'),
        )
      : null;
  return h(
    'div',
    {
      class: 'task-card',
      role: 'group',
      'aria-label': t('tasks.card', { tool: state.tool, server: state.server }),
      'data-status': state.status,
      part: 'task-card',
    },
    h(
      'div',
      { class: 'task-head' },
      h('strong', {}, state.tool),
      h('span', { class: 'meta' }, t('tasks.on', { server: state.server })),
      h('span', { class: 'badge' }, state.label),
    ),
    state.detail ? h('p', { class: 'task-detail' }, state.detail) : null,
    state.fraction !== undefined
      ? h('progress', { max: 100, value: Math.round(state.fraction * 100), 'aria-label': t('tasks.progress') })
      : null,
    h('div', { class: 'task-foot' }, clock, stopButton),
  );
}

/** Moves the clocks of running cards under `root` to `now`; how many are running (0: the ticking can stop). */
export function tickElapsed(root: ParentNode, now: number, locale: Locale = ENGLISH): number {
  const clocks = root.querySelectorAll<HTMLElement>('.task-card .elapsed[data-running]');
  for (const clock of clocks) {
    const text = elapsedOf({ startedAt: Number(clock.dataset.startedAt) }, now, locale);
    if (clock.textContent !== text) clock.textContent = text;
  }
  return clocks.length;
}
