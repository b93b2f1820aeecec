import { codeBlock } from './code-block';
import { ENGLISH, type Locale } from './i18n/locale';
import { renderTable, tableAt } from './markdown-table';

/** The language of the render under way (its few words: Copy, Table, Task): a render is synchronous, one at a time. */
let locale: Locale = ENGLISH;

/**
 * Markdown as models write it, rendered by building DOM nodes: paragraphs,
 * headings, block quotes, nested and hard-wrapped lists, task lists, GFM
 * tables, fenced code (highlighted, with a Copy button: code-block.ts),
 * `code`, **bold**, *emphasis*, ~~strikethrough~~, [links](https://…) and
 * bare or <https://…> addresses. Every piece of text becomes a text node,
 * never markup, so model output and resource text cannot inject HTML or
 * script — there is no sanitiser to get wrong because nothing is ever parsed
 * as HTML. Links are kept only for http(s) and mailto, and open in a new tab
 * without an opener.
 *
 * An answer is rendered anew on each frame while it streams, so everything
 * here is one pass over the lines, and a construct still arriving (a fence
 * not closed yet, a table's delimiter row half there) renders as what it will
 * be. With `reuse` (the same text's last render), finished blocks are taken
 * from that render instead of being built again.
 */
export function renderMarkdown(
  source: string,
  doc: Document = document,
  reuse?: RenderedBlocks,
  language: Locale = ENGLISH,
): DocumentFragment {
  const outer = locale;
  locale = language;
  try {
    const fragment = blocks(source.replace(/\r\n?/g, '\n').split('\n'), doc, false, reuse);
    reuse?.done();
    return fragment;
  } finally {
    locale = outer;
  }
}

/**
 * The blocks one text was rendered into last time, by their source, for the next render of the same text: while an
 * answer streams it is rendered anew on every frame, but only its last block can still change. A block the text
 * goes on after is the same DOM as before — moved, not built again — so a long answer costs a frame little more
 * than reading its lines, and what is in a finished block stays as it was: its code's colours, a Copy button's
 * "Copied", a table's scroll position. Keyed by content, so a guess that a block was finished can only miss.
 */
export class RenderedBlocks {
  private previous = new Map<string, Node[]>();
  private current = new Map<string, Node[]>();

  take(key: string, render: () => Node): Node {
    const node = this.previous.get(key)?.shift() ?? render();
    const same = this.current.get(key);
    if (same) same.push(node);
    else this.current.set(key, [node]);
    return node;
  }

  /** The render is over: what it used is what the next one may take. */
  done(): void {
    this.previous = this.current;
    this.current = new Map();
  }
}

const rendered = new WeakMap<object, RenderedBlocks[]>();
/** The RenderedBlocks of one text of `owner` (a message, and the index of its text part). */
export function renderedBlocks(owner: object, index: number): RenderedBlocks {
  const all = rendered.get(owner) ?? [];
  rendered.set(owner, all);
  all[index] ??= new RenderedBlocks();
  return all[index];
}

/** `bare`: a list item's own text, whose first paragraph sits beside the marker rather than in a `<p>` of its own. */
function blocks(lines: string[], doc: Document, bare: boolean, reuse?: RenderedBlocks): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  let i = 0;
  while (i < lines.length) {
    if (BLANK.test(lines[i]!)) {
      i++;
      continue;
    }
    const block = blockAt(lines, i, doc, bare && !fragment.childNodes.length);
    // The last block may still grow (a fence or a table half received): always built anew.
    const key = reuse && block.end < lines.length ? lines.slice(i, block.end).join('\n') : undefined;
    fragment.append(key === undefined ? block.render() : reuse!.take(key, block.render));
    i = block.end;
  }
  return fragment;
}

interface Block {
  /** The line after the block. */
  end: number;
  render(): Node;
}

