import { Accounts } from './accounts';
import { AnswerActions } from './answer-actions';
import { AppViews } from './app-view/views';
import { ChatApi, ChatError } from './api';
import { promptForm, templateForm, type FormDeps } from './catalog-forms';
import { resourceOptions, skillAttachment, slashOptions, type ResourceChoice, type SlashChoice } from './catalog-menus';
import { ChatSession, type ChatStatus } from './chat-session';
import { h } from './dom';
import { FileUploads, paperclip } from './file-uploads';
import type { Locale } from './i18n/locale';
import type { TextKey } from './i18n/strings';
import { WidgetLanguage } from './i18n/widget-language';
import { Listbox } from './listbox';
import { plainError } from './plain-errors';
import { firstEngagement, parseSuggestions, StartScreen, type Suggestion } from './start-screen';
import { SourcePanel } from './sources';
import { STYLES } from './styles';
import { tickElapsed } from './task-card';
import { themeSetting, ThemeWatcher, type ThemeSetting } from './theme';
import { ThreadsPanel } from './threads';
import { attachmentChips } from './transcript';
import { TranscriptView } from './transcript-view';
import type { Attachment, AuthRequired, Message } from './types';
import type {
  McpOndemandChatAttributes,
  McpOndemandChatEventDetails,
  McpOndemandChatStrings,
} from '../mcp-ondemand-chat';

/** Where the widget's own script came from: the default endpoint. Read while the script runs. */
const SCRIPT_ORIGIN = (document.currentScript as HTMLScriptElement | null)?.src
  ? new URL((document.currentScript as HTMLScriptElement).src).origin
  : location.origin;
const STATUS_TEXT: Record<Exclude<ChatStatus, 'ready'>, TextKey> = {
  loading: 'status.loading',
  answering: 'status.answering',
  waiting: 'status.waiting',
  reconnecting: 'status.reconnecting',
  'connection-lost': 'status.connectionLost',
};

/**
 * `<mcp-ondemand-chat endpoint token conversation heading placeholder persist suggestions theme threads lang>`:
 * the chat widget, a view over its ChatSession (chat-session.ts: the
 * conversation and its turns). Everything renders in a shadow root; events
 * bubble out of it (`mcp-ondemand-conversation`, `-message`, `-waiting`, `-error`, `-token-expired`, `-feedback`).
 */
export class McpOndemandChat extends HTMLElement {
  static observedAttributes: Array<keyof McpOndemandChatAttributes> = [
    'token',
    'heading',
    'placeholder',
    'conversation',
    'suggestions',
    'theme',
    'threads',
    'lang',
  ];

  private readonly root = this.attachShadow({ mode: 'open' });
  private api!: ChatApi;
  private session!: ChatSession;
  private attachments: Attachment[] = [];
  /** The person's own files (attach button, drop, paste): uploaded at once, sent with the next message. */
  private files!: FileUploads;
  /** Send was pressed while files upload: the message goes once they are stored. */
  private holding = false;
  /** Aborted when the element leaves the page: no fetch, stream or timer outlives it. */
  private lifetime = new AbortController();
  private built = false;
  /** Ticks the clocks of running task cards, once a second, while there are any. */
  private clock: ReturnType<typeof setInterval> | undefined;
  /** The text a view last put in the box (`ui/message`): the next one replaces it; anything else there is the person's. */
  private fromView = '';

