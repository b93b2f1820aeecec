import { Accounts } from './accounts';
import { AppViews } from './app-view/views';
import { ChatApi, ChatError } from './api';
import { promptForm, templateForm, type FormDeps } from './catalog-forms';
import { promptOptions, resourceOptions, type PromptChoice, type ResourceChoice } from './catalog-menus';
import { h } from './dom';
import { Listbox } from './listbox';
import { plainError } from './plain-errors';
import { STYLES } from './styles';
import { attachmentChips } from './transcript';
import { TranscriptView } from './transcript-view';
import { applyChunk, sseChunks } from './ui-stream';
import type { ElicitationAnswer } from './elicitation-form';
import type { Attachment, AuthRequired, Catalog, Message, ToolPart } from './types';
import type { McpOndemandChatAttributes, McpOndemandChatEventDetails } from '../mcp-ondemand-chat';

/** Where the widget's own script came from: the default endpoint. Read while the script runs. */
const SCRIPT_ORIGIN = (document.currentScript as HTMLScriptElement | null)?.src
  ? new URL((document.currentScript as HTMLScriptElement).src).origin
  : location.origin;
const CATALOG_MAX_AGE_MS = 15_000;
const RESUME_DELAYS_MS = [500, 1_000, 2_000, 4_000];
const DEFAULT_PLACEHOLDER = 'Ask anything — / for prompts, @ to attach';

type Turn = (signal: AbortSignal) => Promise<Response>;

/**
 * `<mcp-ondemand-chat endpoint token conversation heading placeholder persist>`:
 * the chat widget. Everything renders in a shadow root; events bubble out
 * of it (`mcp-ondemand-conversation`, `-message`, `-error`, `-token-expired`).
 */
export class McpOndemandChat extends HTMLElement {
  static observedAttributes: Array<keyof McpOndemandChatAttributes> = ['token', 'heading', 'placeholder', 'conversation'];

  private readonly root = this.attachShadow({ mode: 'open' });
  private api!: ChatApi;
  private conversationId: string | null = null;
  private creating: Promise<string> | null = null;
  private catalog: { value: Catalog; at: number } | null = null;
  private attachments: Attachment[] = [];
  private busy = false;
  /** Aborted when the element leaves the page: no fetch, stream or timer outlives it. */
  private lifetime = new AbortController();
  private built = false;

  // Built once in connectedCallback.
  private transcript!: TranscriptView;
  private status!: HTMLElement;
  private alert!: HTMLElement;
  private input!: HTMLTextAreaElement;
  private send!: HTMLButtonElement;
  private stopButton!: HTMLButtonElement;
  private chips!: HTMLElement;
  private formSlot!: HTMLElement;
  /**
   * Not `heading`: React 19 sets a prop as a property when the element has one
   * by that name, so a field named like an attribute would swallow it.
   */
  private headingEl!: HTMLElement;
  private slashMenu!: Listbox<PromptChoice>;
  private atMenu!: Listbox<ResourceChoice>;
  private accounts!: Accounts;
  private views!: AppViews;

  connectedCallback(): void {
    if (this.lifetime.signal.aborted) {
      this.lifetime = new AbortController();
      this.transcript.renderAll(); // back on the page: its views load again
    }
    if (this.built) return;
    this.built = true;
    this.api = new ChatApi(this.attr('endpoint') || SCRIPT_ORIGIN, () => this.attr('token'));
    this.build();
    this.conversationId = this.attr('conversation') || this.stored();
    if (this.conversationId) void this.load(this.conversationId);
  }

  disconnectedCallback(): void {
    this.lifetime.abort();
    this.views.closeAll();
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (!this.built) return;
    if (name === 'heading') this.headingEl.textContent = value || 'Assistant';
    if (name === 'placeholder') this.input.placeholder = value || DEFAULT_PLACEHOLDER;
    // A new token after an expiry: the host has signed the person in again.
    if (name === 'token' && this.alert.dataset.auth === 'expired') this.clearAlert();
    // Another conversation: shown in place of this one (its views torn down first).
    if (name === 'conversation' && value && value !== this.conversationId && !this.busy) {
      this.conversationId = value;
      this.catalog = null;
      this.remember(value);
      void this.load(value);
    }
  }

  // ---- layout -------------------------------------------------------------

