import type { ThreadSummary } from '../../shared/api/conversations';
import { ChatError, type ChatApi } from './api';
import { h, svgIcon, uid } from './dom';
import type { Locale } from './i18n/locale';
import { plainError } from './plain-errors';

export interface ThreadsDeps {
  api: ChatApi;
  root: ShadowRoot;
  /** The conversation shown now, if it exists yet. */
  current(): string | null;
  /** A turn runs: no switching until it ends. */
  busy(): boolean;
  /** Shows that conversation in place of this one. */
  open(id: string): void;
  newChat(): void;
  /** A conversation was deleted (the one shown: a new chat takes its place). */
  deleted(id: string): void;
  locale(): Locale;
}

/** A listed conversation, and what its row is doing. */
interface Row {
  thread: ThreadSummary;
  mode: 'idle' | 'renaming' | 'confirming';
}

/** Created and never used (no turn, no title): not worth a row, unless it is the one shown. */
const unused = (thread: ThreadSummary) => !thread.title && thread.createdAt === thread.lastActivityAt;

/**
 * The thread list: a header button opening the person's conversations (most
 * recent activity first, with their titles), New chat, and per conversation
 * Open, Rename and Delete (asked to confirm, in the row). A side panel on a
 * wide chat, a full sheet on a phone (styles: THREADS_STYLES). Escape (or
 * Close) closes it and puts focus back on the button; the list is read anew
 * each time it opens.
 */
export class ThreadsPanel {
  readonly toggle: HTMLButtonElement;
  readonly el: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly more: HTMLButtonElement;
  private readonly status: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly newChatButton: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;
  private rows: Row[] = [];
  private cursor: string | null = null;
  /** Bumped per read of the list: a page that arrives after the panel closed or reopened is dropped. */
  private generation = 0;

  constructor(private readonly deps: ThreadsDeps) {
    const id = uid('threads');
    const headingId = uid('threads-heading');
    this.list = h('ul', { class: 'threads-list', 'aria-labelledby': headingId });
    this.more = h('button', {
      type: 'button',
      class: 'secondary small',
      hidden: true,
      onclick: () => void this.load(true),
    });
    this.heading = h('h3', { id: headingId });
    this.newChatButton = h('button', {
      type: 'button',
      class: 'primary small',
      part: 'new-chat',
      onclick: () => this.newChat(),
    });
    this.closeButton = h('button', { type: 'button', class: 'icon', onclick: () => this.show(false) }, '×');
    this.status = h('p', { class: 'meta threads-status', role: 'status' });
    this.el = h(
      'section',
      {
        id,
        class: 'threads',
        role: 'dialog',
        'aria-labelledby': headingId,
        hidden: true,
        part: 'threads',
        onkeydown: (e: Event) => {
          if ((e as KeyboardEvent).key !== 'Escape') return;
          e.preventDefault();
          this.show(false);
        },
      },
      h('div', { class: 'threads-head' }, this.heading, this.newChatButton, this.closeButton),
      this.list,
      this.more,
      this.status,
    );
    this.toggle = h(
      'button',
      {
        type: 'button',
        class: 'icon threads-button',
        'aria-expanded': 'false',
        'aria-controls': id,
        part: 'threads-button',
        onclick: () => this.show(this.el.hidden),
      },
      listIcon(),
    );
    this.relabel();
  }

  /** Its words in the widget's language (again when the language changes). */
  relabel(): void {
    const t = this.t;
    this.toggle.setAttribute('aria-label', t('threads.button'));
    this.toggle.title = t('threads.button');
    this.heading.textContent = t('threads.heading');
    this.newChatButton.textContent = t('threads.newChat');
    this.closeButton.setAttribute('aria-label', t('threads.close'));
    this.closeButton.title = t('threads.close');
    this.more.textContent = t('threads.more');
  }

  private get t(): Locale['t'] {
    const locale = this.deps.locale();
    return locale.t.bind(locale);
  }

  private titleOf(thread: ThreadSummary): string {
    return thread.title || this.t('threads.untitled');
  }

  /** `threads="off"`: no button, no panel (the host manages conversations). */
  enable(on: boolean): void {
    this.toggle.hidden = !on;
    if (!on) this.show(false, false);
  }

  get open(): boolean {
    return !this.el.hidden;
  }

  show(open: boolean, focusToggle = true): void {
    this.el.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    this.generation++;
    if (open) {
      this.relabel();
      this.rows = [];
      this.cursor = null;
      this.render();
      void this.load(false);
    } else if (focusToggle) this.toggle.focus();
  }

  /** The first page (or, with `more`, the next one), rendered once read. */
  private async load(more: boolean): Promise<void> {
    const generation = this.generation;
    this.say(this.t('threads.loading'));
    try {
      const page = await this.deps.api.conversations(more ? (this.cursor ?? undefined) : undefined);
      if (generation !== this.generation) return;
      const current = this.deps.current();
      const known = new Set(this.rows.map((r) => r.thread.id));
      for (const thread of page.conversations)
        if (!known.has(thread.id) && (thread.id === current || !unused(thread)))
          this.rows.push({ thread, mode: 'idle' });
      this.cursor = page.nextCursor;
      this.say(this.rows.length ? '' : this.t('threads.none'));
      this.render();
      if (!more) this.focusRow(0);
    } catch (error) {
      if (generation === this.generation) this.fail(error);
    }
  }

