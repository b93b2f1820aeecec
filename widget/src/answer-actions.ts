import type { Feedback, FeedbackBody } from '../../shared/api/feedback';
import { FEEDBACK_COMMENT_MAX_CHARS, type FeedbackRating } from '../../shared/feedback';
import type { McpOndemandChatEventDetails } from '../mcp-ondemand-chat';
import { h, uid } from './dom';
import type { Locale } from './i18n/locale';
import { renderMarkdown } from './markdown';
import type { Message } from './types';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A thumb (drawn, not an emoji: a system without an emoji font would show a box); 👎 is it turned over in CSS. */
function thumb(): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg
    .appendChild(document.createElementNS(SVG_NS, 'path'))
    .setAttribute(
      'd',
      'M7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3m7-2V5a3 3 0 0 0-3-3l-4 9v11h11.3a2 2 0 0 0 2-1.7l1.4-9a2 2 0 0 0-2-2.3z',
    );
  return svg;
}

export interface AnswerActionsDeps {
  conversation(): string | null;
  /** `POST …/messages/{messageId}/feedback`; a second one replaces the first. */
  rate(conversation: string, messageId: string, body: FeedbackBody): Promise<Feedback>;
  /** Writes the answer again in its place (the chat protocol's regenerate); false when it cannot now. */
  regenerate(messageId: string): boolean;
  /** The last message shown, and whether a turn runs: only the last answer is regenerated, between turns. */
  last(): Message | undefined;
  busy(): boolean;
  announce(text: string): void;
  /** A rating was kept: the host page hears of it (`mcp-ondemand-feedback`). */
  rated(detail: McpOndemandChatEventDetails['mcp-ondemand-feedback']): void;
  failed(error: unknown): void;
  focusInput(): void;
  /** The widget's language (read at each sync: a new `lang` relabels the rows). */
  locale(): Locale;
}

/**
 * The row under each finished answer: Copy (the answer's markdown, and its plain text), Regenerate (the last answer,
 * between turns) and 👍 / 👎 with an optional comment. One element per answer, kept across the answer's re-renders
 * (transcript.ts places it like a view), so a comment being typed, or the focus on a button, survives them.
 */
export class AnswerActions {
  private readonly bars = new Map<string, ActionBar>();

  constructor(private readonly deps: AnswerActionsDeps) {}

  /** The answer's row, or undefined while it is not finished (streaming, waiting for an approval or a task) or has no text. */
  for(message: Message): HTMLElement | undefined {
    if (!finished(message)) return undefined;
    let bar = this.bars.get(message.id);
    if (!bar) this.bars.set(message.id, (bar = new ActionBar(message, this.deps)));
    bar.message = message;
    bar.sync();
    return bar.el;
  }

  /** A turn started or ended, or the last message changed: Regenerate follows. */
  refresh(): void {
    for (const bar of this.bars.values()) bar.sync();
  }

  /** Another conversation is shown: the rows of this one go. */
  clear(): void {
    this.bars.clear();
  }
}

function finished(message: Message): boolean {
  const metadata = message.metadata as { finishReason?: string; waitingForTasks?: boolean } | undefined;
  return (
    message.role === 'assistant' &&
    metadata?.finishReason !== undefined &&
    metadata.waitingForTasks !== true &&
    !message.parts.some((p) => (p as { state?: string }).state === 'approval-requested') &&
    markdownOf(message).trim() !== ''
  );
}

/** The answer as the model wrote it: its text parts, in order. */
export function markdownOf(message: Message): string {
  return message.parts
    .flatMap((p) => (p.type === 'text' ? [(p as { text: string }).text.trim()] : []))
    .filter(Boolean)
    .join('\n\n');
}

class ActionBar {
  readonly el: HTMLElement;
  private readonly regenerateButton: HTMLButtonElement;
  private readonly copyButton: HTMLButtonElement;
  private readonly ratings: Record<FeedbackRating, HTMLButtonElement>;
  private readonly form: HTMLFormElement;
  private readonly comment: HTMLTextAreaElement;
  private readonly commentLabel: HTMLElement;
  private readonly note: HTMLElement;
  private rating: FeedbackRating | undefined;
  private readonly row: HTMLElement;
  private readonly sendButton: HTMLButtonElement;
  private readonly closeButton: HTMLButtonElement;
  /** Copy reads "Copied" for a moment. */
  private copied = false;

