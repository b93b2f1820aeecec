import { h, uid } from './dom';
import type { AuthRequired, Connection } from './types';

export type CardState = 'needed' | 'opening' | 'waiting' | 'connected' | 'failed';

/** Why the person is asked, in their words. */
export function reasonText({ server, reason, scope }: AuthRequired): string {
  if (reason === 'expired') return `Your authorization for ${server} has ended. Connect again to keep using it.`;
  if (reason === 'insufficient_scope')
    return `${server} needs more access${scope ? ` (${scope})` : ''}. Connect again to grant it.`;
  return `${server} is not connected. Connect your account so the assistant can use it.`;
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
  ) {
    this.why = h('p', {});
    this.note = h('p', { class: 'note' });
    this.button = h('button', { type: 'button', class: 'primary', onclick: connect }, `Connect ${server}`);
    this.close = h('button', { type: 'button', class: 'secondary', onclick: dismiss }, 'Not now');
    this.el = h(
      'div',
      {
        class: 'connect',
        role: 'group',
        'aria-label': `Connect ${server}`,
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
    this.why.textContent = reasonText(notice);
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
    this.close.textContent = state === 'connected' ? 'Close' : 'Not now';
  }
}

const STATUS: Record<Connection['status'], string> = {
  connected: 'Connected',
  not_connected: 'Not connected',
  step_up_required: 'Connected, needs more access',
};

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

  constructor(
    private readonly root: ShadowRoot,
    private readonly actions: { connect(server: string): void; disconnect(server: string): void; opened(): void },
  ) {
    const id = uid('accounts');
    this.list = h('ul', {});
    this.status = h('p', { class: 'meta', role: 'status' });
    this.el = h(
      'section',
      {
        id,
        class: 'accounts',
        'aria-label': 'Connected accounts',
        hidden: true,
        part: 'accounts',
        onkeydown: (e: Event) => (e as KeyboardEvent).key === 'Escape' && this.show(false, true),
      },
      h('h3', {}, 'Connected accounts'),
      this.list,
      this.status,
    );
    this.toggle = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-expanded': 'false',
        'aria-controls': id,
        hidden: true,
        part: 'accounts-button',
        onclick: () => this.show(this.el.hidden),
      },
      'Accounts',
    );
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
    const focusedRow =
      active && this.list.contains(active) ? (active.closest('li') as HTMLElement | null)?.dataset.server : undefined;
    this.toggle.hidden = connections.length === 0;
    this.list.replaceChildren(
      ...connections.map((c) => {
        const busy = signingIn.has(c.server);
        const button = (label: string, action: (server: string) => void, disabled = false) =>
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'aria-label': `${label} ${c.server}`,
              disabled,
              onclick: () => action(c.server),
            },
            label,
          );
        return h(
          'li',
          { 'data-server': c.server, 'data-status': c.status },
          h('span', { class: 'name' }, c.server),
          h('span', { class: 'meta', title: c.scope }, busy ? 'Signing in…' : STATUS[c.status]),
          c.status !== 'connected' ? button('Connect', this.actions.connect, busy) : null,
          c.status !== 'not_connected' ? button('Disconnect', this.actions.disconnect) : null,
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