  private render(focus?: { id: string; control: string }): void {
    const current = this.deps.current();
    this.list.replaceChildren(...this.rows.map((row) => this.rowEl(row, row.thread.id === current)));
    this.more.hidden = this.cursor === null;
    if (focus)
      (
        this.list.querySelector<HTMLElement>(`li[data-id="${CSS.escape(focus.id)}"] ${focus.control}`) ??
        this.list.querySelector<HTMLElement>('.thread-open')
      )?.focus();
  }

  private rowEl(row: Row, isCurrent: boolean): HTMLLIElement {
    const { thread } = row;
    const t = this.t;
    const title = this.titleOf(thread);
    const li = h('li', { 'data-id': thread.id, class: 'thread' });
    if (row.mode === 'renaming') {
      li.append(this.renameForm(row));
      return li;
    }
    if (row.mode === 'confirming') {
      const textId = uid('confirm');
      li.append(
        h(
          'div',
          { class: 'thread-confirm', role: 'group', 'aria-describedby': textId },
          h('p', { id: textId }, t('threads.confirmDelete', { title })),
          h(
            'div',
            { class: 'row' },
            h(
              'button',
              { type: 'button', class: 'danger small', onclick: () => void this.remove(row) },
              t('threads.delete'),
            ),
            h(
              'button',
              { type: 'button', class: 'secondary small cancel', onclick: () => this.setMode(row, 'idle', '.delete') },
              t('threads.cancel'),
            ),
          ),
        ),
      );
      return li;
    }
    const time = h(
      'time',
      { datetime: thread.lastActivityAt },
      this.deps.locale().dateTime(new Date(thread.lastActivityAt)),
    );
    li.append(
      h(
        'button',
        {
          type: 'button',
          class: 'thread-open',
          'aria-current': isCurrent ? 'true' : undefined,
          onclick: () => this.choose(thread.id),
        },
        h('span', { class: 'thread-title' }, title),
        h('span', { class: 'meta' }, `${t('threads.lastActive')} `, time),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small rename',
          'aria-label': t('threads.renameLabel', { title }),
          onclick: () => this.setMode(row, 'renaming', 'input'),
        },
        t('threads.rename'),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small delete',
          'aria-label': t('threads.deleteLabel', { title }),
          onclick: () => this.setMode(row, 'confirming', '.cancel'),
        },
        t('threads.delete'),
      ),
    );
    return li;
  }

  private renameForm(row: Row): HTMLFormElement {
    const t = this.t;
    const input = h('input', { name: 'title', value: row.thread.title, 'aria-label': t('threads.titleField') });
    const cancel = () => this.setMode(row, 'idle', '.rename');
    return h(
      'form',
      {
        class: 'thread-rename',
        onsubmit: (e: Event) => (e.preventDefault(), void this.rename(row, input.value)),
        onkeydown: (e: Event) => {
          if ((e as KeyboardEvent).key !== 'Escape') return;
          e.stopPropagation(); // closes the form, not the panel
          cancel();
        },
      },
      input,
      h('button', { type: 'submit', class: 'primary small' }, t('threads.save')),
      h('button', { type: 'button', class: 'secondary small', onclick: cancel }, t('threads.cancel')),
    );
  }

  private setMode(row: Row, mode: Row['mode'], focus: string): void {
    for (const other of this.rows) other.mode = 'idle';
    row.mode = mode;
    this.render({ id: row.thread.id, control: focus });
    if (mode === 'renaming') this.list.querySelector<HTMLInputElement>('.thread-rename input')?.select();
  }

  private choose(id: string): void {
    if (id !== this.deps.current() && this.deps.busy()) {
      this.say(this.t('threads.busy'));
      return;
    }
    this.show(false, id === this.deps.current()); // the one shown: the panel just closes
    if (id !== this.deps.current()) this.deps.open(id);
  }

  private newChat(): void {
    if (this.deps.busy()) {
      this.say(this.t('threads.busy'));
      return;
    }
    this.show(false, false);
    this.deps.newChat();
  }

  private async rename(row: Row, title: string): Promise<void> {
    try {
      const set = await this.deps.api.rename(row.thread.id, title.trim());
      row.thread = { ...row.thread, title: set.title };
      this.say(this.t('threads.renamed', { title: this.titleOf(row.thread) }));
      this.setMode(row, 'idle', '.rename');
    } catch (error) {
      this.fail(error);
    }
  }

  private async remove(row: Row): Promise<void> {
    const index = this.rows.indexOf(row);
    try {
      await this.deps.api.deleteConversation(row.thread.id);
    } catch (error) {
      // Already gone (deleted elsewhere): as good as deleted here.
      if (!(error instanceof ChatError && error.status === 404)) return this.fail(error);
    }
    this.rows.splice(index, 1);
    this.say(this.t('threads.deleted', { title: this.titleOf(row.thread) }));
    this.render();
    this.focusRow(index);
    this.deps.deleted(row.thread.id);
  }

  /** Focus on the row at `index` (or the last one), else on New chat. */
  private focusRow(index: number): void {
    const buttons = [...this.list.querySelectorAll<HTMLElement>('.thread-open')];
    (buttons[Math.min(index, buttons.length - 1)] ?? this.el.querySelector<HTMLElement>('[part="new-chat"]'))?.focus();
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  private fail(error: unknown): void {
    const plain = plainError(error, this.deps.locale());
    this.say(`${plain.title} ${plain.detail}`);
  }
}

/** Three lines: the list's button. */
const listIcon = () => svgIcon('M4 6h16M4 12h16M4 18h16', 20);
