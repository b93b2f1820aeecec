import type { ThreadSummary } from '../../shared/api/conversations';
import { ChatError, type ChatApi } from './api';
import { h, svgIcon, uid } from './dom';
import { plainError } from './plain-errors';

/** Every string the thread list shows (one table, for the translation pass). */
export const THREADS_TEXT = {
  button: 'Conversations',
  heading: 'Conversations',
  newChat: 'New chat',
  close: 'Close conversations',
  untitled: 'Untitled conversation',
  lastActive: 'Last active',
  rename: 'Rename',
  renameLabel: (title: string) => `Rename “${title}”`,
  titleField: 'Title',
  save: 'Save',
  cancel: 'Cancel',
  delete: 'Delete',
  deleteLabel: (title: string) => `Delete “${title}”`,
  confirmDelete: (title: string) => `Delete “${title}”? Its messages and files go; this cannot be undone.`,
  more: 'Show more',
  loading: 'Loading conversations…',
  none: 'No conversations yet.',
  renamed: (title: string) => `Renamed to “${title}”.`,
  deleted: (title: string) => `“${title}” was deleted.`,
  busy: 'An answer is being written: open another conversation once it is done.',
} as const;

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
}

/** A listed conversation, and what its row is doing. */
interface Row {
  thread: ThreadSummary;
  mode: 'idle' | 'renaming' | 'confirming';
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const titleOf = (thread: ThreadSummary) => thread.title || THREADS_TEXT.untitled;
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
  private rows: Row[] = [];
  private cursor: string | null = null;
  /** Bumped per read of the list: a page that arrives after the panel closed or reopened is dropped. */
  private generation = 0;

  constructor(private readonly deps: ThreadsDeps) {
    const id = uid('threads');
    const headingId = uid('threads-heading');
    this.list = h('ul', { class: 'threads-list', 'aria-labelledby': headingId });
    this.more = h(
      'button',
      { type: 'button', class: 'secondary small', hidden: true, onclick: () => void this.load(true) },
      THREADS_TEXT.more,
    );
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
      h(
        'div',
        { class: 'threads-head' },
        h('h3', { id: headingId }, THREADS_TEXT.heading),
        h(
          'button',
          { type: 'button', class: 'primary small', part: 'new-chat', onclick: () => this.newChat() },
          THREADS_TEXT.newChat,
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'icon',
            'aria-label': THREADS_TEXT.close,
            title: THREADS_TEXT.close,
            onclick: () => this.show(false),
          },
          '×',
        ),
      ),
      this.list,
      this.more,
      this.status,
    );
    this.toggle = h(
      'button',
      {
        type: 'button',
        class: 'icon threads-button',
        'aria-label': THREADS_TEXT.button,
        title: THREADS_TEXT.button,
        'aria-expanded': 'false',
        'aria-controls': id,
        part: 'threads-button',
        onclick: () => this.show(this.el.hidden),
      },
      listIcon(),
    );
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
      this.rows = [];
      this.cursor = null;
      this.render();
      void this.load(false);
    } else if (focusToggle) this.toggle.focus();
  }

  /** The first page (or, with `more`, the next one), rendered once read. */
  private async load(more: boolean): Promise<void> {
    const generation = this.generation;
    this.say(THREADS_TEXT.loading);
    try {
      const page = await this.deps.api.conversations(more ? (this.cursor ?? undefined) : undefined);
      if (generation !== this.generation) return;
      const current = this.deps.current();
      const known = new Set(this.rows.map((r) => r.thread.id));
      for (const thread of page.conversations)
        if (!known.has(thread.id) && (thread.id === current || !unused(thread)))
          this.rows.push({ thread, mode: 'idle' });
      this.cursor = page.nextCursor;
      this.say(this.rows.length ? '' : THREADS_TEXT.none);
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
    const title = titleOf(thread);
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
          h('p', { id: textId }, THREADS_TEXT.confirmDelete(title)),
          h(
            'div',
            { class: 'row' },
            h(
              'button',
              { type: 'button', class: 'danger small', onclick: () => void this.remove(row) },
              THREADS_TEXT.delete,
            ),
            h(
              'button',
              { type: 'button', class: 'secondary small cancel', onclick: () => this.setMode(row, 'idle', '.delete') },
              THREADS_TEXT.cancel,
            ),
          ),
        ),
      );
      return li;
    }
    const time = h('time', { datetime: thread.lastActivityAt }, when.format(new Date(thread.lastActivityAt)));
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
        h('span', { class: 'meta' }, `${THREADS_TEXT.lastActive} `, time),
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small rename',
          'aria-label': THREADS_TEXT.renameLabel(title),
          onclick: () => this.setMode(row, 'renaming', 'input'),
        },
        THREADS_TEXT.rename,
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small delete',
          'aria-label': THREADS_TEXT.deleteLabel(title),
          onclick: () => this.setMode(row, 'confirming', '.cancel'),
        },
        THREADS_TEXT.delete,
      ),
    );
    return li;
  }

  private renameForm(row: Row): HTMLFormElement {
    const input = h('input', { name: 'title', value: row.thread.title, 'aria-label': THREADS_TEXT.titleField });
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
      h('button', { type: 'submit', class: 'primary small' }, THREADS_TEXT.save),
      h('button', { type: 'button', class: 'secondary small', onclick: cancel }, THREADS_TEXT.cancel),
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
      this.say(THREADS_TEXT.busy);
      return;
    }
    this.show(false, id === this.deps.current()); // the one shown: the panel just closes
    if (id !== this.deps.current()) this.deps.open(id);
  }

  private newChat(): void {
    if (this.deps.busy()) {
      this.say(THREADS_TEXT.busy);
      return;
    }
    this.show(false, false);
    this.deps.newChat();
  }

  private async rename(row: Row, title: string): Promise<void> {
    try {
      const set = await this.deps.api.rename(row.thread.id, title.trim());
      row.thread = { ...row.thread, title: set.title };
      this.say(THREADS_TEXT.renamed(titleOf(row.thread)));
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
    this.say(THREADS_TEXT.deleted(titleOf(row.thread)));
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
    const plain = plainError(error);
    this.say(`${plain.title} ${plain.detail}`);
  }
}

/** Three lines: the list's button. */
const listIcon = () => svgIcon('M4 6h16M4 12h16M4 18h16', 20);
