import { h, uid } from './dom';
import type { Locale } from './i18n/locale';
import type { TextKey } from './i18n/strings';
import type { AuthRequired, Connection } from './types';

export type CardState = 'needed' | 'opening' | 'waiting' | 'connected' | 'failed';

/** Why the person is asked, in their words. */
export function reasonText({ server, reason, scope }: AuthRequired, locale: Locale): string {
  if (reason === 'expired') return locale.t('accounts.expired', { server });
  if (reason === 'insufficient_scope')
    return scope
      ? locale.t('accounts.needsScopeNamed', { server, scope })
      : locale.t('accounts.needsScope', { server });
  return locale.t('accounts.notConnected', { server });
}

/**
 * A "Connect <server>" card. Updated in place, never rebuilt: it sits in a
 * live region, so only what changed (the note) is read out, and a focused
 * button keeps its focus.
 */
export class ConnectCard {
  readonly el: HTMLElement;
  readonly button: HTMLButtonElement;
  /** The assistant message of the turn that asked; undefined when the list on load did. */
  turn: string | undefined;
  private readonly why: HTMLElement;
  private readonly note: HTMLElement;
  private readonly close: HTMLButtonElement;

  constructor(
    readonly server: string,
    connect: () => void,
    dismiss: () => void,
    private readonly locale: () => Locale,
  ) {
    const t = locale().t.bind(locale());
    this.why = h('p', {});
    this.note = h('p', { class: 'note' });
    this.button = h(
      'button',
      { type: 'button', class: 'primary', onclick: connect },
      t('accounts.connectServer', { server }),
    );
    this.close = h('button', { type: 'button', class: 'secondary', onclick: dismiss });
    this.el = h(
      'div',
      {
        class: 'connect',
        role: 'group',
        'aria-label': t('accounts.connectServer', { server }),
        'data-server': server,
        part: 'connect-card',
      },
      this.why,
      this.note,
      h('div', { class: 'row' }, this.button, this.close),
    );
    this.set('needed');
  }

  need(notice: AuthRequired, turn: string | undefined, busy: boolean): void {
    this.why.textContent = reasonText(notice, this.locale());
    this.turn = turn;
    if (!busy) this.set('needed');
  }

  set(state: CardState, note = ''): void {
    this.el.dataset.state = state;
    this.why.hidden = state === 'connected';
    this.note.textContent = note;
    this.note.hidden = !note;
    // Never disabled (a disabled button drops focus): pressed again, it brings the window back with a fresh link.
    this.button.hidden = state === 'connected';
    this.close.textContent = this.locale().t(state === 'connected' ? 'accounts.close' : 'accounts.notNow');
  }
}

const STATUS = {
  connected: 'accounts.statusConnected',
  not_connected: 'accounts.statusNotConnected',
  step_up_required: 'accounts.statusStepUp',
} as const satisfies Record<Connection['status'], TextKey>;

/**
 * "Connected accounts": a header button that shows a small list of the
 * person's OAuth servers, each with its status and Connect or Disconnect.
 * Escape closes it and puts focus back on the button.
 */
export class AccountsPanel {
  readonly toggle: HTMLButtonElement;
  readonly el: HTMLElement;
  private readonly list: HTMLUListElement;
  private readonly status: HTMLElement;
  private readonly heading = h('h3', {});

  constructor(
    private readonly root: ShadowRoot,
    private readonly actions: { connect(server: string): void; disconnect(server: string): void; opened(): void },
    private readonly locale: () => Locale,
  ) {
    const id = uid('accounts');
    this.list = h('ul', {});
    this.status = h('p', { class: 'meta', role: 'status' });
    this.el = h(
      'section',
      {
        id,
        class: 'accounts',
        hidden: true,
        part: 'accounts',
        onkeydown: (e: Event) => (e as KeyboardEvent).key === 'Escape' && this.show(false, true),
      },
      this.heading,
      this.list,
      this.status,
    );
    this.toggle = h('button', {
      type: 'button',
      class: 'secondary small',
      'aria-expanded': 'false',
      'aria-controls': id,
      hidden: true,
      part: 'accounts-button',
      onclick: () => this.show(this.el.hidden),
    });
    this.relabel();
  }

  /** Its words in the widget's language (again when the language changes). */
  relabel(): void {
    const t = this.locale().t.bind(this.locale());
    this.el.setAttribute('aria-label', t('accounts.panel'));
    this.heading.textContent = t('accounts.panel');
    this.toggle.textContent = t('accounts.button');
  }

  show(open: boolean, focusToggle = false): void {
    this.el.hidden = !open;
    this.toggle.setAttribute('aria-expanded', String(open));
    if (open) this.actions.opened();
    if (focusToggle) this.toggle.focus();
  }

  say(text: string): void {
    this.status.textContent = text;
  }

  /** The list; `signingIn`: servers with a connect under way. Focus on a row stays on that row. */
  render(connections: Connection[], signingIn: ReadonlySet<string>): void {
    const active = this.root.activeElement;
    const t = this.locale().t.bind(this.locale());
    const focusedRow =
      active && this.list.contains(active) ? (active.closest('li') as HTMLElement | null)?.dataset.server : undefined;
    this.toggle.hidden = connections.length === 0;
    this.list.replaceChildren(
      ...connections.map((c) => {
        const busy = signingIn.has(c.server);
        const button = (label: string, named: string, action: (server: string) => void, disabled = false) =>
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': named,
              disabled,
              onclick: () => action(c.server),
            },
            label,
          );
        return h(
          'li',
          { 'data-server': c.server, 'data-status': c.status },
          h('span', { class: 'name' }, c.server),
          h('span', { class: 'meta', title: c.scope }, t(busy ? 'accounts.signingIn' : STATUS[c.status])),
          c.status !== 'connected'
            ? button(
                t('accounts.connect'),
                t('accounts.connectServer', { server: c.server }),
                this.actions.connect,
                busy,
              )
            : null,
          c.status !== 'not_connected'
            ? button(
                t('accounts.disconnect'),
                t('accounts.disconnectServer', { server: c.server }),
                this.actions.disconnect,
              )
            : null,
        );
      }),
    );
    if (focusedRow !== undefined)
      (
        this.list.querySelector<HTMLElement>(`li[data-server="${CSS.escape(focusedRow)}"] button:not(:disabled)`) ??
        this.toggle
      ).focus();
  }
}