  // Built once in connectedCallback.
  private transcript!: TranscriptView;
  private status!: HTMLElement;
  private alert!: HTMLElement;
  private input!: HTMLTextAreaElement;
  private send!: HTMLButtonElement;
  private stopButton!: HTMLButtonElement;
  private chips!: HTMLElement;
  private formSlot!: HTMLElement;
  private section!: HTMLElement;
  private attachButton!: HTMLButtonElement;
  private hint!: HTMLElement;
  private dropHint!: HTMLElement;
  /**
   * Not `heading`: React 19 sets a prop as a property when the element has one
   * by that name, so a field named like an attribute would swallow it.
   */
  private headingEl!: HTMLElement;
  private slashMenu!: Listbox<SlashChoice>;
  private atMenu!: Listbox<ResourceChoice>;
  private accounts!: Accounts;
  private views!: AppViews;
  private startScreen!: StartScreen;
  private threadsPanel!: ThreadsPanel;
  /** Its language (`lang`, the page's, the browser's) and the host's own `strings`: every word it shows. */
  private readonly language = new WidgetLanguage(this, () => this.languageChanged());
  /** The current status (its words are said again in a new language). */
  private statusNow: ChatStatus = 'ready';
  /** The host's suggested prompts (the `suggestions` attribute or property), parsed. */
  private suggested: Suggestion[] | undefined;
  /** The theme showing (`theme`; `auto` follows the system): MCP Apps views are told when it flips. */
  private readonly themeWatcher = new ThemeWatcher(
    () => themeSetting(this.attr('theme')),
    (theme) => this.views?.setTheme(theme),
  );

  // Properties, for hosts that set them (React 19 does, for a prop named like one): each is its attribute, except
  // `suggestions`, which also takes an array.
  get suggestions(): Suggestion[] {
    return this.suggested ? structuredClone(this.suggested) : [];
  }
  set suggestions(value: string | ReadonlyArray<string | Suggestion>) {
    if (typeof value === 'string') {
      this.setAttribute('suggestions', value);
      return;
    }
    this.suggested = parseSuggestions(value);
    this.suggestionsChanged();
  }
  get theme(): ThemeSetting {
    return themeSetting(this.attr('theme'));
  }
  set theme(value: ThemeSetting) {
    this.setAttribute('theme', themeSetting(value));
  }
  /**
   * The host's own words for any of the widget's strings, in any language: a partial object of the string table's
   * groups (widget/src/i18n/strings.ts; docs/FRONTENDS.md), e.g. `{ shell: { send: 'Ask' } }`.
   */
  get strings(): McpOndemandChatStrings {
    return this.language.strings;
  }
  set strings(value: McpOndemandChatStrings | null | undefined) {
    this.language.strings = value;
  }
  private get locale(): Locale {
    return this.language.locale;
  }
  get threads(): 'on' | 'off' {
    return this.attr('threads') === 'off' ? 'off' : 'on';
  }
  set threads(value: 'on' | 'off') {
    this.setAttribute('threads', value === 'off' ? 'off' : 'on');
  }
  private actions!: AnswerActions;
  private sources!: SourcePanel;

  connectedCallback(): void {
    this.themeWatcher.start();
    if (this.lifetime.signal.aborted) {
      this.lifetime = new AbortController();
      this.transcript.renderAll(); // back on the page: its views load again
      void this.session.backOnPage();
    }
    if (this.built) return;
    // A property the page set before this script defined the element sits on the instance, hiding the accessor.
    for (const name of ['suggestions', 'theme', 'threads', 'strings'] as const) {
      if (!Object.hasOwn(this, name)) continue;
      const value = this[name];
      delete (this as Partial<this>)[name];
      (this as Record<typeof name, unknown>)[name] = value;
    }
    this.built = true;
    this.api = new ChatApi(this.attr('endpoint') || SCRIPT_ORIGIN, () => this.attr('token'));
    this.build();
    this.session = new ChatSession({
      api: this.api,
      messages: this.transcript,
      storage: () => (this.attr('persist') === 'none' ? null : sessionStorage),
      conversation: this.attr('conversation'),
      language: () => this.locale.lang,
      lifetime: () => this.lifetime.signal,
      onStatus: (status) => this.showStatus(status),
      onChunk: (message, chunk) => {
        // Transient (never stored): a card outside the message, remembering which answer asked.
        if (chunk.type === 'data-auth-required' && chunk.data)
          this.accounts.require(chunk.data as AuthRequired, message.id);
        this.transcript.scheduleRender(message);
      },
      onError: (error, retry) => this.showError(error, retry),
      onMessageChange: (message) => this.transcript.renderNow(message),
      onFinish: (message) => this.announceAnswer(message),
      onWait: (message, waitingFor) =>
        this.emit('mcp-ondemand-waiting', { waitingFor, message: structuredClone(message) }),
      onCreate: (id) => {
        this.emit('mcp-ondemand-conversation', { id });
        // The person's accounts, once, with the widget's first request (the panel needs the list; no request per render).
        if (!this.accounts.known) void this.accounts.refresh();
      },
      // Alongside the history: a card for each account still to connect (a turn's own cards are not stored).
      onLoad: () => void this.accounts.refresh(true),
    });
    if (this.session.conversationId) void this.session.load(this.session.conversationId);
    else this.transcript.show([]); // the start screen
  }

