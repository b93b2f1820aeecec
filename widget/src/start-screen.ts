import { h } from './dom';
import type { PromptChoice } from './catalog-menus';
import type { Locale } from './i18n/locale';
import type { Catalog } from './types';

/** Most server prompts the start screen offers (the `/` menu lists them all). */
const MAX_PROMPTS = 6;

/** A suggested prompt: what its button says, and what it sends. */
export interface Suggestion {
  label: string;
  prompt: string;
}

/**
 * The `suggestions` attribute or property as a list: a JSON array (or an
 * array) of strings or `{label, prompt}`; undefined when it names none (no
 * attribute, not JSON, nothing usable), so the servers' prompts show instead.
 */
export function parseSuggestions(value: unknown): Suggestion[] | undefined {
  let list = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(list)) return undefined;
  const suggestions = list.flatMap((item): Suggestion[] => {
    if (typeof item === 'string') return item.trim() ? [{ label: item, prompt: item }] : [];
    const { label, prompt } = (item ?? {}) as Partial<Suggestion>;
    if (typeof prompt !== 'string' || !prompt.trim()) return [];
    return [{ label: typeof label === 'string' && label.trim() ? label : prompt, prompt }];
  });
  return suggestions.length ? suggestions : undefined;
}

/** The first prompts of the connected servers, for the start screen. */
export function serverPrompts(catalog: Catalog): PromptChoice[] {
  return catalog.servers
    .filter((s) => s.status === 'connected')
    .flatMap((server) => (server.prompts ?? []).map((prompt) => ({ server: server.id, prompt })))
    .slice(0, MAX_PROMPTS);
}

/**
 * Resolves once the person comes to the chat (a pointer over it, focus in it, a touch). Reading the servers'
 * prompts needs a conversation (its catalog), and creating one connects every MCP server: a page view where
 * nobody touches the chat should cost neither, so until then the start screen shows the greeting alone.
 */
export function firstEngagement(el: HTMLElement): Promise<void> {
  return new Promise((resolve) => {
    for (const type of ['pointerenter', 'focusin', 'touchstart'])
      el.addEventListener(type, () => resolve(), { once: true, passive: true });
  });
}

export interface StartScreenDeps {
  /** The host's suggestions, or undefined (then the servers' prompts show). */
  suggestions(): Suggestion[] | undefined;
  /** The conversation's catalog (a conversation is created, once the person comes to the chat, if there is none yet). */
  catalog(): Promise<Catalog>;
  send(text: string): void;
  openPrompt(choice: PromptChoice): void;
  /** The widget's language (read at each refresh: a new `lang` shows when the screen is shown again). */
  locale(): Locale;
}

/**
 * What an empty conversation shows: a greeting, then the host's suggested
 * prompts (clicking one sends it) or, without any, the servers' prompts
 * (clicking one opens its argument form), and a line on `/` and `@`. One
 * element, kept: the transcript puts it in place whenever the conversation
 * is empty (`node()`), and each time it asks the servers' prompts anew.
 */
export class StartScreen {
  readonly el: HTMLElement;
  private readonly choices: HTMLElement;
  private readonly greeting = h('h3', { class: 'start-greeting' });
  private readonly intro = h('p', { class: 'start-intro' });
  private readonly help = h('p', { class: 'start-help' });
  /** Bumped per refresh: a catalog that arrives after a newer refresh is dropped. */
  private generation = 0;

  constructor(private readonly deps: StartScreenDeps) {
    this.choices = h('div', { class: 'start-choices' });
    this.el = h('div', { class: 'empty start', part: 'start' }, this.greeting, this.intro, this.choices, this.help);
  }

  /** The element, refreshed: the transcript shows it for an empty conversation. */
  node(): HTMLElement {
    void this.refresh();
    return this.el;
  }

  /** Shows the host's suggestions, or else (once read) the servers' prompts. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const locale = this.deps.locale();
    this.greeting.textContent = locale.t('start.greeting');
    this.intro.textContent = locale.t('start.intro');
    this.help.textContent = locale.t('start.help');
    const suggestions = this.deps.suggestions();
    if (suggestions) {
      this.show(
        locale.t('start.suggestions'),
        suggestions.map((s) => choice(s.label, undefined, () => this.deps.send(s.prompt))),
      );
      return;
    }
    this.show('', []);
    let prompts: PromptChoice[];
    try {
      prompts = serverPrompts(await this.deps.catalog());
    } catch {
      return; // A help, not a requirement: the composer still works, and says what failed when used.
    }
    if (generation !== this.generation || !prompts.length) return;
    this.show(
      locale.t('start.prompts'),
      prompts.map((p) =>
        choice(
          p.prompt.title ?? `/${p.prompt.name}`,
          p.prompt.description ?? locale.t('start.promptDetail', { server: p.server }),
          () => this.deps.openPrompt(p),
        ),
      ),
    );
  }

  private show(heading: string, buttons: HTMLElement[]): void {
    this.choices.replaceChildren(
      ...(buttons.length
        ? [
            h('h4', { class: 'start-heading' }, heading),
            h('ul', { class: 'start-list', 'aria-label': heading }, ...buttons.map((b) => h('li', {}, b))),
          ]
        : []),
    );
  }
}

/** A choice's button: its label, then its detail (a prompt's description) in smaller type. */
function choice(label: string, detail: string | undefined, onclick: () => void): HTMLButtonElement {
  return h(
    'button',
    { type: 'button', class: 'start-choice', onclick },
    h('span', { class: 'label' }, label),
    detail ? h('span', { class: 'detail' }, ` ${detail}`) : null,
  );
}
