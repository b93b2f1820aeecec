import { ChatApi, ChatError } from './api';
import { argumentForm } from './argument-form';
import { expandTemplate, promptOptions, resourceOptions, templateVariables, type PromptChoice, type ResourceChoice } from './catalog-menus';
import { h } from './dom';
import { Listbox } from './listbox';
import { plainError, type PlainError } from './plain-errors';
import { STYLES } from './styles';
import { attachmentChips, renderMessage } from './transcript';
import { applyChunk, sseChunks } from './ui-stream';
import type { Attachment, Catalog, Message, ToolPart } from './types';

/** Where the widget's own script came from: the default endpoint. Read while the script runs. */
const SCRIPT_ORIGIN = (document.currentScript as HTMLScriptElement | null)?.src ? new URL((document.currentScript as HTMLScriptElement).src).origin : location.origin;
const CATALOG_MAX_AGE_MS = 15_000;
const RESUME_DELAYS_MS = [500, 1_000, 2_000, 4_000];

type Turn = (signal: AbortSignal) => Promise<Response>;

/**
 * `<mcp-ondemand-chat endpoint token conversation heading placeholder persist>`:
 * the chat widget. Everything renders in a shadow root; events bubble out
 * of it (`mcp-ondemand-conversation`, `-message`, `-error`, `-token-expired`).
 */
export class McpOndemandChat extends HTMLElement {
  static observedAttributes = ['token', 'heading', 'placeholder'];

  private readonly root = this.attachShadow({ mode: 'open' });
  private api!: ChatApi;
  private conversationId: string | null = null;
  private catalog: { value: Catalog; at: number } | null = null;
  private messages: Message[] = [];
  private views = new Map<Message, HTMLElement>();
  private attachments: Attachment[] = [];
  private busy = false;
  private retry: (() => void) | null = null;
  private built = false;

  // Built once in connectedCallback.
  private log!: HTMLElement;
  private status!: HTMLElement;
  private alert!: HTMLElement;
  private input!: HTMLTextAreaElement;
  private send!: HTMLButtonElement;
  private chips!: HTMLElement;
  private formSlot!: HTMLElement;
  private heading!: HTMLElement;
  private slashMenu!: Listbox<PromptChoice>;
  private atMenu!: Listbox<ResourceChoice>;

  connectedCallback(): void {
    if (this.built) return;
    this.built = true;
    this.api = new ChatApi(this.getAttribute('endpoint') || SCRIPT_ORIGIN, () => this.getAttribute('token'));
    this.build();
    this.conversationId = this.getAttribute('conversation') || this.stored();
    if (this.conversationId) void this.load(this.conversationId);
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (!this.built) return;
    if (name === 'heading') this.heading.textContent = value || 'Assistant';
    if (name === 'placeholder') this.input.placeholder = value || defaultPlaceholder;
    // A new token after an expiry: the host has signed the person in again.
    if (name === 'token' && this.alert.dataset.auth === 'expired') this.clearAlert();
  }

  // ---- layout -------------------------------------------------------------