  private build(): void {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    this.root.adoptedStyleSheets = [sheet];
    this.views = new AppViews({
      api: this.api,
      conversation: () => this.conversationId,
      enabled: () => this.attr('views') !== 'off',
      resize: (change) => this.transcript.keepBottom(change),
    });
    this.transcript = new TranscriptView(
      this.root,
      () => ({
        describe: (server, uri) => this.describe(server, uri),
        answer: this.busy ? undefined : this.answer,
        elicit: this.elicit,
        view: (app, part) => this.views.node(app, part),
      }),
      (el) => this.views.retire(el, 'The message left the conversation view.'),
    );
    const announce = (text: string) => this.transcript.announce(text);
    this.accounts = new Accounts({
      api: this.api,
      root: this.root,
      lifetime: () => this.lifetime.signal,
      connected: (_server, turn) => this.answerAgain(turn),
      focusInput: () => this.input.focus(),
    });
    this.headingEl = h('h2', {}, this.attr('heading') || 'Assistant');
    this.status = h('span', { class: 'status', role: 'status' });
    this.alert = h('div', { class: 'alert', role: 'alert', hidden: true, part: 'alert' });
    this.input = h('textarea', { rows: 1, 'aria-label': 'Message', placeholder: this.attr('placeholder') || DEFAULT_PLACEHOLDER, part: 'input' });
    this.send = h('button', { type: 'submit', class: 'primary', part: 'send' }, 'Send');
    this.stopButton = h('button', { type: 'button', part: 'stop', hidden: true, onclick: () => void this.stop() }, 'Stop');
    this.chips = h('div', { hidden: true });
    this.formSlot = h('div', { hidden: true });
    // Menus first: their key handling must run before Enter-to-send.
    this.slashMenu = new Listbox(this.input, (choice) => this.showForm(promptForm(choice, this.formDeps())), 'Prompts', announce, 'menu');
    this.atMenu = new Listbox(this.input, (choice) => this.chooseResource(choice), 'Resources to attach', announce, 'menu');
    this.input.addEventListener('input', () => void this.updateMenus());
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.submit();
      }
    });
    const composer = h(
      'form',
      { class: 'composer', part: 'composer', onsubmit: (e: Event) => (e.preventDefault(), void this.submit()) },
      this.slashMenu.el,
      this.atMenu.el,
      this.formSlot,
      this.chips,
      h('div', { class: 'input-row' }, this.input, this.send, this.stopButton),
      h('span', { class: 'hint' }, 'Type / for prompts, @ to attach a resource. Enter sends, Shift+Enter adds a line.'),
    );
    this.root.append(
      h(
        'section',
        { class: 'chat', 'aria-label': 'Chat', part: 'chat' },
        h('header', {}, this.headingEl, this.status, this.accounts.panel.toggle),
        this.accounts.panel.el,
        this.transcript.el,
        this.accounts.cardsEl,
        this.alert,
        composer,
        this.transcript.announcerEl,
      ),
    );
  }

  // ---- conversation -----------------------------------------------------------

  private storageKey(): string {
    return `mcp-ondemand:${this.attr('endpoint') || SCRIPT_ORIGIN}`;
  }
  private stored(): string | null {
    if (this.attr('persist') === 'none') return null;
    try {
      return sessionStorage.getItem(this.storageKey());
    } catch {
      return null; // storage blocked (third-party iframe, privacy mode)
    }
  }
  private remember(id: string | null): void {
    if (this.attr('persist') === 'none') return;
    try {
      if (id) sessionStorage.setItem(this.storageKey(), id);
      else sessionStorage.removeItem(this.storageKey());
    } catch {
      // Not kept across reloads; the chat still works.
    }
  }

  /** The conversation, created on first use; concurrent callers share one creation. */
  private ensureConversation(): Promise<string> {
    if (this.conversationId) return Promise.resolve(this.conversationId);
    this.creating ??= this.api
      .createConversation()
      .then(({ id }) => {
        this.conversationId = id;
        this.remember(id);
        this.emit('mcp-ondemand-conversation', { id });
        // The person's accounts, once, with the widget's first request (the panel needs the list; no request per render).
        if (!this.accounts.known) void this.accounts.refresh();
        return id;
      })
      .finally(() => (this.creating = null));
    return this.creating;
  }

  /** Deleted, or not this person's (a token for someone else): the next message starts afresh. */
  private forgetConversation(): void {
    this.conversationId = null;
    this.catalog = null;
    this.remember(null);
  }

  /** An existing conversation: its history, then the turn still running, if any. */
  private async load(id: string): Promise<void> {
    this.setBusy(true, 'Loading…');
    // Alongside the history: a card for each account still to connect (a turn's own cards are not stored).
    void this.accounts.refresh(true);
    try {
      this.transcript.show((await this.api.conversation(id)).messages);
      await this.follow(this.lifetime.signal, null);
    } catch (error) {
      if (error instanceof ChatError && error.status === 404) this.forgetConversation();
      else if (!this.lifetime.signal.aborted) this.showError(error, () => void this.load(id));
    } finally {
      this.setBusy(false);
    }
  }

  private async reloadHistory(): Promise<boolean> {
    try {
      this.transcript.show((await this.api.conversation(this.conversationId!)).messages);
      return true;
    } catch (error) {
      if (!this.lifetime.signal.aborted) this.showError(error, () => void this.reloadHistory());
      return false;
    }
  }

  private async getCatalog(): Promise<Catalog> {
    if (this.catalog && Date.now() - this.catalog.at < CATALOG_MAX_AGE_MS) return this.catalog.value;
    const value = await this.api.catalog(await this.ensureConversation());
    this.catalog = { value, at: Date.now() };
    return value;
  }

  /** What the catalog says of an attached resource, for its chip. */
  private describe(server: string, uri: string): Attachment {
    const resource = this.catalog?.value.servers.find((s) => s.id === server)?.resources?.find((r) => r.uri === uri);
    return {
      server,
      uri,
      title: resource?.title ?? resource?.name ?? uri,
      ...(resource?.mimeType ? { mimeType: resource.mimeType } : {}),
      ...(resource?.size !== undefined ? { size: resource.size } : {}),
    };
  }

  // ---- composer: menus, forms, attachments ---------------------------------------

  private async updateMenus(): Promise<void> {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const slash = /^\/(\S*)$/.exec(this.input.value);
    const at = /(?:^|\s)@(\S*)$/.exec(before);
    if (!slash) this.slashMenu.close();
    if (!at) this.atMenu.close();
    if (!slash && !at) return;
    try {
      const catalog = await this.getCatalog();
      if (slash && this.input.value.startsWith('/')) this.slashMenu.show(promptOptions(catalog, slash[1]!));
      else if (at) this.atMenu.show(resourceOptions(catalog, at[1]!));
    } catch (error) {
      this.showError(error);
    }
  }

  private formDeps(): FormDeps {
    const id = () => this.ensureConversation();
    return {
      suggest: async (server, ref, name, value, values) =>
        (await this.api.complete(await id(), { server, ref, argument: { name, value }, context: { arguments: values } })).completion.values,
      previewPrompt: async (server, name, values) => {
        const preview = await this.plainly(async () => this.api.previewPrompt(await id(), { server, name, arguments: values }));
        return preview.messages.map((m) => m.parts.map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('\n')).join('\n\n');
      },
      runPrompt: async (server, name, values) => {
        if (this.busy) throw new Error('An answer is still being written. Wait for it to finish, then run the prompt.');
        this.closeForm();
        this.accounts.newTurn();
        // Shown at once; replaced by the prompt's messages as the service stored them once the turn is over.
        const args = Object.entries(values)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ');
        const placeholder = this.transcript.add({
          id: `local-${Date.now()}`,
          role: 'user',
          parts: [{ type: 'text', text: args ? `(${args})` : '' }],
          metadata: { prompt: { server, name } },
        });
        const ran = await this.runTurn(async (signal) => this.api.runPrompt(await id(), { server, name, arguments: values }, signal), {
          onRefused: () => this.transcript.remove(placeholder),
        });
        if (ran) await this.reloadHistory();
      },
      attach: (attachment) => this.attach(attachment),
      close: () => this.closeForm(),
      announce: (text) => this.transcript.announce(text),
    };
  }

  private chooseResource(choice: ResourceChoice): void {
    // Drop the "@query" just typed.
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(/(^|\s)@\S*$/, '$1');
    this.input.value = before + this.input.value.slice(caret);
    if (choice.kind === 'template') {
      this.showForm(templateForm(choice.server, choice.template, this.formDeps()));
      return;
    }
    const r = choice.resource;
    this.attach({
      server: choice.server,
      uri: r.uri,
      title: r.title ?? r.name,
      ...(r.mimeType ? { mimeType: r.mimeType } : {}),
      ...(r.size !== undefined ? { size: r.size } : {}),
    });
  }

  private attach(attachment: Attachment): void {
    if (!this.attachments.some((a) => a.server === attachment.server && a.uri === attachment.uri)) this.attachments.push(attachment);
    this.renderChips();
    this.input.focus();
  }

  private renderChips(): void {
    this.chips.hidden = this.attachments.length === 0;
    this.chips.replaceChildren(
      attachmentChips(this.attachments, (index) => {
        this.attachments.splice(index, 1);
        this.renderChips();
        this.input.focus();
      }),
    );
  }

  private showForm(form: HTMLFormElement): void {
    this.input.value = '';
    this.formSlot.replaceChildren(form);
    this.formSlot.hidden = false;
    (form.querySelector('input') ?? form.querySelector('button'))?.focus();
  }
  private closeForm(): void {
    this.formSlot.replaceChildren();
    this.formSlot.hidden = true;
    this.input.focus();
  }

  // ---- turns ------------------------------------------------------------------------

  private async submit(): Promise<void> {
    const text = this.input.value.trim();
    if (!text || this.busy) return;
    this.slashMenu.close();
    this.atMenu.close();
    const attachments = this.attachments;
    const mine: Message = {
      id: `local-${Date.now()}`,
      role: 'user',
      parts: [{ type: 'text', text }],
      metadata: { attachments: attachments.map(({ server, uri }) => ({ server, uri })) },
    };
    this.input.value = '';
    this.attachments = [];
    this.renderChips();
    this.accounts.newTurn();
    this.transcript.add(mine);
    const sent = await this.runTurn(
      async (signal) =>
        this.api.sendMessage(await this.ensureConversation(), { text, attachments: attachments.map(({ server, uri }) => ({ server, uri })) }, signal),
      {
        // Refused before it was stored: take the message back into the box, nothing is lost.
        onRefused: () => {
          this.transcript.remove(mine);
          if (!this.input.value) this.input.value = text;
          this.attachments = attachments;
          this.renderChips();
        },
        // "Try again" sends what is in the box now (the message, put back).
        retry: () => void this.submit(),
      },
    );
    if (sent) this.input.focus();
  }

  /**
   * Runs one turn: starts it, streams the answer in, and — if the connection
   * drops mid-answer — picks it up again from the service (the turn goes on
   * there without us). `onRefused` undoes local changes when the service
   * refused the request outright (4xx/5xx before any streaming).
   */
  private async runTurn(start: Turn, options: { onRefused?: () => void; retry?: () => void } = {}): Promise<boolean> {
    const retry = options.retry ?? (() => void this.runTurn(start, options));
    if (this.busy) {
      options.onRefused?.();
      this.showError(new ChatError(409, 'turn_in_progress', 'A turn is already running.'));
      return false;
    }
    const signal = this.lifetime.signal;
    this.setBusy(true, 'Thinking…');
    this.clearAlert();
    try {
      let response: Response;
      try {
        response = await start(signal);
      } catch (error) {
        if (signal.aborted) return false;
        if (error instanceof ChatError && error.code === 'not_found') this.forgetConversation();
        options.onRefused?.();
        this.showError(error, retry);
        return false;
      }
      await this.follow(signal, response);
      if (this.turnFailed !== null) {
        // The service stored nothing of a failed turn: show the history as it is, and give the message back.
        const reason = this.turnFailed;
        await this.reloadHistory();
        options.onRefused?.();
        this.showError(new ChatError(502, 'turn_failed', reason), retry);
        return false;
      }
      return true;
    } finally {
      this.setBusy(false);
    }
  }

  /** Follows the turn running on the service (after a dropped stream, from "Try again"). */
  private async resumeTurn(): Promise<void> {
    if (this.busy || !this.conversationId) return;
    this.setBusy(true, 'Reconnecting…');
    try {
      await this.follow(this.lifetime.signal, null);
    } finally {
      this.setBusy(false);
    }
  }

  /** Streams `response` (or the running turn, when null) into the transcript, resuming after drops. */
  private async follow(signal: AbortSignal, response: Response | null): Promise<void> {
    let current = response;
    for (let attempt = 0; !signal.aborted; attempt++) {
      const resumed = current === null;
      try {
        current ??= await this.api.resume(this.conversationId!, signal);
        if (!current) {
          // Nothing running: the turn finished while we were away; its result is in the history,
          // and the host hears of it as of any finished turn.
          if (attempt > 0 && (await this.reloadHistory())) this.announceAnswer(this.transcript.all().at(-1));
          return;
        }
        if (await this.consume(current, resumed)) {
          // A resumed stream may have begun before this page saw it: the history is the full story.
          if (resumed) await this.reloadHistory();
          return;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ChatError) return this.showError(error, () => void this.resumeTurn());
        // Otherwise the stream broke: try again below.
      }
      if (attempt >= RESUME_DELAYS_MS.length) {
        return this.showError(new Error('The connection dropped and could not be re-established.'), () => void this.resumeTurn());
      }
      current = null;
      this.status.textContent = 'Connection lost — reconnecting…';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, RESUME_DELAYS_MS[attempt]);
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }

  /** The last consumed turn ended with an error chunk (the service kept nothing of it). */
  private turnFailed: string | null = null;

  /** One response's chunks into its message. True when the turn ended; false when the stream broke off. */
  private async consume(response: Response, resumed: boolean): Promise<boolean> {
    this.turnFailed = null;
    let message: Message | null = null;
    let ended = false;
    let failed = false;
    for await (const chunk of sseChunks(response.body!)) {
      if (chunk.type === 'start') {
        const existing = this.transcript.find(chunk.messageId);
        if (existing && !resumed) {
          message = existing; // a continuation (after an approval) streams into the message it continues
        } else {
          // A new message; or a resumed stream, replayed from its first chunk onto the message as stored.
          message = this.transcript.storedCopy(chunk.messageId) ?? { id: chunk.messageId ?? '', role: 'assistant', parts: [] };
          if (existing) this.transcript.replace(existing, message);
          else this.transcript.add(message);
        }
      }
      message ??= this.transcript.add({ id: '', role: 'assistant', parts: [] });
      // Transient (never stored): a card outside the message, remembering which answer asked.
      if (chunk.type === 'data-auth-required' && chunk.data) this.accounts.require(chunk.data as AuthRequired, message.id);
      const said = applyChunk(message, chunk);
      if (said?.error) {
        failed = true;
        this.turnFailed = said.error;
        this.showError(new ChatError(502, 'turn_failed', said.error));
      }
      if (chunk.type === 'abort') failed = true;
      if (chunk.type === 'finish' || chunk.type === 'abort' || chunk.type === 'error') ended = true;
      this.transcript.scheduleRender(message);
    }
    if (message && ended && !failed) this.announceAnswer(message);
    return ended;
  }

  /** A finished answer: read out to screen readers, and told to the host page (`mcp-ondemand-message`). */
  private announceAnswer(message: Message | undefined): void {
    if (message?.role !== 'assistant') return;
    const text = message.parts.flatMap((p) => (p.type === 'text' ? [(p as { text: string }).text] : [])).join(' ');
    this.transcript.announce(`Assistant: ${text}`);
    this.emit('mcp-ondemand-message', { message: structuredClone(message) });
  }

  /**
   * An account was just connected from the card of answer `turn`. That
   * answer was written without the server (one waiting for the person
   * offers the model none of its tools; one needing more access, not the
   * tool that needed it), so the question is still unanswered in
   * substance, and answering it is why the person connected: it is answered
   * again now, in place (the chat protocol's regenerate, as `useChat` does),
   * rather than leaving the person to ask again and the history holding an
   * answer that missed the server. Only when that answer is still the last
   * one and no turn runs: a later answer is never replaced.
   */
  private answerAgain(turn: string | undefined): boolean {
    const last = this.transcript.all().at(-1);
    const id = this.conversationId;
    if (!turn || !id || this.busy || last?.role !== 'assistant' || last.id !== turn) return false;
    // The new answer streams in as a new message; the old one is put back if the service refuses.
    this.transcript.remove(last);
    void this.runTurn((signal) => this.api.regenerate(id, last.id, signal), { onRefused: () => this.transcript.find(last.id) || this.transcript.add(last) });
    return true;
  }

  /** A server's question answered: the running turn (whose stream this widget is reading) goes on with it. */
  private elicit: ElicitationAnswer = (elicitationId, action, content) => {
    if (!this.conversationId) return;
    this.api
      .answerElicitation(this.conversationId, elicitationId, { action, ...(content ? { content } : {}) })
      .catch((error: unknown) => this.showError(error));
  };

  private answer = (toolCallId: string, approved: boolean): void => {
    // Shown as answered at once; the stream that follows continues the same message.
    const message = this.transcript.all().find((m) => m.parts.some((p) => (p as { toolCallId?: string }).toolCallId === toolCallId));
    const part = message?.parts.find((p) => (p as { toolCallId?: string }).toolCallId === toolCallId) as ToolPart | undefined;
    const show = (state: ToolPart['state'], decision?: boolean) => {
      if (!message || !part?.approval) return;
      part.state = state;
      if (decision === undefined) delete part.approval.approved;
      else part.approval.approved = decision;
      this.transcript.renderNow(message);
    };
    show('approval-responded', approved);
    this.input.focus();
    void this.runTurn(async (signal) => this.api.answerApproval(this.conversationId!, { toolCallId, approved }, signal), {
      // Refused (expired token, limit): the question is still open; ask it again.
      onRefused: () => show('approval-requested'),
    });
  };

  // ---- status and errors ----------------------------------------------------------------

  /** Stops the turn on the service: the model and its tool calls stop; what was written stays, marked stopped. */
  private async stop(): Promise<void> {
    if (!this.busy || !this.conversationId) return;
    this.stopButton.disabled = true;
    try {
      await this.api.stop(this.conversationId);
    } catch (error) {
      this.showError(error);
    } finally {
      this.stopButton.disabled = false;
    }
  }

  private setBusy(busy: boolean, status = ''): void {
    this.busy = busy;
    this.send.disabled = busy;
    this.send.hidden = busy;
    this.stopButton.hidden = !busy;
    this.status.textContent = status;
    this.transcript.setStreaming(busy);
    // Approval buttons are live only between turns.
    for (const message of this.transcript.all()) {
      if (message.role === 'assistant' && message.parts.some((p) => (p as { state?: string }).state === 'approval-requested'))
        this.transcript.renderNow(message);
    }
  }

  /** Runs `fn`; a failure is rethrown in plain words (for a form to show next to the input). */
  private async plainly<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const plain = plainError(error);
      throw new Error(`${plain.title} ${plain.detail}`);
    }
  }

  private showError(error: unknown, retry?: () => void): void {
    const plain = plainError(error);
    const again = plain.retryable && retry ? retry : null;
    this.alert.dataset.auth = plain.authExpired ? 'expired' : '';
    this.alert.dataset.code = error instanceof ChatError ? error.code : 'connection_lost';
    this.alert.replaceChildren(
      h('div', {}, h('strong', {}, plain.title), plain.detail),
      ...(again ? [h('button', { type: 'button', class: 'secondary', onclick: () => (this.clearAlert(), again()) }, 'Try again')] : []),
    );
    this.alert.hidden = false;
    this.status.textContent = '';
    const detail =
      error instanceof ChatError
        ? { status: error.status, code: error.code, message: error.message }
        : { status: 0, code: 'connection_lost', message: String((error as Error)?.message ?? error) };
    this.emit('mcp-ondemand-error', { ...detail, title: plain.title });
    if (plain.authExpired) this.emit('mcp-ondemand-token-expired', { code: detail.code });
  }

  private clearAlert(): void {
    this.alert.hidden = true;
    this.alert.replaceChildren();
    this.alert.dataset.auth = '';
  }

  /** Typed by the element's public declarations (widget/mcp-ondemand-chat.d.ts), so they say what it does. */
  /** Only the attributes the declarations list are read. */
  private attr(name: keyof McpOndemandChatAttributes): string | null {
    return this.getAttribute(name);
  }

  private emit<K extends keyof McpOndemandChatEventDetails>(type: K, detail: McpOndemandChatEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}
