import { h, uid } from './dom';

export interface Option<T> {
  label: string;
  detail?: string;
  value: T;
  /** Shown for information (a server that is down), never picked. */
  disabled?: boolean;
}

/**
 * A listbox popup driven from a text field (ARIA combobox pattern): the
 * field keeps focus; arrows move the active option, Enter or Tab picks it,
 * Escape closes. Used for the slash menu, the @ menu and argument
 * completions.
 */
export class Listbox<T> {
  readonly el: HTMLUListElement;
  private options: Option<T>[] = [];
  private active = -1;

  constructor(
    private readonly field: HTMLInputElement | HTMLTextAreaElement,
    private readonly onPick: (value: T) => void,
    label: string,
    className = '',
  ) {
    this.el = h('ul', { role: 'listbox', id: uid('listbox'), 'aria-label': label, class: className, hidden: true });
    field.setAttribute('aria-controls', this.el.id);
    field.setAttribute('aria-expanded', 'false');
    field.setAttribute('aria-autocomplete', 'list');
    field.addEventListener('keydown', (event) => this.onKey(event as KeyboardEvent));
    field.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  show(options: Option<T>[]): void {
    this.options = options;
    this.active = options.length ? 0 : -1;
    this.el.replaceChildren(
      ...options.map((option, index) =>
        h(
          'li',
          {
            role: 'option',
            id: `${this.el.id}-${index}`,
            'aria-selected': String(index === this.active),
            'aria-disabled': option.disabled ? 'true' : undefined,
            onmousedown: (e: Event) => (e.preventDefault(), this.pick(index)),
          },
          option.label,
          option.detail ? h('span', { class: 'detail' }, option.detail) : null,
        ),
      ),
    );
    this.el.hidden = options.length === 0;
    this.field.setAttribute('aria-expanded', String(!this.el.hidden));
    this.highlight();
  }

  close(): void {
    this.el.hidden = true;
    this.field.setAttribute('aria-expanded', 'false');
    this.field.removeAttribute('aria-activedescendant');
  }

  private pick(index: number): void {
    const option = this.options[index];
    if (option?.disabled) return;
    this.close();
    if (option) this.onPick(option.value);
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.isOpen) return;
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves) {
      this.active = (this.active + moves[event.key]! + this.options.length) % this.options.length;
      this.highlight();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      if (this.active < 0) return;
      this.pick(this.active);
    } else if (event.key === 'Escape') {
      this.close();
    } else return;
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  private highlight(): void {
    [...this.el.children].forEach((li, index) => li.setAttribute('aria-selected', String(index === this.active)));
    const current = this.el.children[this.active];
    if (current) {
      this.field.setAttribute('aria-activedescendant', current.id);
      current.scrollIntoView?.({ block: 'nearest' });
    }
  }
}