  constructor(
    public message: Message,
    private readonly deps: AnswerActionsDeps,
  ) {
    this.rating = (message.metadata as { feedback?: { rating?: FeedbackRating } } | undefined)?.feedback?.rating;
    // Labelled in sync(), in the widget's language.
    const button = (onclick: () => void, extra: Record<string, string> = {}, content?: Node) =>
      h('button', { type: 'button', class: 'action', onclick, ...extra }, content);
    const rating = (value: FeedbackRating) =>
      button(() => void this.rate(value), { 'aria-pressed': 'false', 'data-rating': value }, thumb());
    this.copyButton = button(() => void this.copy());
    this.regenerateButton = button(() => this.regenerate());
    this.ratings = { up: rating('up'), down: rating('down') };
    const commentId = uid('comment');
    this.commentLabel = h('label', { for: commentId });
    this.comment = h('textarea', { id: commentId, rows: 2, maxlength: FEEDBACK_COMMENT_MAX_CHARS });
    this.comment.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.closeForm();
      // Enter sends, as in the message box; Shift+Enter adds a line.
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.form.requestSubmit();
      }
    });
    this.form = h(
      'form',
      {
        class: 'feedback-form',
        hidden: true,
        onsubmit: (event: Event) => (event.preventDefault(), void this.sendComment()),
      },
      this.commentLabel,
      this.comment,
      h(
        'div',
        { class: 'row' },
        (this.sendButton = h('button', { type: 'submit', class: 'primary small' })),
        (this.closeButton = h('button', { type: 'button', class: 'secondary small', onclick: () => this.closeForm() })),
      ),
    );
    this.note = h('span', { class: 'action-note', role: 'status' });
    this.el = h(
      'div',
      { class: 'answer-actions', part: 'answer-actions' },
      (this.row = h(
        'div',
        { class: 'action-row', role: 'group' },
        this.copyButton,
        this.regenerateButton,
        this.ratings.up,
        this.ratings.down,
        this.note,
      )),
      this.form,
    );
  }

  /** Regenerate: the last answer only, between turns; the rating buttons show the rating kept. */
  sync(): void {
    this.relabel();
    const last = this.deps.last();
    this.regenerateButton.hidden = last?.id !== this.message.id;
    this.regenerateButton.disabled = this.deps.busy();
    for (const rating of ['up', 'down'] as const)
      this.ratings[rating].setAttribute('aria-pressed', String(this.rating === rating));
  }

  /** Its words in the widget's language. */
  private relabel(): void {
    const t = this.t;
    const label = (button: HTMLButtonElement, text: string) => {
      button.setAttribute('aria-label', text);
      button.title = text;
    };
    this.row.setAttribute('aria-label', t('actions.group'));
    label(this.copyButton, t('actions.copyLabel'));
    this.copyButton.textContent = t(this.copied ? 'actions.copied' : 'actions.copy');
    label(this.regenerateButton, t('actions.regenerateLabel'));
    this.regenerateButton.textContent = t('actions.regenerate');
    label(this.ratings.up, t('actions.up'));
    label(this.ratings.down, t('actions.down'));
    this.form.setAttribute('aria-label', t('actions.commentForm'));
    this.sendButton.textContent = t('actions.sendComment');
    this.closeButton.textContent = t('actions.close');
  }

  private get t(): Locale['t'] {
    const locale = this.deps.locale();
    return locale.t.bind(locale);
  }

  /**
   * The markdown, and its plain text as `text/plain`, in one clipboard item where the browser writes custom formats
   * (`web text/markdown`); elsewhere the markdown as the text (it reads as text too).
   */
  private async copy(): Promise<void> {
    const markdown = markdownOf(this.message);
    try {
      const plain = plainText(markdown);
      if (typeof ClipboardItem !== 'undefined' && ClipboardItem.supports?.('web text/markdown'))
        await navigator.clipboard.write([
          new ClipboardItem({
            'text/plain': new Blob([plain], { type: 'text/plain' }),
            'web text/markdown': new Blob([markdown], { type: 'text/markdown' }),
          }),
        ]);
      else await navigator.clipboard.writeText(markdown);
    } catch {
      this.say(this.t('actions.copyFailed'));
      return;
    }
    this.copied = true;
    this.relabel();
    this.deps.announce(this.t('actions.copiedNotice'));
    setTimeout(() => {
      this.copied = false;
      this.relabel();
    }, 2_000);
  }

  private regenerate(): void {
    if (this.deps.regenerate(this.message.id)) this.deps.focusInput();
  }

  /** A rating is sent at once (one press is the whole of it); the form then offers to add a comment, which replaces it. */
  private async rate(rating: FeedbackRating): Promise<void> {
    if (!(await this.send({ rating }))) return;
    this.commentLabel.textContent = this.t(rating === 'up' ? 'actions.commentUp' : 'actions.commentDown');
    this.form.hidden = false;
    this.comment.focus();
  }

  private async sendComment(): Promise<void> {
    const comment = this.comment.value.trim();
    if (!this.rating || !(await this.send({ rating: this.rating, ...(comment ? { comment } : {}) }))) return;
    this.closeForm();
    this.say(this.t('actions.thanks'));
  }

  private async send(body: FeedbackBody): Promise<boolean> {
    const conversation = this.deps.conversation();
    if (!conversation) return false;
    try {
      await this.deps.rate(conversation, this.message.id, body);
    } catch (error) {
      this.deps.failed(error);
      return false;
    }
    this.rating = body.rating;
    this.sync();
    this.deps.rated({ conversation, messageId: this.message.id, ...body });
    return true;
  }

  private closeForm(): void {
    this.form.hidden = true;
    this.comment.value = '';
    if (this.rating) this.ratings[this.rating].focus();
  }

  private say(text: string): void {
    this.note.textContent = text;
  }
}