/** The block that starts at `lines[start]` (not blank). `bare`: a paragraph here is its inline content alone. */
function blockAt(lines: string[], start: number, doc: Document, bare: boolean): Block {
  const line = lines[start]!;
  let i = start;
  const fence = /^\s*(```|~~~)(.*)$/.exec(line);
  if (fence) {
    const code: string[] = [];
    for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) code.push(lines[i]!);
    return { end: i + 1, render: () => codeBlock(code.join('\n'), fence[2]!, doc, locale) };
  }
  const heading = /^(#{1,6})\s+(.*)$/.exec(line);
  if (heading)
    return {
      end: start + 1,
      render: () => {
        // Headings inside a chat bubble stay small: h4–h6 whatever the level.
        const h = doc.createElement(`h${Math.min(6, heading[1]!.length + 3)}`);
        h.append(inline(heading[2]!, doc));
        return h;
      },
    };
  if (/^\s*>/.test(line)) {
    const quoted: string[] = [];
    for (; i < lines.length && /^\s*>/.test(lines[i]!); i++) quoted.push(lines[i]!.replace(/^\s*> ?/, ''));
    return {
      end: i,
      render: () => {
        const blockquote = doc.createElement('blockquote');
        blockquote.append(blocks(quoted, doc, false));
        return blockquote;
      },
    };
  }
  const table = tableAt(lines, start, opensBlock);
  if (table)
    return {
      end: table.end,
      render: () => renderTable(table, doc, (text) => inline(text, doc), locale.t('markdown.table')),
    };
  if (ITEM.test(line)) return list(lines, start, doc);
  const paragraph: string[] = [];
  // A table may start right under a paragraph's line, as models write them ("Results:" then the header row).
  for (; i < lines.length && !opensBlock(lines[i]!) && !(paragraph.length && tableAt(lines, i, opensBlock)); i++)
    paragraph.push(lines[i]!);
  if (!paragraph.length) paragraph.push(lines[i++]!);
  return {
    end: i,
    render: () => {
      const p = bare ? doc.createDocumentFragment() : doc.createElement('p');
      paragraph.forEach((text, n) => {
        if (n) p.append(doc.createElement('br'));
        p.append(inline(text, doc));
      });
      return p;
    },
  };
}

const ITEM = /^([ \t]*)([-*+]|\d+[.)])([ \t]+)/;
// A line that opens a block of its own: it ends a paragraph, and is never a list item's lazy continuation.
const BLOCK_START = /^\s*(```|~~~|>|#{1,6}\s|[-*+]\s|\d+[.)]\s)/;
const BLANK = /^\s*$/;
const opensBlock = (line: string) => BLANK.test(line) || BLOCK_START.test(line);

/** The columns `text` takes, a tab reaching the next multiple of four as in CommonMark. */
function width(text: string): number {
  let columns = 0;
  for (const c of text) columns = c === '\t' ? columns + 4 - (columns % 4) : columns + 1;
  return columns;
}

const indentOf = (line: string): number => width(/^[ \t]*/.exec(line)![0]);

/** The line without up to `columns` of its leading whitespace. */
function dedent(line: string, columns: number): string {
  let cut = 0;
  while (cut < line.length && /[ \t]/.test(line[cut]!) && width(line.slice(0, cut + 1)) <= columns) cut++;
  return line.slice(cut);
}

/** The item that `line` starts, if it is one of a list of this kind (numbered or not) at this indent. */
function sibling(line: string | undefined, ordered: boolean, markerIndent: number): RegExpExecArray | null {
  const head = line === undefined ? null : ITEM.exec(line);
  return head && /\d/.test(head[2]!) === ordered && indentOf(line!) < markerIndent + 2 ? head : null;
}

/**
 * The list that starts at `lines[start]`. Models and skill files
 * hard-wrap their items, so an item keeps what follows its marker line, as in CommonMark: a line indented under the
 * marker by two or more columns (a wrapped line, a paragraph after a blank line, a nested list) and a lazy
 * continuation (an unindented line straight after the item's text that opens no block of its own). An item of the
 * same kind, even after a blank line, stays in the same list, so its number follows.
 */
function list(lines: string[], start: number, doc: Document): Block {
  const [, lead, marker] = ITEM.exec(lines[start]!)!;
  const ordered = /\d/.test(marker!);
  const markerIndent = width(lead!);
  const items: Array<{ number: number; body: string[] }> = [];
  let i = start;
  for (let head = sibling(lines[i], ordered, markerIndent); head; head = sibling(lines[i], ordered, markerIndent)) {
    // The item's text starts after its marker and the spaces that follow (five or more: one, as in CommonMark).
    const markerEnd = width(head[1]! + head[2]!);
    const contentIndent = width(head[0]) - markerEnd > 4 ? markerEnd + 1 : width(head[0]);
    const body = [lines[i]!.slice(head[0].length)];
    for (i++; i < lines.length; i++) {
      const line = lines[i]!;
      if (BLANK.test(line)) {
        let next = i;
        while (next < lines.length && BLANK.test(lines[next]!)) next++;
        // Blank lines stay in the item if an indented line follows them; between two items, in the list.
        if (next < lines.length && indentOf(lines[next]!) >= markerIndent + 2) {
          body.push(...lines.slice(i, next));
          i = next - 1;
          continue;
        }
        if (sibling(lines[next], ordered, markerIndent)) i = next;
        break;
      }
      if (indentOf(line) >= markerIndent + 2) body.push(dedent(line, contentIndent));
      else if (!BLOCK_START.test(line)) body.push(line.trimStart());
      else break;
    }
    items.push({ number: parseInt(head[2]!, 10), body });
  }
  const render = () => {
    const element = doc.createElement(ordered ? 'ol' : 'ul');
    // A list that does not start at 1 (items split by a paragraph) keeps its numbers.
    if (ordered && items[0]!.number !== 1) element.setAttribute('start', String(items[0]!.number));
    let next = items[0]!.number;
    for (const { number, body } of items) {
      const li = doc.createElement('li');
      // A number that skips ahead is kept (a quote of steps 1, 3 and 5 reads so); "1. 1. 1." still counts 1, 2, 3.
      if (ordered && number > next) li.setAttribute('value', String(number));
      next = ordered ? Math.max(next, number) + 1 : next;
      const task = TASK.exec(body[0]!);
      const text = task ? [body[0]!.slice(task[0].length), ...body.slice(1)] : body;
      if (task) {
        li.append(checkbox(task[1] !== ' ', text[0]!, doc));
        li.setAttribute('class', 'task');
        element.setAttribute('class', 'tasks');
      }
      li.append(blocks(text, doc, true));
      element.append(li);
    }
    return element;
  };
  return { end: i, render };
}

// A task list item (GFM): `- [ ] to do`, `- [x] done`.
const TASK = /^\[([ xX])\](?:[ \t]+|$)/;

/**
 * A task's box: shown, not a control (the answer is text; ticking it would change nothing), so disabled — and
 * named by the task's text, which a screen reader says with its state.
 */
function checkbox(done: boolean, text: string, doc: Document): HTMLElement {
  const box = doc.createElement('input');
  box.setAttribute('type', 'checkbox');
  box.setAttribute('disabled', '');
  if (done) box.setAttribute('checked', '');
  box.setAttribute('aria-label', inline(text, doc).textContent?.trim() || locale.t('markdown.task'));
  return box;
}

// Underscore emphasis only at word boundaries, as in CommonMark: snake_case and demo__tool stay as written.
// Link parts are bounded, so hostile text ("[[[[…") cannot make the match take seconds. An address is a link as
// written (`<https://…>`) or bare (GFM's autolinks), never in the middle of a word or a path.
const INLINE =
  /`([^`]+)`|\*\*([^*]+)\*\*|(?<!\w)__([^_]+)__(?!\w)|\*([^*\s][^*]*)\*|(?<!\w)_([^_\s][^_]*)_(?!\w)|~~([^~\n]+)~~|\[([^[\]\n]{1,300})\]\(([^)\s]{1,2048})\)|<((?:https?|mailto):[^\s<>]{1,2048})>|(?<![\w/.@:-])(https?:\/\/[^\s<>]{1,2048})/g;

function inline(text: string, doc: Document): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    fragment.append(text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, code, bold1, bold2, em1, em2, struck, label, href, address, bare] = match;
    if (code !== undefined) fragment.appendChild(doc.createElement('code')).textContent = code;
    else if (bold1 ?? bold2) fragment.appendChild(doc.createElement('strong')).append(inline(bold1 ?? bold2!, doc));
    else if (em1 ?? em2) fragment.appendChild(doc.createElement('em')).append(inline(em1 ?? em2!, doc));
    else if (struck !== undefined) fragment.appendChild(doc.createElement('del')).append(inline(struck, doc));
    else if (label !== undefined) fragment.append(link(label, href!, doc));
    else if (address !== undefined) fragment.append(link(address, address, doc));
    else if (bare !== undefined) {
      // The sentence's punctuation after an address is not part of it, nor a closing parenthesis it did not open.
      let url = bare.replace(/[.,;:!?'"*_~]+$/, '');
      if (url.endsWith(')') && !url.includes('(')) url = url.slice(0, -1);
      fragment.append(link(url, url, doc));
      last -= bare.length - url.length;
    }
  }
  fragment.append(text.slice(last));
  return fragment;
}

function link(label: string, href: string, doc: Document): Node {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return doc.createTextNode(`${label} (${href})`);
  }
  if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) return doc.createTextNode(label);
  const a = doc.createElement('a');
  a.setAttribute('href', url.href);
  a.setAttribute('target', '_blank');
  a.setAttribute('rel', 'noopener noreferrer nofollow');
  // A label that is not the address itself also shows where the link goes.
  a.textContent =
    label === href || label === url.href ? label : `${label} (${url.protocol === 'mailto:' ? url.pathname : url.host})`;
  return a;
}