  disconnectedCallback(): void {
    this.session.leftPage();
    this.lifetime.abort();
    this.views.closeAll();
    this.stopClock();
    this.themeWatcher.stop();
  }

  attributeChangedCallback(name: string, _old: string | null, value: string | null): void {
    if (name === 'suggestions') this.suggested = parseSuggestions(value);
    if (!this.built) return;
    if (name === 'suggestions') this.suggestionsChanged();
    if (name === 'theme') this.themeWatcher.update();
    if (name === 'threads') this.threadsPanel.enable(value !== 'off');
    if (name === 'lang') this.language.reset();
    if (name === 'heading' || name === 'placeholder') this.localize();
    // A new token after an expiry: the host has signed the person in again.
    if (name === 'token' && this.alert.dataset.auth === 'expired') this.clearAlert();
    // Another conversation: shown in place of this one (its views torn down first).
    if (name === 'conversation' && value && value !== this.session.conversationId && !this.session.busy) {
      this.files.clear();
      this.actions.clear();
      this.sources.close();
      void this.session.switchTo(value);
    }
  }

  /** A new `lang` or `strings` (or its strings arrived): every word the widget shows, again, in it. */
  private languageChanged(): void {
    if (!this.built) return;
    this.localize();
    this.transcript.renderAll();
    if (!this.transcript.all().length) void this.startScreen.refresh();
  }

  /**
   * The shell's words and direction in the widget's language: what is built once (the composer, the header, the
   * panels' fixed labels). What is rendered again anyway (messages, menus, lists) asks the locale when it renders.
   */
  private localize(): void {
    const { locale } = this;
    const t = locale.t.bind(locale);
    this.section.lang = locale.lang;
    this.section.dir = locale.dir;
    // Not a flash of English first: hidden for the moment its language's chunk takes, at most 3 s.
    this.section.toggleAttribute('data-language-loading', this.language.loading);
    this.section.setAttribute('aria-label', t('shell.chat'));
    this.headingEl.textContent = this.attr('heading') || t('shell.heading');
    // Short: the hint line under the input says what / and @ do (a long placeholder is cut off on a phone).
    this.input.placeholder = this.attr('placeholder') || t('shell.placeholder');
    this.input.setAttribute('aria-label', t('shell.message'));
    this.send.textContent = t('shell.send');
    this.stopButton.textContent = t('shell.stop');
    this.attachButton.setAttribute('aria-label', t('shell.attach'));
    this.attachButton.title = t('shell.attach');
    this.hint.textContent = t('shell.hint');
    this.dropHint.textContent = t('shell.drop');
    this.slashMenu.el.setAttribute('aria-label', t('shell.slashMenu'));
    this.atMenu.el.setAttribute('aria-label', t('shell.atMenu'));
    this.transcript.el.setAttribute('aria-label', t('transcript.log'));
    this.files.relabel();
    this.threadsPanel.relabel();
    this.accounts.panel.relabel();
    if (!this.holding) this.status.textContent = this.statusNow === 'ready' ? '' : t(STATUS_TEXT[this.statusNow]);
  }

