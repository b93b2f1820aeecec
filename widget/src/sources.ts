import type { Source, SourcesData, SourceText } from '../../shared/api/stream';
import { sourceWindowText } from '../../shared/sources';
import { h, uid } from './dom';
import { ENGLISH, type Locale } from './i18n/locale';
import type { TextKey } from './i18n/strings';
import type { Message } from './types';

/** How the model came by a source, in words. */
const VIA = {
  read: 'sources.viaRead',
  search: 'sources.viaSearch',
  attachment: 'sources.viaAttachment',
  pinned: 'sources.viaPinned',
  tool: 'sources.viaTool',
} as const satisfies Record<Source['via'], TextKey>;

/** The sources an answer's `data-sources` part lists (none when it read nothing). */
export function sourcesOf(message: Message): Source[] {
  const part = message.parts.find((p) => p.type === 'data-sources') as { data?: SourcesData } | undefined;
  return part?.data?.sources ?? [];
}

const titleOf = (source: Source) => source.title || source.uri;

/** Which part of a source a window is: its pages (slides, sheets) for a document, else its characters. */
export function windowLabel(window: Source['windows'][number], locale: Locale = ENGLISH): string {
  const pages = /^(page|slide|sheet)s? (\d+)(?:-(\d+))? of (\d+)$/.exec(window.pages ?? '');
  if (pages) {
    const unit = pages[1] as 'page' | 'slide' | 'sheet';
    const numbers = { from: Number(pages[2]), total: Number(pages[4]) };
    return pages[3]
      ? locale.t(`sources.${unit}s`, { ...numbers, to: Number(pages[3]) })
      : locale.t(`sources.${unit}`, numbers);
  }
  if (window.pages) return window.pages;
  return locale.t('sources.characters', { from: window.offset, to: window.end, total: window.total });
}

/** What the list says of how much of a source was read: nothing when all of it, else its window or its parts' count. */
function extent(source: Source, locale: Locale): string | undefined {
  if (!source.partial) return undefined;
  if (source.windows.length === 1) return windowLabel(source.windows[0]!, locale);
  return locale.t('sources.parts', { count: source.windows.length });
}

export type OpenSource = (message: Message, source: Source) => void;

/** The compact list under an answer: number, title, server, and the window or pages when partial. Each opens its panel. */
export function sourceList(
  message: Message,
  sources: Source[],
  open: OpenSource,
  locale: Locale = ENGLISH,
): HTMLElement {
  return h(
    'section',
    { class: 'sources', 'aria-label': locale.t('sources.listLabel'), part: 'sources' },
    h('h4', {}, locale.t('sources.heading')),
    h(
      'ol',
      {},
      ...sources.map((source) =>
        h(
          'li',
          { value: source.n },
          h(
            'button',
            {
              type: 'button',
              class: 'source',
              part: 'source',
              title: source.uri,
              'data-source': `${message.id}:${source.n}`,
              onclick: () => open(message, source),
            },
            h('span', { class: 'source-title' }, titleOf(source)),
            h('span', { class: 'meta' }, [source.server, extent(source, locale)].filter(Boolean).join(' · ')),
          ),
        ),
      ),
    ),
  );
}

/**
 * The answer's text with what it cites made into buttons that open the source: a source's URI, or `[n]` for a source
 * it has. Only text nodes are touched (never markup; the text stays as the model wrote it), outside links and code blocks.
 */
