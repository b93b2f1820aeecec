import { h, uid } from './dom';
import { ENGLISH, type Locale } from './i18n/locale';

export interface Option<T> {
  label: string;
  detail?: string;
  value: T;
  /** Shown for information (a server that is down), never picked. */
  disabled?: boolean;
  /** The section it is in ("Prompts", "Skills"): a heading goes before the first option of each section (when there are two or more). */
  group?: string;
  /** What one option of its section is ("skill"), said after its label when the menu has sections. */
  kind?: string;
}

/**
 * A listbox popup driven from a text field, which keeps focus: arrows move
 * the active option, Enter picks it, Escape (or Tab, moving on) closes.
 * An `<input>` becomes an ARIA combobox; the message textarea (a textbox
 * that may have two menus, / and @) points `aria-controls` and
 * `aria-activedescendant` at whichever menu is open. A polite status line
 * says how many options there are.
 */
export class Listbox<T> {
  readonly el: HTMLUListElement;
  private options: Option<T>[] = [];
  /** The options' elements, by index (section headings sit between them in the list). */
  private items: HTMLLIElement[] = [];
  private active = -1;
  private readonly combobox: boolean;

  constructor(
    private readonly field: HTMLInputElement | HTMLTextAreaElement,
    private readonly onPick: (value: T) => void,
    private readonly label: string,
    private readonly announce: (text: string) => void,
    className = '',
    private readonly locale: () => Locale = () => ENGLISH,
  ) {
    this.el = h('ul', { role: 'listbox', id: uid('listbox'), 'aria-label': label, class: className, hidden: true });
    this.combobox = field instanceof HTMLInputElement;
    if (this.combobox) {
      field.setAttribute('role', 'combobox');
      field.setAttribute('aria-autocomplete', 'list');
      field.setAttribute('aria-controls', this.el.id);
      field.setAttribute('aria-expanded', 'false');
    }
    field.addEventListener('keydown', (event) => this.onKey(event as KeyboardEvent));
    field.addEventListener('blur', () => setTimeout(() => this.close(), 150));
  }

  get isOpen(): boolean {
    return !this.el.hidden;
  }

  show(options: Option<T>[]): void {
    if (!options.length) {
      this.close();
      return;
    }
    const count = options.filter((o) => !o.disabled).length;
    if (!this.isOpen || count !== this.options.filter((o) => !o.disabled).length)
      this.announce(
        this.locale().t('menus.options', { menu: this.el.getAttribute('aria-label') ?? this.label, count }),
      );
    this.options = options;
    this.active = options.findIndex((o) => !o.disabled);
    this.items = options.map((option, index) =>
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
    );
    // Section headings (presentational: a screen reader hears the section in each option's name instead).
    const sections = new Set(options.map((o) => o.group).filter(Boolean)).size > 1;
    const children: HTMLLIElement[] = [];
    this.items.forEach((item, index) => {
      const group = options[index]!.group;
      if (sections && group && group !== options[index - 1]?.group)
        children.push(h('li', { role: 'presentation', class: 'group' }, group));
      const { label, kind, detail } = options[index]!;
      if (sections && group)
        item.setAttribute('aria-label', `${label} (${kind ?? group})${detail ? `, ${detail}` : ''}`);
      children.push(item);
    });
    this.el.replaceChildren(...children);
    this.el.hidden = false;
    this.field.setAttribute('aria-controls', this.el.id);
    if (this.combobox) this.field.setAttribute('aria-expanded', 'true');
    this.highlight();
  }

  close(): void {
    if (!this.isOpen) return;
    this.el.hidden = true;
    this.options = [];
    this.items = [];
    this.active = -1;
    if (this.combobox) this.field.setAttribute('aria-expanded', 'false');
    else if (this.field.getAttribute('aria-controls') === this.el.id) this.field.removeAttribute('aria-controls');
    this.field.removeAttribute('aria-activedescendant');
  }

  private pick(index: number): void {
    const option = this.options[index];
    if (!option || option.disabled) return;
    this.close();
    this.onPick(option.value);
  }

  private onKey(event: KeyboardEvent): void {
    if (!this.isOpen) return;
    const selectable = this.options.map((o, i) => (o.disabled ? -1 : i)).filter((i) => i >= 0);
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!selectable.length) return;
      const at = selectable.indexOf(this.active);
      const next = event.key === 'ArrowDown' ? at + 1 : at - 1;
      this.active = selectable[(next + selectable.length) % selectable.length]!;
      this.highlight();
    } else if (event.key === 'Enter') {
      // Nothing to pick: the Enter is the field's (send the message).
      if (this.active < 0) {
        this.close();
        return;
      }
      this.pick(this.active);
    } else if (event.key === 'Escape') {
      this.close();
    } else {
      if (event.key === 'Tab') this.close();
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
  }

  private highlight(): void {
    this.items.forEach((li, index) => {
      li.setAttribute('aria-selected', String(index === this.active));
    });
    const current = this.items[this.active];
    if (current) {
      this.field.setAttribute('aria-activedescendant', current.id);
      current.scrollIntoView?.({ block: 'nearest' });
    } else this.field.removeAttribute('aria-activedescendant');
  }
}