  /** New suggestions: an empty conversation's start screen shows them. */
  private suggestionsChanged(): void {
    if (this.built && !this.transcript.all().length) void this.startScreen.refresh();
  }

  // ---- layout -------------------------------------------------------------

  private build(): void {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    this.root.adoptedStyleSheets = [sheet];
    this.views = new AppViews({
      api: this.api,
      conversation: () => this.session.conversationId,
      enabled: () => this.attr('views') !== 'off',
      resize: (change) => this.transcript.keepBottom(change),
      compose: (text) => this.composeFromView(text),
      theme: () => this.themeWatcher.theme,
      locale: () => this.locale,
    });
    this.startScreen = new StartScreen({
      suggestions: () => this.suggested,
      catalog: async () => {
        if (!this.session.conversationId) await engaged;
        return this.session.catalog();
      },
      send: (text) => {
        this.input.value = text;
        void this.submit();
      },
      openPrompt: (choice) => this.showForm(promptForm(choice, this.formDeps())),
      locale: () => this.locale,
    });
    this.threadsPanel = new ThreadsPanel({
      api: this.api,
      root: this.root,
      current: () => this.session.conversationId,
      busy: () => this.session.busy,
      open: (id) => this.openConversation(id),
      newChat: () => this.newChat(),
      deleted: (id) => id === this.session.conversationId && this.newChat(false),
      locale: () => this.locale,
    });
    this.threadsPanel.enable(this.attr('threads') !== 'off');
    this.actions = new AnswerActions({
      conversation: () => this.session.conversationId,
      rate: (id, messageId, body) => this.api.rateAnswer(id, messageId, body),
      regenerate: (messageId) => this.session.answerAgain(messageId),
      last: () => this.transcript.all().at(-1),
      busy: () => this.session.busy,
      announce: (text) => this.transcript.announce(text),
      rated: (detail) => this.emit('mcp-ondemand-feedback', detail),
      failed: (error) => this.showError(error),
      focusInput: () => this.input.focus(),
      locale: () => this.locale,
    });
    this.sources = new SourcePanel({
      root: this.root,
      locale: () => this.locale,
      // An attachment's text is in the question as the service stored it (the shown one may be the local copy).
      message: async (id) => {
        const shown = this.transcript.find(id);
        const conversation = this.session.conversationId;
        if (shown || !conversation) return shown;
        return (await this.api.latestMessages(conversation, 50)).messages.find((m) => m.id === id);
      },
    });
    this.transcript = new TranscriptView(
      this.root,
      () => ({
        locale: this.locale,
        describe: (server, uri) => this.files.describe(uri) ?? this.session.describe(server, uri),
        answer: this.session.busy ? undefined : this.answer,
        elicit: this.session.answerElicitation,
        view: (app, part) => this.views.node(app, part),
        stop: () => void this.stop(),
        clockRunning: this.startClock,
        actions: (message) => this.actions.for(message),
        openSource: this.sources.open,
      }),
      (el) => this.views.retire(el, 'The message left the conversation view.'), // to the view, not the person
      () => this.startScreen.node(),
    );
    const announce = (text: string) => this.transcript.announce(text);
    this.accounts = new Accounts({
      api: this.api,
      root: this.root,
      lifetime: () => this.lifetime.signal,
      connected: (_server, turn) => this.session.answerAgain(turn),
      focusInput: () => this.input.focus(),
      locale: () => this.locale,
    });
    this.headingEl = h('h2', {});
    this.status = h('span', { class: 'status', role: 'status' });
    this.alert = h('div', { class: 'alert', role: 'alert', hidden: true, part: 'alert' });
    this.input = h('textarea', { rows: 1, part: 'input' });
    this.send = h('button', { type: 'submit', class: 'primary', part: 'send' });
    this.stopButton = h('button', {
      type: 'button',
      class: 'secondary',
      part: 'stop',
      hidden: true,
      onclick: () => void this.stop(),
    });
    this.chips = h('div', { hidden: true });
    this.files = new FileUploads({
      api: this.api,
      conversation: () => this.session.ensureConversation(),
      changed: () => this.session.catalogChanged(),
      focus: () => this.input.focus(),
      announce,
      refused: (_file, error) => this.showError(error),
      locale: () => this.locale,
    });
    const picker = h('input', { type: 'file', multiple: true, hidden: true, tabindex: -1 });
    picker.addEventListener('change', () => {
      this.files.add(picker.files ?? []);
      picker.value = '';
      this.input.focus();
    });
    const attach = (this.attachButton = h(
      'button',
      { type: 'button', class: 'attach', part: 'attach', onclick: () => picker.click() },
      paperclip(),
    ));
    this.input.addEventListener('paste', (event) => {
      const pasted = [...(event.clipboardData?.files ?? [])];
      if (!pasted.length) return;
      event.preventDefault();
      this.files.add(pasted);
    });
    this.formSlot = h('div', { hidden: true });
    // Menus first: their key handling must run before Enter-to-send.
    const locale = () => this.locale;
    this.slashMenu = new Listbox(this.input, (choice) => this.chooseSlash(choice), '', announce, 'menu', locale);
    this.atMenu = new Listbox(this.input, (choice) => this.chooseResource(choice), '', announce, 'menu', locale);
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
      this.files.el,
      h('div', { class: 'input-row' }, attach, picker, this.input, this.send, this.stopButton),
      (this.hint = h('span', { class: 'hint' })),
    );
    this.dropHint = h('div', { class: 'drop-hint', 'aria-hidden': 'true' });
    const section = (this.section = h(
      'section',
      { class: 'chat', part: 'chat' },
      h('header', {}, this.threadsPanel.toggle, this.headingEl, this.status, this.accounts.panel.toggle),
      this.threadsPanel.el,
      this.accounts.panel.el,
      this.transcript.el,
      this.accounts.cardsEl,
      this.alert,
      composer,
      this.transcript.announcerEl,
      this.dropHint,
      this.sources.el,
    ));
    dropTarget(section, (dropped) => this.files.add(dropped));
    const engaged = firstEngagement(section);
    this.localize();
    this.root.append(section);
  }

  // ---- threads ------------------------------------------------------------------

  /** A conversation from the thread list, in place of this one (between turns). */
  private openConversation(id: string): void {
    this.files.clear();
    this.closeForm();
    void this.session.switchTo(id);
  }

  /** A new, empty chat: the start screen; `focus`: the message box gets the focus (not when the list keeps it). */
  private newChat(focus = true): void {
    this.files.clear();
    this.attachments = [];
    this.renderChips();
    this.formSlot.replaceChildren();
    this.formSlot.hidden = true;
    this.session.startNew();
    if (focus) this.input.focus();
  }

  // ---- composer: menus, forms, attachments ---------------------------------------

  private async updateMenus(): Promise<void> {
    const asked = this.menuQuery();
    if (asked.slash === undefined) this.slashMenu.close();
    if (asked.at === undefined) this.atMenu.close();
    if (asked.slash === undefined && asked.at === undefined) return;
    try {
      const catalog = await this.session.catalog();
      // The person may have typed on (or sent) while the catalog was read: a menu shows only for what the box says now.
      const now = this.menuQuery();
      if (asked.slash !== undefined && now.slash === asked.slash)
        this.slashMenu.show(slashOptions(catalog, now.slash, this.locale));
      else if (asked.at !== undefined && now.at === asked.at)
        this.atMenu.show(resourceOptions(catalog, now.at, this.locale));
    } catch (error) {
      this.showError(error);
    }
  }

  /** What the box asks a menu for: `/query` as the whole message, or `@query` just before the caret. */
  private menuQuery(): { slash?: string; at?: string } {
    const before = this.input.value.slice(0, this.input.selectionStart ?? this.input.value.length);
    const slash = /^\/(\S*)$/.exec(this.input.value)?.[1];
    const at = /(?:^|\s)@(\S*)$/.exec(before)?.[1];
    return { ...(slash !== undefined ? { slash } : {}), ...(at !== undefined ? { at } : {}) };
  }

  private formDeps(): FormDeps {
    const id = () => this.session.ensureConversation();
    return {
      suggest: async (server, ref, name, value, values) =>
        (
          await this.api.complete(await id(), {
            server,
            ref,
            argument: { name, value },
            context: { arguments: values },
          })
        ).completion.values,
      previewPrompt: async (server, name, values) => {
        const preview = await this.plainly(async () =>
          this.api.previewPrompt(await id(), { server, name, arguments: values }),
        );
        return preview.messages
          .map((m) => m.parts.map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('\n'))
          .join('\n\n');
      },
      runPrompt: async (server, name, values) => {
        if (this.session.busy) throw new Error(this.locale.t('shell.promptBusy'));
        this.closeForm();
        this.accounts.newTurn();
        await this.session.runPrompt(server, name, values);
      },
      attach: (attachment) => this.attach(attachment),
      close: () => this.closeForm(),
      announce: (text) => this.transcript.announce(text),
      locale: () => this.locale,
    };
  }

  /** A prompt opens its form; a skill is attached to the next message (the "/query" typed goes). */
  private chooseSlash(choice: SlashChoice): void {
    if (choice.kind === 'prompt') {
      this.showForm(promptForm(choice, this.formDeps()));
      return;
    }
    this.input.value = '';
    this.attach(skillAttachment(choice.server, choice.skill, this.locale));
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
    if (!this.attachments.some((a) => a.server === attachment.server && a.uri === attachment.uri))
      this.attachments.push(attachment);
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
    if (!this.input.value.trim() || this.session.busy || this.holding) return;
    if (this.files.uploading) {
      // Sent once its files are stored (a refused one is said, and the message goes without it).
      this.holding = true;
      this.send.disabled = true;
      this.status.textContent = this.locale.t('shell.uploading');
      await this.files.settled();
      this.holding = false;
      this.send.disabled = false;
      this.status.textContent = '';
    }
    const text = this.input.value.trim();
    if (!text || this.session.busy) return;
    this.slashMenu.close();
    this.atMenu.close();
    const resources = this.attachments;
    const uploaded = this.files.take();
    const attachments = [...resources, ...uploaded];
    this.input.value = '';
    this.attachments = [];
    this.renderChips();
    this.accounts.newTurn();
    const sent = await this.session.send(text, attachments, {
      // Refused before it was stored: take the message back into the box, nothing is lost.
      onRefused: () => {
        if (!this.input.value) this.input.value = text;
        this.attachments = resources;
        this.renderChips();
        this.files.restore(uploaded);
      },
      // "Try again" sends what is in the box now (the message, put back).
      retry: () => void this.submit(),
    });
    if (sent) this.input.focus();
  }

  /**
   * A view's message (MCP Apps `ui/message`) goes into the box, for the person to read and send, or not: a view never
   * speaks for them. What they typed is never overwritten (false: the view's text was not put there).
   */
  private composeFromView(text: string): boolean {
    if (this.input.value.trim() && this.input.value !== this.fromView) return false;
    this.input.value = this.fromView = text;
    // The person pressed the view's button: they go on in the box. A view cannot pull the focus from elsewhere.
    if (this.root.activeElement?.tagName === 'IFRAME') this.input.focus();
    return true;
  }

  private answer = (toolCallId: string, approved: boolean): void => {
    this.session.answerApproval(toolCallId, approved);
    this.input.focus();
  };

  /** A finished answer: read out to screen readers, and told to the host page (`mcp-ondemand-message`). */
  private announceAnswer(message: Message): void {
    const text = message.parts.flatMap((p) => (p.type === 'text' ? [(p as { text: string }).text] : [])).join(' ');
    this.transcript.announce(this.locale.t('shell.answered', { text }));
    this.emit('mcp-ondemand-message', { message: structuredClone(message) });
  }

  private async stop(): Promise<void> {
    this.stopButton.disabled = true;
    await this.session.stop();
    this.stopButton.disabled = false;
  }

  private startClock = (): void => {
    if (this.clock !== undefined || this.lifetime.signal.aborted) return;
    this.clock = setInterval(() => {
      if (!tickElapsed(this.root, Date.now(), this.locale)) this.stopClock();
    }, 1_000);
  };

  private stopClock(): void {
    clearInterval(this.clock);
    this.clock = undefined;
  }

  // ---- status and errors ----------------------------------------------------------------

  private showStatus(status: ChatStatus): void {
    const busy = status !== 'ready';
    // One Stop on screen: while tools run as tasks their cards have it (`waiting`), and Send stays, disabled.
    const stoppable = busy && status !== 'waiting';
    this.send.disabled = busy;
    this.send.hidden = stoppable;
    this.stopButton.hidden = !stoppable;
    this.statusNow = status;
    this.status.textContent = status === 'ready' ? '' : this.locale.t(STATUS_TEXT[status]);
    this.transcript.setStreaming(busy);
    this.actions.refresh();
    // Approval buttons are live only between turns.
    for (const message of this.transcript.all()) {
      if (
        message.role === 'assistant' &&
        message.parts.some((p) => (p as { state?: string }).state === 'approval-requested')
      )
        this.transcript.renderNow(message);
    }
    // A turn starting clears the last error (as the AI SDK's `submitted` does).
    if (status === 'answering') this.clearAlert();
  }

  /** Runs `fn`; a failure is rethrown in plain words (for a form to show next to the input). */
  private async plainly<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const plain = plainError(error, this.locale);
      throw new Error(`${plain.title} ${plain.detail}`);
    }
  }

  private showError(error: unknown, retry?: () => void): void {
    const plain = plainError(error, this.locale);
    const again = plain.retryable && retry ? retry : null;
    this.alert.dataset.auth = plain.authExpired ? 'expired' : '';
    this.alert.dataset.code = error instanceof ChatError ? error.code : 'connection_lost';
    this.alert.replaceChildren(
      h('div', {}, h('strong', {}, plain.title), plain.detail),
      ...(again
        ? [
            h(
              'button',
              { type: 'button', class: 'secondary', onclick: () => (this.clearAlert(), again()) },
              this.locale.t('shell.tryAgain'),
            ),
          ]
        : []),
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

  // Attributes and events are typed by the element's public declarations (widget/mcp-ondemand-chat.d.ts),
  // so they say what it does: only the attributes the declarations list are read.
  private attr(name: keyof McpOndemandChatAttributes): string | null {
    return this.getAttribute(name);
  }

  private emit<K extends keyof McpOndemandChatEventDetails>(type: K, detail: McpOndemandChatEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }
}

/** Files dropped anywhere on the chat are attached; while they are dragged over it, it says so (`data-drop`). */
function dropTarget(el: HTMLElement, drop: (files: File[]) => void): void {
  const carriesFiles = (event: DragEvent) => event.dataTransfer?.types.includes('Files') ?? false;
  const over = (event: DragEvent) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    el.dataset.drop = '';
  };
  el.addEventListener('dragenter', over);
  el.addEventListener('dragover', over);
  el.addEventListener('dragleave', (event) => {
    if (!el.contains(event.relatedTarget as Node | null)) delete el.dataset.drop;
  });
  el.addEventListener('drop', (event) => {
    delete el.dataset.drop;
    if (!carriesFiles(event)) return;
    event.preventDefault();
    drop([...(event.dataTransfer?.files ?? [])]);
  });
}