export function linkCitations(
  container: HTMLElement,
  message: Message,
  sources: Source[],
  open: OpenSource,
  locale: Locale = ENGLISH,
): void {
  if (!sources.length) return;
  const byUri = new Map(sources.map((s) => [s.uri, s]));
  const byNumber = new Map(sources.map((s) => [String(s.n), s]));
  const uris = [...byUri.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  // A URI ends where the text stops being one: "docs://guide." cites docs://guide; "docs://guide/faq" does not.
  const pattern = new RegExp(`${uris.map((u) => `(${u})(?![\\w/#?%=&~-]|\\.\\w)`).join('|')}|\\[(\\d{1,3})\\]`, 'g');
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest('a, pre, button') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node as Text);
  for (const node of nodes) {
    const text = node.data;
    const pieces: Array<Node | string> = [];
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      const numbered = match[uris.length + 1];
      const source = numbered === undefined ? byUri.get(match[0]) : byNumber.get(numbered);
      if (!source) continue;
      pieces.push(text.slice(last, match.index));
      pieces.push(citation(match[0], numbered !== undefined, message, source, open, locale));
      last = match.index + match[0].length;
    }
    if (!pieces.length) continue;
    pieces.push(text.slice(last));
    node.replaceWith(...pieces);
  }
}

function citation(
  text: string,
  numbered: boolean,
  message: Message,
  source: Source,
  open: OpenSource,
  locale: Locale,
): HTMLElement {
  const label = locale.t('sources.citation', { n: source.n, title: titleOf(source) });
  return h(
    'button',
    {
      type: 'button',
      class: 'cite',
      part: 'citation',
      title: label,
      'data-source': `${message.id}:${source.n}`,
      // A bare "[2]" says little read aloud: its label names the source.
      ...(numbered ? { 'aria-label': label } : {}),
      onclick: () => open(message, source),
    },
    text,
    numbered ? null : h('sup', { 'aria-hidden': 'true' }, `[${source.n}]`),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface SourcePanelDeps {
  /** A message of the conversation by id (an attachment's text is in the question), from the service if not shown. */
  message(id: string): Promise<Message | undefined>;
  /** The element's shadow root: focus goes back to the control that opened the panel (or its re-rendered twin). */
  root: ShadowRoot;
  locale(): Locale;
}

/**
 * The side panel (a sheet on a phone's width) with one source: what it is, when it was read and fetched, and exactly
 * the text the model received for each window — looked up where the conversation keeps it (sources.ts on the
 * service), never read again (a fresh read would show the resource as it is now, not as the model got it).
 * A dialog that leaves the chat usable: Escape or Close shuts it, and focus goes back where it was.
 */
export class SourcePanel {
  /** The layer over the chat that places the panel (a container, so a narrow widget gets the sheet). */
  readonly el: HTMLElement = h('div', { class: 'source-layer' });
  private opener: string | undefined;
  private openedFrom: Element | null = null;
  private generation = 0;

  constructor(private readonly deps: SourcePanelDeps) {}

  get isOpen(): boolean {
    return this.el.childElementCount > 0;
  }

  open = (message: Message, source: Source): void => {
    const generation = ++this.generation;
    const locale = this.deps.locale();
    const t = locale.t.bind(locale);
    this.openedFrom = this.deps.root.activeElement;
    this.opener = `${message.id}:${source.n}`;
    const headingId = uid('source');
    const close = h(
      'button',
      { type: 'button', class: 'secondary small', 'aria-label': t('sources.closeLabel'), onclick: () => this.close() },
      t('sources.close'),
    );
    const heading = h('h3', { id: headingId, tabindex: -1 }, `${source.n}. ${titleOf(source)}`);
    const facts = h(
      'dl',
      {},
      ...fact(t('sources.server'), source.server),
      ...fact(t('sources.uri'), source.uri),
      ...fact(t('sources.how'), t(VIA[source.via])),
      ...fact(t('sources.readAt'), locale.dateTime(source.readAt, 'medium')),
      ...(source.fetchedAt !== undefined
        ? fact(t('sources.fetchedAt'), locale.dateTime(source.fetchedAt, 'medium'))
        : []),
      ...(source.version ? fact(t('sources.version'), source.version) : []),
    );
    const body = h('div', { class: 'source-windows' });
    const panel = h(
      'div',
      { class: 'source-panel', role: 'dialog', 'aria-labelledby': headingId, part: 'source-panel' },
      h('div', { class: 'source-head' }, heading, close),
      facts,
      h('h4', {}, t('sources.received')),
      body,
    );
    panel.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      this.close();
    });
    this.el.replaceChildren(panel);
    heading.focus();
    void this.fill(body, message, source, generation, locale);
  };

  close(): void {
    if (!this.isOpen) return;
    this.generation++;
    this.el.replaceChildren();
    // The button that opened it, or — its message re-rendered since — the same source's button now.
    const back =
      this.openedFrom?.isConnected && this.openedFrom instanceof HTMLElement
        ? this.openedFrom
        : (this.deps.root.querySelector(`[data-source="${CSS.escape(this.opener ?? '')}"]`) as HTMLElement | null);
    back?.focus();
  }

  private async fill(
    body: HTMLElement,
    message: Message,
    source: Source,
    generation: number,
    locale: Locale,
  ): Promise<void> {
    const t = locale.t.bind(locale);
    body.replaceChildren(h('p', { class: 'meta' }, t('sources.loading')));
    const windows = await Promise.all(
      source.windows.map(async (window) => ({ window, text: await this.textOf(window.text, message) })),
    );
    if (generation !== this.generation) return;
    body.replaceChildren(
      ...windows.flatMap(({ window, text }): HTMLElement[] =>
        [
          source.windows.length > 1 || source.partial ? h('h5', {}, windowLabel(window, locale)) : null,
          text === undefined
            ? h('p', { class: 'notice' }, t('sources.missing'))
            : h('pre', { class: 'source-text', tabindex: 0 }, text),
          window.text.in === 'inline' && window.text.truncated
            ? h('p', { class: 'meta' }, t('sources.truncated', { shown: window.text.text.length }))
            : null,
        ].filter((node) => node !== null),
      ),
    );
  }

  private async textOf(at: SourceText, answer: Message): Promise<string | undefined> {
    const question = at.in === 'message' ? await this.deps.message(at.messageId).catch(() => undefined) : undefined;
    return sourceWindowText(at, answer, question);
  }
}

function fact(term: string, value: string): HTMLElement[] {
  return [h('dt', {}, term), h('dd', {}, value)];
}
