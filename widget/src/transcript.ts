import { h } from './dom';
import { elicitationCard, type Elicitation, type ElicitationAnswer } from './elicitation-form';
import { ENGLISH, type Locale } from './i18n/locale';
import { renderedBlocks, renderMarkdown } from './markdown';
import { documentFormatOf } from '../../shared/documents';
import { programStep } from './program-step';
import { summarizeStep } from './steps';
import { linkCitations, type OpenSource, sourceList, sourcesOf } from './sources';
import { taskCard } from './task-card';
import { progressOf, taskCardState, taskNotices } from './task-card-state';
import type { Attachment, Message, ToolPart } from './types';
import type { AppToolCall } from '../../shared/api/views';

export interface TranscriptContext {
  /** The widget's language: its strings, numbers and sizes. */
  locale?: Locale | undefined;
  /** What the widget knows of an attached resource (from the catalog): for its chip. */
  describe(server: string, uri: string): Attachment;
  /** Approve or deny a tool call; undefined while a turn is running. */
  answer?: ((toolCallId: string, approved: boolean) => void) | undefined;
  /** Answer a server's question (asked while the turn runs, so always available). */
  elicit?: ElicitationAnswer | undefined;
  /** The element of a tool step's view (MCP Apps), kept across renders; undefined: no view (the step alone). */
  view?: ((app: AppToolCall, part: ToolPart) => HTMLElement | undefined) | undefined;
  /** Stops the conversation's running work (a long tool call's card offers it). */
  stop?: (() => void) | undefined;
  /** A card with a running clock was rendered: its clock must tick. */
  clockRunning?: (() => void) | undefined;
  /** The row of actions under a finished answer (answer-actions.ts), kept across renders; undefined: none yet. */
  actions?: ((message: Message) => HTMLElement | undefined) | undefined;
  /** Opens one of an answer's sources (its list, its citations); undefined: sources are listed, not opened. */
  openSource?: OpenSource | undefined;
}

/**
 * Placeholders in a rendered message for the view elements that must not be
 * re-created or moved (an iframe reloads), and for its row of actions (a
 * comment being typed): TranscriptView puts the kept element where its placeholder is.
 */
export const viewSlots = new WeakMap<Element, HTMLElement>();

const isTool = (part: Message['parts'][number]): part is ToolPart =>
  part.type.startsWith('tool-') && 'toolCallId' in part;

/** One message as an element: user text and attachments, or the assistant's text and tool steps. */
export function renderMessage(message: Message, ctx: TranscriptContext): HTMLElement {
  const locale = ctx.locale ?? ENGLISH;
  const t = locale.t.bind(locale);
  const el = h('article', {
    class: `msg ${message.role}`,
    'aria-label': t(message.role === 'user' ? 'transcript.you' : 'transcript.assistant'),
  });
  if (message.role === 'user') {
    // Parts after the first are the attached resources as the model got them: shown as chips.
    const first = message.parts.find((p) => p.type === 'text') as { text: string } | undefined;
    if (message.metadata?.prompt)
      el.append(
        h(
          'div',
          { class: 'meta' },
          t('transcript.prompt', { name: message.metadata.prompt.name, server: message.metadata.prompt.server }),
        ),
      );
    // `dir="auto"`: a message keeps its own direction (English in an Arabic chat reads left to right).
    if (first)
      el.append(h('div', { class: 'text', dir: 'auto' }, renderMarkdown(first.text, document, undefined, locale)));
    const attached = message.metadata?.attachments ?? [];
    if (attached.length)
      el.append(
        attachmentChips(
          attached.map((a) => ctx.describe(a.server, a.uri)),
          undefined,
          locale,
        ),
      );
    // The service restarted during this message's turn: it was kept, but not answered.
    const interrupted = message.metadata?.interrupted;
    if (typeof interrupted === 'string') el.append(h('p', { class: 'notice' }, interrupted));
    return el;
  }
  // A tool's view (`data-mcp-app`, kept in the history) goes below the step of its call.
  const apps = new Map<string, AppToolCall>();
  for (const part of message.parts) {
    const app = part.type === 'data-mcp-app' ? (part as { data?: AppToolCall }).data : undefined;
    if (app?.toolCallId) apps.set(app.toolCallId, app);
  }
  // A long call's progress card (a task, `data-task`; or progress reports of the live stream) goes below its step too.
  const tasks = taskNotices(message);
  // What the answer read (`data-sources`): listed below it, and what its text cites of them made links.
  const sources = sourcesOf(message);
  const openSource = ctx.openSource ?? (() => {});
  for (const [index, part] of message.parts.entries()) {
    if (part.type === 'text') {
      const text = (part as { text: string }).text;
      if (!text) continue;
      // Rendered on every frame while it streams: its finished blocks are kept (markdown.ts, RenderedBlocks); linking
      // citations again skips what is already a link (it leaves buttons, links and code alone).
      const div = h(
        'div',
        { class: 'text', dir: 'auto' },
        renderMarkdown(text, document, renderedBlocks(message, index), locale),
      );
      linkCitations(div, message, sources, openSource, locale);
      el.append(div);
    } else if (isTool(part)) {
      el.append(
        part.state === 'approval-requested'
          ? approvalCard(part, ctx, locale)
          : part.type === 'tool-run_code'
            ? programStep(part, locale)
            : stepDetails(part, locale),
      );
      const card = taskCardState(
        { part, task: tasks.get(part.toolCallId), progress: progressOf(message, part.toolCallId) },
        locale,
      );
      if (card) {
        el.append(taskCard(card, ctx.stop, locale));
        if (card.running) ctx.clockRunning?.();
      }
      const app = apps.get(part.toolCallId);
      keep(el, app && ctx.view?.(app, part));
    } else if (part.type === 'data-elicitation') {
      const question = (part as { data?: Elicitation }).data;
      if (question) el.append(elicitationCard(question, ctx.elicit, locale));
    } else if (part.type === 'data-sources' && sources.length) {
      el.append(sourceList(message, sources, openSource, locale));
    } else if (part.type === 'data-notice') {
      const text = (part as { data?: { message?: unknown } }).data?.message;
      if (typeof text === 'string') el.append(h('p', { class: 'notice' }, text));
    }
  }
  if (message.metadata?.stepLimitReached) {
    el.append(h('p', { class: 'notice' }, t('transcript.stepLimit')));
  }
  if (message.metadata?.stopped) el.append(h('p', { class: 'notice' }, t('transcript.stopped')));
  keep(el, ctx.actions?.(message));
  if (!el.childElementCount) el.append(h('span', { class: 'meta', 'aria-label': t('transcript.thinking') }, '…'));
  return el;
}