/** Block elements of rendered markdown: each starts a line of the plain text. */
const BLOCKS = /^(P|H\d|PRE|LI|BLOCKQUOTE|UL|OL|TABLE|TR|DIV)$/;

/**
 * The answer as plain text: its markdown rendered (markdown.ts, the one reading of it) and read back as text — marks
 * gone, a line per block, list items with their marker, table cells apart by tabs, links with their address.
 */
export function plainText(markdown: string): string {
  const root = h('div');
  root.append(renderMarkdown(markdown));
  let text = '';
  const walk = (node: Node, depth: number): void => {
    if (node.nodeType === Node.TEXT_NODE) {
      text += node.textContent ?? '';
      return;
    }
    if (!(node instanceof Element) || node.tagName === 'BUTTON') return; // a control (a code block's Copy) is no text
    if (node.tagName === 'BR') text += '\n';
    const block = BLOCKS.test(node.tagName);
    if (block && text && !text.endsWith('\n')) text += '\n';
    if ((node.tagName === 'TD' || node.tagName === 'TH') && node.previousElementSibling) text += '\t';
    if (node.tagName === 'LI') {
      const list = node.parentElement;
      const marker =
        list?.tagName === 'OL'
          ? `${Number(list.getAttribute('start') ?? 1) + [...list.children].indexOf(node)}. `
          : '- ';
      text += '  '.repeat(depth) + marker;
    }
    const inner = node.tagName === 'UL' || node.tagName === 'OL' ? depth + (node.closest('li') ? 1 : 0) : depth;
    for (const child of node.childNodes) walk(child, inner);
    const href = node.tagName === 'A' ? node.getAttribute('href') : null;
    if (href && href !== node.textContent) text += ` (${href})`;
    if (block && !text.endsWith('\n')) text += '\n';
    if (/^(P|H\d|PRE|TABLE)$/.test(node.tagName) || (/^(UL|OL)$/.test(node.tagName) && !node.closest('li')))
      text += '\n';
  };
  for (const child of root.childNodes) walk(child, 0);
  return text.replace(/\n{3,}/g, '\n\n').trim();
}
