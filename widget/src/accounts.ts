import { AccountsPanel, ConnectCard, type CardState } from './account-views';
import type { ChatApi } from './api';
import { h } from './dom';
import type { Locale } from './i18n/locale';
import { connectInPopup, type PopupOutcome } from './oauth-popup';
import { plainError } from './plain-errors';
import type { AuthRequired, Connection } from './types';

export interface AccountsHost {
  api: ChatApi;
  root: ShadowRoot;
  /** The element's lifetime: a connect stops listening when the widget leaves the page. */
  lifetime(): AbortSignal;
  /** `server` was just connected; `turn`: the answer whose card asked. True when the widget answers it again. */
  connected(server: string, turn: string | undefined): boolean;
  focusInput(): void;
  locale(): Locale;
}

/**
 * The person's own accounts on the tenant's OAuth servers: Connect cards
 * (from a turn's `data-auth-required` parts, or the list on load), the
 * "Connected accounts" panel, and the connect itself (a popup). The list
 * (`GET /v1/connections`) is asked for when the widget talks to the service
 * anyway (a conversation loaded or created), after a connect or disconnect,
 * and when the panel opens — never per render.
 */
export class Accounts {
  /** The cards, between the conversation and the composer; a live region, so new cards and their notes are read out. */
  readonly cardsEl = h('div', { class: 'connect-cards', 'aria-live': 'polite', hidden: true });
  readonly panel: AccountsPanel;
  private connections: Connection[] = [];
  private listed = false;
  private readonly cards = new Map<string, ConnectCard>();
  /** Connects under way, by server: a new one for the same server replaces the old. */
  private readonly flows = new Map<string, AbortController>();

  constructor(private readonly host: AccountsHost) {
    this.panel = new AccountsPanel(
      host.root,
      {
        connect: (server) => this.connect(server),
        disconnect: (server) => void this.disconnect(server),
        opened: () => void this.refresh(),
      },
      host.locale,
    );
  }

  /** Whether the list was fetched once already (the widget asks for it once, with its first request). */
  get known(): boolean {
    return this.listed;
  }

  /** A server the person must connect: a card (one per server; a later turn's notice updates it). */
  require(notice: AuthRequired, turn: string | undefined): void {
    let card = this.cards.get(notice.server);
    if (!card) {
      card = new ConnectCard(
        notice.server,
        () => this.connect(notice.server),
        () => this.dismiss(notice.server),
        this.host.locale,
      );
      this.cards.set(notice.server, card);
      this.cardsEl.append(card.el);
    }
    card.need(notice, turn, this.flows.has(notice.server));
    this.cardsEl.hidden = false;
    // The panel lists it even before the list was fetched.
    if (!this.connections.some((c) => c.server === notice.server)) {
      this.connections.push({
        server: notice.server,
        auth: 'oauth',
        status: notice.reason === 'insufficient_scope' ? 'step_up_required' : 'not_connected',
      });
      this.render();
    }
  }

  /** The person asks something new: earlier cards go (the new turn sends again any still needed), unless a connect is under way. */
  newTurn(): void {
    for (const server of [...this.cards.keys()]) if (!this.flows.has(server)) this.dismiss(server, false);
  }

  /** The list from the service; `cards`: also a card for each server not connected (on load). Failures are quiet: the chat works without it. */
  async refresh(cards = false): Promise<void> {
    try {
      const { connections } = await this.host.api.connections();
      this.listed = true;
      this.connections = connections.filter((c) => c.auth === 'oauth');
    } catch {
      return;
    }
    this.render();
    if (cards) {
      for (const c of this.connections)
        if (c.status !== 'connected')
          this.require(
            {
              server: c.server,
              reason: c.status === 'step_up_required' ? 'insufficient_scope' : 'not_connected',
              ...(c.scope ? { scope: c.scope } : {}),
            },
            undefined,
          );
    }
  }

  /** Runs in the click handler: the popup opens before anything is awaited. */
  connect(server: string): void {
    this.flows.get(server)?.abort();
    const flow = new AbortController();
    this.flows.set(server, flow);
    this.host.lifetime().addEventListener('abort', () => flow.abort(), { once: true, signal: flow.signal });
    const t = this.t;
    this.show(server, 'opening', t('accounts.opening'));
    const link = async () => {
      const { url } = await this.host.api.connectLink(server);
      this.show(server, 'waiting', t('accounts.finish', { server }));
      return url;
    };
    // The callback hands the code back to this window; completing it as the person signed in here is what connects.
    const complete = async (handover: { state: string; code: string; iss?: string }) => {
      this.show(server, 'waiting', t('accounts.finishing', { server }));
      await this.host.api.completeConnection(server, handover);
    };
    connectInPopup(server, t('accounts.popupTitle', { server }), link, complete, flow.signal).then(
      (outcome) => this.settle(server, flow, outcome),
      (error: unknown) => this.settle(server, flow, undefined, error),
    );
  }

  private async settle(
    server: string,
    flow: AbortController,
    outcome: PopupOutcome | undefined,
    error?: unknown,
  ): Promise<void> {
    if (this.flows.get(server) !== flow) return;
    // The list says what really happened: a window closed by hand may have finished first.
    await this.refresh();
    if (this.flows.get(server) !== flow) return;
    this.flows.delete(server);
    const card = this.cards.get(server);
    const hadFocus = card?.el.contains(this.host.root.activeElement) ?? false;
    if (outcome?.kind === 'connected' || (outcome?.kind === 'closed' && this.statusOf(server) === 'connected')) {
      const again = this.host.connected(server, card?.turn);
      this.show(server, 'connected', this.t(again ? 'accounts.answeringAgain' : 'accounts.nextMessage', { server }));
      if (hadFocus) this.host.focusInput();
      return;
    }
    this.show(
      server,
      'failed',
      error !== undefined ? this.failure(error) : outcome ? this.refusal(server, outcome) : '',
    );
  }

  private async disconnect(server: string): Promise<void> {
    try {
      await this.host.api.disconnect(server);
      this.panel.say(this.t('accounts.disconnected', { server }));
    } catch (error) {
      this.panel.say(this.failure(error));
    }
    await this.refresh();
  }

  private dismiss(server: string, moveFocus = true): void {
    const card = this.cards.get(server);
    if (!card) return;
    const hadFocus = card.el.contains(this.host.root.activeElement);
    card.el.remove();
    this.cards.delete(server);
    this.cardsEl.hidden = this.cards.size === 0;
    if (hadFocus && moveFocus) this.host.focusInput();
  }

  /** A connect's progress: on its card if there is one (a live region), else in the panel's status line. */
  private show(server: string, state: CardState, note: string): void {
    const card = this.cards.get(server);
    if (card) card.set(state, note);
    else if (note) this.panel.say(note);
    this.render();
  }

  private render(): void {
    this.panel.render(this.connections, new Set(this.flows.keys()));
  }

  private statusOf(server: string): Connection['status'] | undefined {
    return this.connections.find((c) => c.server === server)?.status;
  }

  private get t(): Locale['t'] {
    const locale = this.host.locale();
    return locale.t.bind(locale);
  }

  private refusal(server: string, outcome: PopupOutcome): string {
    const t = this.t;
    if (outcome.kind === 'refused')
      return outcome.reason
        ? t('accounts.refused', { server, reason: outcome.reason })
        : t('accounts.notGranted', { server });
    if (outcome.kind === 'blocked') return t('accounts.blocked', { server });
    return t('accounts.closedEarly', { server });
  }

  private failure(error: unknown): string {
    const plain = plainError(error, this.host.locale());
    return `${plain.title} ${plain.detail}`;
  }
}