/** Puts a placeholder for `kept` (an element that outlives renders) in `el`: TranscriptView puts `kept` there. */
function keep(el: HTMLElement, kept: HTMLElement | undefined): void {
  if (!kept) return;
  const slot = h('div', { hidden: true });
  viewSlots.set(slot, kept);
  el.append(slot);
}

/** A tool step, one line, expandable to what the model received. */
function stepDetails(part: ToolPart, locale: Locale): HTMLElement {
  const t = locale.t.bind(locale);
  const step = summarizeStep(part, locale);
  return h(
    'details',
    { class: 'step', 'data-status': step.status, 'data-tool': part.type.slice(5) },
    h('summary', {}, step.label),
    step.args ? h('h4', {}, t('transcript.arguments')) : null,
    // Focusable: a long one scrolls, and a keyboard must reach it to scroll it (axe: scrollable-region-focusable).
    step.args ? h('pre', { tabindex: 0 }, step.args) : null,
    step.received !== undefined
      ? h('h4', {}, t(step.status === 'error' ? 'transcript.error' : 'transcript.received'))
      : null,
    step.received !== undefined ? h('pre', { tabindex: 0 }, step.received) : null,
  );
}

function approvalCard(part: ToolPart, ctx: TranscriptContext, locale: Locale): HTMLElement {
  const t = locale.t.bind(locale);
  const step = summarizeStep(part, locale);
  const answer = (approved: boolean) => () => ctx.answer?.(part.toolCallId, approved);
  const disabled = !ctx.answer;
  return h(
    'div',
    { class: 'approval', role: 'group', 'aria-label': t('transcript.approval') },
    h('p', {}, t('transcript.allow', { action: step.label })),
    definitionNotice(part, locale),
    h('pre', { 'aria-label': t('transcript.arguments') }, step.args ?? '{}'),
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', class: 'primary', disabled, onclick: answer(true) }, t('transcript.approve')),
      h('button', { type: 'button', class: 'secondary', disabled, onclick: answer(false) }, t('transcript.deny')),
    ),
  );
}

/**
 * Why a tool the operator lets run without asking asks: its definition changed since it was approved (a server
 * that changed what the tool says or takes), or could not be checked yet (docs/SECURITY.md).
 */
function definitionNotice(part: ToolPart, locale: Locale): HTMLElement | null {
  const definition = part.toolMetadata?.definition;
  if (definition !== 'changed' && definition !== 'unchecked') return null;
  return h(
    'p',
    { class: 'notice changed', role: 'note' },
    locale.t(definition === 'changed' ? 'transcript.changed' : 'transcript.unchecked'),
  );
}

/** Chips for resources going with a message: title, type and size; documents say they go as text, other binaries that they are described. */
export function attachmentChips(
  attachments: Attachment[],
  remove?: (index: number) => void,
  locale: Locale = ENGLISH,
): HTMLElement {
  return h(
    'div',
    { class: 'chips', role: 'list', 'aria-label': locale.t('transcript.attached') },
    ...attachments.map((a, index) =>
      h(
        'span',
        { class: 'chip', role: 'listitem', title: a.uri },
        attachmentLabel(a, locale),
        remove
          ? h(
              'button',
              {
                type: 'button',
                'aria-label': locale.t('transcript.remove', { title: a.title }),
                onclick: () => remove(index),
              },
              '×',
            )
          : null,
      ),
    ),
  );
}

export function attachmentLabel(a: Attachment, locale: Locale = ENGLISH): string {
  const meta = [a.mimeType, a.size === undefined ? undefined : locale.size(a.size)].filter(Boolean).join(', ');
  // A document (PDF, Office file) goes as its text, converted by the service; other binaries but images reach the
  // model as a description only; images may be sent to a model that can see them.
  const document = documentFormatOf(a.mimeType, a.uri);
  const described = !document && a.mimeType && !/^text\/|^image\/|json|xml|yaml|javascript|markdown/.test(a.mimeType);
  const how =
    document && document !== 'html' && document !== 'csv'
      ? locale.t('transcript.asText')
      : described
        ? locale.t('transcript.described')
        : '';
  return [a.title, meta, how].filter(Boolean).join(' · ');
}