  private build(): void {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    this.root.adoptedStyleSheets = [sheet];
    this.heading = h('h2', {}, this.getAttribute('heading') || 'Assistant');
    this.status = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' });
    this.log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: 0, part: 'log' }, emptyState());
    this.alert = h('div', { class: 'alert', role: 'alert', hidden: true, part: 'alert' });
    this.input = h('textarea', { rows: 1, 'aria-label': 'Message', placeholder: this.getAttribute('placeholder') || defaultPlaceholder, part: 'input' });
    this.send = h('button', { type: 'submit', class: 'primary', part: 'send' }, 'Send');
    this.chips = h('div', { hidden: true });
    this.formSlot = h('div', { hidden: true });
    // Menus first: their key handling must run before Enter-to-send.
    this.slashMenu = new Listbox(this.input, (choice) => this.openPromptForm(choice), 'Prompts', 'menu');
    this.atMenu = new Listbox(this.input, (choice) => this.chooseResource(choice), 'Resources to attach', 'menu');
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
      h('div', { class: 'input-row' }, this.input, this.send),
      h('span', { class: 'hint' }, 'Type / for prompts, @ to attach a resource. Enter sends, Shift+Enter adds a line.'),
    );
    this.root.append(h('section', { class: 'chat', 'aria-label': 'Chat', part: 'chat' }, h('header', {}, this.heading, this.status), this.log, this.alert, composer));
  }

  // ---- conversation -----------------------------------------------------------

  private storageKey(): string {
    return `mcp-ondemand:${this.getAttribute('endpoint') || SCRIPT_ORIGIN}`;
  }
  private stored(): string | null {
    if (this.getAttribute('persist') === 'none') return null;
    try {
      return sessionStorage.getItem(this.storageKey());
    } catch {
      return null; // storage blocked (third-party iframe, privacy mode)
    }
  }

  private async ensureConversation(): Promise<string> {
    if (this.conversationId) return this.conversationId;
    const { id } = await this.api.createConversation();
    this.conversationId = id;
    if (this.getAttribute('persist') !== 'none') {
      try {
        sessionStorage.setItem(this.storageKey(), id);
      } catch {
        // Not kept across reloads; the chat still works.
      }
    }
    this.emit('mcp-ondemand-conversation', { id });
    return id;
  }

  /** An existing conversation: its history, then the turn still running, if any. */
  private async load(id: string): Promise<void> {
    try {
      const snapshot = await this.api.conversation(id);
      this.showMessages(snapshot.messages);
      await this.follow(new AbortController().signal, null);
    } catch (error) {
      if (error instanceof ChatError && error.status === 404) {
        this.conversationId = null; // deleted, or another person's: start afresh
        return;
      }
      this.showError(error, () => void this.load(id));
    }
  }

  private async reloadHistory(): Promise<void> {
    try {
      this.showMessages((await this.api.conversation(this.conversationId!)).messages);
    } catch (error) {
      this.showError(error, () => void this.reloadHistory());
    }
  }

  private async getCatalog(): Promise<Catalog> {
    if (this.catalog && Date.now() - this.catalog.at < CATALOG_MAX_AGE_MS) return this.catalog.value;
    const value = await this.api.catalog(await this.ensureConversation());
    this.catalog = { value, at: Date.now() };
    return value;
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

  private openPromptForm({ server, prompt }: PromptChoice): void {
    this.input.value = '';
    const id = () => this.ensureConversation();
    const text = async (values: Record<string, string>) => {
      const preview = await this.call(async () => this.api.previewPrompt(await id(), { server, name: prompt.name, arguments: values }));
      return preview.messages.map((m) => m.parts.map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('\n')).join('\n\n');
    };
    this.showForm(
      argumentForm({
        heading: `/${prompt.name}${prompt.title ? ` — ${prompt.title}` : ''}`,
        ...(prompt.description ? { description: prompt.description } : {}),
        fields: (prompt.arguments ?? []).map((a) => ({ name: a.name, required: !!a.required, ...(a.description ? { description: a.description } : {}) })),
        complete: async (name, value, values) => this.suggest(server, { type: 'ref/prompt', name: prompt.name }, name, value, values),
        preview: text,
        submitLabel: 'Run',
        submit: async (values) => {
          await this.call(async () => id()); // errors before the form closes stay in the form
          this.closeForm();
          // Shown at once; replaced by the prompt's messages as the service stored them once the turn is over.
          const args = Object.entries(values).map(([k, v]) => `${k}: ${v}`).join(', ');
          const placeholder = this.addMessage({ id: `local-${Date.now()}`, role: 'user', parts: [{ type: 'text', text: args ? `(${args})` : '' }], metadata: { prompt: { server, name: prompt.name } } });
          const ran = await this.runTurn(async (signal) => this.api.runPrompt(await id(), { server, name: prompt.name, arguments: values }, signal), () => this.removeMessage(placeholder));
          if (ran) await this.reloadHistory();
        },
        cancel: () => this.closeForm(),
      }),
    );
  }

  private chooseResource(choice: ResourceChoice): void {
    // Drop the "@query" just typed.
    const caret = this.input.selectionStart ?? this.input.value.length;
    const before = this.input.value.slice(0, caret).replace(/(^|\s)@\S*$/, '$1');
    this.input.value = before + this.input.value.slice(caret);
    if (choice.kind === 'resource') {
      const r = choice.resource;
      return this.attach({ server: choice.server, uri: r.uri, title: r.title ?? r.name, ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...(r.size !== undefined ? { size: r.size } : {}) });
    }
    const { template, server } = choice;
    const variables = templateVariables(template.uriTemplate);
    this.showForm(
      argumentForm({
        heading: `Attach ${template.title ?? template.name}`,
        description: template.uriTemplate,
        fields: variables.map((name) => ({ name, required: true })),
        complete: async (name, value, values) => this.suggest(server, { type: 'ref/resource', uri: template.uriTemplate }, name, value, values),
        submitLabel: 'Attach',
        submit: async (values) => {
          const uri = expandTemplate(template.uriTemplate, values);
          this.closeForm();
          this.attach({ server, uri, title: `${template.title ?? template.name}: ${variables.map((v) => values[v]).join(', ')}`, ...(template.mimeType ? { mimeType: template.mimeType } : {}) });
        },
        cancel: () => this.closeForm(),
      }),
    );
  }

  private async suggest(server: string, ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, name: string, value: string, values: Record<string, string>) {
    const id = await this.ensureConversation();
    const { completion } = await this.api.complete(id, { server, ref, argument: { name, value }, context: { arguments: values } });
    return completion.values;
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
    if (!text || this.busy || this.slashMenu.isOpen || this.atMenu.isOpen) return;
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
    this.addMessage(mine);
    const sent = await this.runTurn(
      async (signal) => this.api.sendMessage(await this.ensureConversation(), { text, attachments: attachments.map(({ server, uri }) => ({ server, uri })) }, signal),
      () => {
        // Refused before it was stored: take the message back into the box, nothing is lost.
        this.removeMessage(mine);
        if (!this.input.value) this.input.value = text;
        this.attachments = attachments;
        this.renderChips();
      },
      // "Try again" sends what is in the box now (the message, put back).
      () => void this.submit(),
    );
    if (sent) this.input.focus();
  }

  /**
   * Runs one turn: starts it, streams the answer in, and — if the connection
   * drops mid-answer — picks it up again from the service (the turn goes on
   * there without us). `onRefused` undoes local changes when the service
   * refused the request outright (4xx/5xx before any streaming).
   */
  private async runTurn(start: Turn, onRefused?: () => void, retry: () => void = () => void this.runTurn(start, onRefused)): Promise<boolean> {
    if (this.busy) return false;
    this.setBusy(true, 'Thinking…');
    this.clearAlert();
    const controller = new AbortController();
    let response: Response;
    try {
      response = await start(controller.signal);
    } catch (error) {
      onRefused?.();
      this.setBusy(false);
      this.showError(error, retry);
      return false;
    }
    try {
      await this.follow(controller.signal, response);
    } finally {
      this.setBusy(false);
    }
    return true;
  }

  /** Streams `response` (or the running turn, when null) into the transcript, resuming after drops. */
  private async follow(signal: AbortSignal, response: Response | null): Promise<void> {
    let current = response;
    for (let attempt = 0; ; attempt++) {
      try {
        if (!current) current = await this.api.resume(this.conversationId!, signal);
        if (!current) {
          // Nothing running: the turn finished while we were away; its result is in the history.
          if (attempt > 0) await this.reloadHistory();
          return;
        }
        if (await this.consume(current)) {
          // A resumed turn may have started before this page saw it: the history is the full story.
          if (attempt > 0) await this.reloadHistory();
          return;
        }
      } catch (error) {
        if (error instanceof ChatError || attempt >= RESUME_DELAYS_MS.length) {
          this.showError(error, () => void this.follow(signal, null));
          return;
        }
      }
      current = null;
      this.setBusy(true, 'Connection lost — reconnecting…');
      await new Promise((resolve) => setTimeout(resolve, RESUME_DELAYS_MS[attempt]));
    }
  }

  /** One response's chunks into its message. True when the turn finished; false when the stream broke off. */
  private async consume(response: Response): Promise<boolean> {
    let message: Message | null = null;
    let finished = false;
    for await (const chunk of sseChunks(response.body!)) {
      if (chunk.type === 'start') {
        // A continuation (after an approval) streams into the message it continues;
        // a resumed stream starts that message again from its first chunk.
        const existing = this.messages.find((m) => m.id === chunk.messageId);
        message = existing && !(response.url.endsWith('/stream')) ? existing : { id: chunk.messageId ?? '', role: 'assistant', parts: [] };
        if (existing && message !== existing) this.replaceMessage(existing, message);
        else if (!existing) this.addMessage(message);
      }
      message ??= this.addMessage({ id: '', role: 'assistant', parts: [] });
      const said = applyChunk(message, chunk);
      if (said?.notice) this.log.append(h('p', { class: 'notice' }, said.notice));
      if (said?.error) this.showError(new ChatError(502, 'turn_failed', said.error));
      if (chunk.type === 'finish' || chunk.type === 'abort' || chunk.type === 'error') finished = true;
      this.scheduleRender(message);
    }
    if (message && finished) this.emit('mcp-ondemand-message', { message });
    return finished;
  }

  private answer = (toolCallId: string, approved: boolean): void => {
    // Shown as answered at once; the stream that follows continues the same message.
    const message = this.messages.find((m) => m.parts.some((p) => (p as { toolCallId?: string }).toolCallId === toolCallId));
    const part = message?.parts.find((p) => (p as { toolCallId?: string }).toolCallId === toolCallId) as ToolPart | undefined;
    if (message && part?.approval) {
      part.state = 'approval-responded';
      part.approval.approved = approved;
      this.renderNow(message);
    }
    void this.runTurn(async (signal) => this.api.answerApproval(this.conversationId!, { toolCallId, approved }, signal));
  };

  // ---- transcript ---------------------------------------------------------------------

  private showMessages(messages: Message[]): void {
    this.messages = [];
    this.views.clear();
    this.log.replaceChildren();
    if (!messages.length) this.log.append(emptyState());
    for (const message of messages) this.addMessage(message);
  }

  private addMessage(message: Message): Message {
    this.log.querySelector('.empty')?.remove();
    this.messages.push(message);
    const view = renderMessage(message, this.context());
    this.views.set(message, view);
    this.log.append(view);
    this.log.scrollTop = this.log.scrollHeight;
    return message;
  }

  private replaceMessage(old: Message, message: Message): void {
    this.messages[this.messages.indexOf(old)] = message;
    const view = this.views.get(old);
    this.views.delete(old);
    const fresh = renderMessage(message, this.context());
    view?.replaceWith(fresh);
    this.views.set(message, fresh);
  }

  private removeMessage(message: Message): void {
    this.messages = this.messages.filter((m) => m !== message);
    this.views.get(message)?.remove();
    this.views.delete(message);
  }

  private pending = new Set<Message>();
  /** Re-renders a streaming message at most once a frame. */
  private scheduleRender(message: Message): void {
    if (this.pending.has(message)) return;
    this.pending.add(message);
    requestAnimationFrame(() => this.renderNow(message));
  }
  private renderNow(message: Message): void {
    this.pending.delete(message);
    const view = this.views.get(message);
    if (!view) return;
    // Keep open what the person opened.
    const open = new Set([...view.querySelectorAll('details[open]')].map((d) => [...view.querySelectorAll('details')].indexOf(d as HTMLDetailsElement)));
    const fresh = renderMessage(message, this.context());
    [...fresh.querySelectorAll('details')].forEach((d, i) => open.has(i) && d.setAttribute('open', ''));
    view.replaceWith(fresh);
    this.views.set(message, fresh);
    const atBottom = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 80;
    if (atBottom) this.log.scrollTop = this.log.scrollHeight;
  }

  private context() {
    return {
      describe: (server: string, uri: string): Attachment => {
        const resource = this.catalog?.value.servers.find((s) => s.id === server)?.resources?.find((r) => r.uri === uri);
        return {
          server,
          uri,
          title: resource?.title ?? resource?.name ?? uri,
          ...(resource?.mimeType ? { mimeType: resource.mimeType } : {}),
          ...(resource?.size !== undefined ? { size: resource.size } : {}),
        };
      },
      answer: this.busy ? undefined : this.answer,
    };
  }

  // ---- status and errors ----------------------------------------------------------------

  private setBusy(busy: boolean, status = ''): void {
    this.busy = busy;
    this.send.disabled = busy;
    this.status.textContent = status;
    this.log.setAttribute('aria-busy', String(busy));
    // Approval buttons are live only between turns.
    for (const message of this.messages) if (message.role === 'assistant' && message.parts.some((p) => (p as { state?: string }).state === 'approval-requested')) this.renderNow(message);
  }

  /** Runs `fn`; a failure is reported in plain words (and thrown on, for a form to show). */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const plain = plainError(error);
      throw new Error(`${plain.title} ${plain.detail}`);
    }
  }

  private showError(error: unknown, retry?: () => void): void {
    const plain: PlainError = plainError(error);
    this.retry = plain.retryable && retry ? retry : null;
    this.alert.dataset.auth = plain.authExpired ? 'expired' : '';
    this.alert.dataset.code = error instanceof ChatError ? error.code : 'connection_lost';
    this.alert.replaceChildren(
      h('div', {}, h('strong', {}, plain.title), plain.detail),
      ...(this.retry ? [h('button', { type: 'button', class: 'secondary', onclick: () => (this.clearAlert(), this.retry?.()) }, 'Try again')] : []),
    );
    this.alert.hidden = false;
    this.status.textContent = '';
    const detail = error instanceof ChatError ? { status: error.status, code: error.code, message: error.message } : { status: 0, code: 'connection_lost', message: String(error) };
    this.emit('mcp-ondemand-error', { ...detail, title: plain.title });
    if (plain.authExpired) this.emit('mcp-ondemand-token-expired', { code: detail.code });
  }

  private clearAlert(): void {
    this.alert.hidden = true;
    this.alert.replaceChildren();
    this.alert.dataset.auth = '';
  }

  private emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

const defaultPlaceholder = 'Ask anything — / for prompts, @ to attach';

function emptyState(): HTMLElement {
  return h('p', { class: 'empty' }, 'Ask a question. The assistant reads the connected servers’ resources when it needs them; type / to run a prompt or @ to attach a resource.');
}
