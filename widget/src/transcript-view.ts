import { h } from './dom';
import { renderMessage, viewSlots, type TranscriptContext } from './transcript';
import type { Message } from './types';

/**
 * The conversation log: the messages, their elements, and re-rendering a
 * streaming message at most once a frame. Focus inside a re-rendered message
 * (an open step, a button) is put back on the same control. While a turn
 * streams the log is not a live region (a screen reader would hear the whole
 * answer again on every frame); the finished answer is announced once.
 */
export class TranscriptView {
  readonly el: HTMLElement;
  private readonly announcer: HTMLElement;
  private messages: Message[] = [];
  private views = new Map<Message, HTMLElement>();
  /** Messages as the service stored them (the last history load), by id. */
  private stored = new Map<string, Message>();
  private pending = new Set<Message>();
  /**
   * The person follows the end of the conversation: they have not scrolled up. Kept from their own scrolling, not
   * measured at each change — a view that reports its height after the answer below it has streamed, or a message
   * that wraps anew, would otherwise leave the log just short of the end and stop following it.
   */
  private following = true;

  /**
   * @param retire Called for a message element leaving the log: a promise when it holds views to tear
   *   down first (the element stays, hidden, until then), else undefined.
   * @param emptyState What an empty conversation shows (the start screen), asked each time it is shown (`show`).
   */
  constructor(
    private readonly root: ShadowRoot,
    private readonly context: () => TranscriptContext,
    private readonly retire: (el: HTMLElement) => Promise<void> | undefined = () => undefined,
    private readonly emptyState: () => HTMLElement = () => h('p', { class: 'empty' }),
  ) {
    this.el = h('div', {
      class: 'log',
      role: 'log',
      'aria-live': 'polite',
      'aria-label': 'Conversation',
      tabindex: 0,
      part: 'log',
    });
    this.announcer = h('div', { class: 'sr-only', 'aria-live': 'polite' });
    this.el.addEventListener('scroll', () => (this.following = this.atEnd()), { passive: true });
  }

  get announcerEl(): HTMLElement {
    return this.announcer;
  }

  /** Quiet while a turn streams; the answer is announced when it is done. */
  setStreaming(streaming: boolean): void {
    // A render still waiting for its frame goes out now: "done" must never show (or announce) half an answer.
    if (!streaming) for (const message of [...this.pending]) this.renderNow(message);
    this.el.setAttribute('aria-busy', String(streaming));
    this.el.setAttribute('aria-live', streaming ? 'off' : 'polite');
  }

  announce(text: string): void {
    this.announcer.textContent = text.length > 600 ? `${text.slice(0, 600)}…` : text;
  }

  all(): readonly Message[] {
    return this.messages;
  }
  find(id: string | undefined): Message | undefined {
    return id ? this.messages.find((m) => m.id === id) : undefined;
  }
  /** A copy of the message as last loaded from the history, to replay a resumed stream onto. */
  storedCopy(id: string | undefined): Message | undefined {
    const message = id ? this.stored.get(id) : undefined;
    return message ? structuredClone(message) : undefined;
  }

  show(messages: Message[]): void {
    this.messages = [];
    for (const view of this.views.values()) this.leave(view);
    this.views.clear();
    this.stored = new Map(messages.map((m) => [m.id, structuredClone(m)]));
    for (const child of [...this.el.children]) if (!this.leaving.has(child)) child.remove();
    if (!messages.length) this.el.append(this.emptyState());
    for (const message of messages) this.add(message);
  }

  /** One message as the service stores it now (a task moved): shown in place, kept as its stored copy. */
  update(message: Message): void {
    this.stored.set(message.id, structuredClone(message));
    const old = this.find(message.id);
    if (old) this.replace(old, message);
    else this.add(message);
  }

  add(message: Message): Message {
    this.el.querySelector('.empty')?.remove();
    this.messages.push(message);
    const view = h('article');
    patch(view, renderMessage(message, this.context()));
    this.views.set(message, view);
    this.el.append(view);
    this.toEnd();
    return message;
  }

  replace(old: Message, message: Message): void {
    this.messages[this.messages.indexOf(old)] = message;
    const view = this.views.get(old);
    this.views.delete(old);
    this.views.set(message, view ?? h('article'));
    this.renderNow(message);
  }

  remove(message: Message): void {
    this.messages = this.messages.filter((m) => m !== message);
    const view = this.views.get(message);
    if (view) this.leave(view);
    this.views.delete(message);
    // The only message taken back (refused): the conversation is empty again.
    if (!this.messages.length) this.el.append(this.emptyState());
  }

  /** Every message again (the views, closed when the element left the page, come back). */
  renderAll(): void {
    for (const message of this.messages) this.renderNow(message);
  }

  /** Elements leaving the log, hidden, while their views are torn down. */
  private readonly leaving = new WeakSet<Element>();

  private leave(view: HTMLElement): void {
    const retiring = this.retire(view);
    if (!retiring) {
      view.remove();
      return;
    }
    view.hidden = true;
    this.leaving.add(view);
    void retiring.finally(() => view.remove());
  }

  /** Runs `change` (a view growing), and keeps the log at its end if the person follows it. */
  keepBottom(change: () => void): void {
    change();
    if (this.following) this.toEnd();
  }

  private atEnd(): boolean {
    return this.el.scrollHeight - this.el.scrollTop - this.el.clientHeight < 80;
  }

  private toEnd(): void {
    this.el.scrollTop = this.el.scrollHeight;
    this.following = true;
  }

  scheduleRender(message: Message): void {
    if (this.pending.has(message)) return;
    this.pending.add(message);
    requestAnimationFrame(() => this.renderNow(message));
  }

  renderNow(message: Message): void {
    this.pending.delete(message);
    const view = this.views.get(message);
    if (!view) return;
    // Focusable regions too: a table scrolled with the keyboard while the answer streams keeps the focus.
    const controls = (el: Element) => [...el.querySelectorAll('summary, a, button, [tabindex="0"]')];
    const focused = controls(view).indexOf(this.root.activeElement as Element);
    const open = new Set([...view.querySelectorAll('details')].flatMap((d, i) => (d.open ? [i] : [])));
    const fresh = renderMessage(message, this.context());
    [...fresh.querySelectorAll('details')].forEach((d, i) => {
      if (open.has(i)) d.setAttribute('open', '');
    });
    patch(view, fresh);
    if (focused >= 0) (controls(view)[focused] as HTMLElement | undefined)?.focus();
    if (this.following) this.toEnd();
  }
}

/**
 * Makes `view` (a message's element, kept for its lifetime) what `fresh`
 * is: its attributes and children, except that a view placeholder becomes
 * the kept view element (viewSlots) — which is never moved while it stays:
 * the others are removed and inserted around it (moving an iframe would
 * reload it; `moveBefore` is Chromium-only).
 */
function patch(view: HTMLElement, fresh: HTMLElement): void {
  for (const { name } of [...view.attributes]) view.removeAttribute(name);
  for (const { name, value } of [...fresh.attributes]) view.setAttribute(name, value);
  const wanted = [...fresh.childNodes].map((node) => (node instanceof Element && viewSlots.get(node)) || node);
  const kept = new Set(wanted.filter((node) => node.parentNode === view));
  for (const child of [...view.childNodes]) if (!kept.has(child)) child.remove();
  let cursor = view.firstChild;
  for (const node of wanted) {
    if (node === cursor) cursor = cursor.nextSibling;
    else view.insertBefore(node, cursor);
  }
}
