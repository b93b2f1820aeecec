import { highlightCode } from './code-highlight';
import { fenceLanguage } from './highlight-languages';

/** The code blocks' words (one table, for translation). */
export const CODE_TEXT = {
  copy: 'Copy',
  copyLabel: 'Copy code',
  copied: 'Copied',
  copiedLabel: 'Code copied',
  copyFailed: 'Copy failed',
  copyFailedLabel: 'Copy failed: the code is selected, copy it with the keyboard',
} as const;

/** How long "Copied" shows before the button reads "Copy" again. */
const COPIED_MS = 2_000;

/**
 * A fenced code block: its language (as the fence names it) and a Copy button above the code, which is coloured by
 * the highlighting chunk when the language is one of its own (code-highlight.ts). The code is a text node; the
 * button copies exactly the text between the fences.
 */
export function codeBlock(code: string, info: string, doc: Document): HTMLElement {
  const language = fenceLanguage(info);
  const block = doc.createElement('div');
  block.setAttribute('class', 'code-block');
  block.setAttribute('part', 'code-block');
  const head = doc.createElement('div');
  head.setAttribute('class', 'code-head');
  const name = doc.createElement('span');
  name.setAttribute('class', 'code-lang');
  name.textContent = language;
  const copy = doc.createElement('button');
  copy.setAttribute('type', 'button');
  copy.setAttribute('class', 'code-copy');
  copy.setAttribute('part', 'code-copy');
  const pre = doc.createElement('pre');
  const text = pre.appendChild(doc.createElement('code'));
  text.textContent = code;
  if (language) text.setAttribute('class', `language-${language}`);
  let reset: ReturnType<typeof setTimeout> | undefined;
  const say = (visible: string, label: string) => {
    copy.textContent = visible;
    copy.setAttribute('aria-label', label);
    copy.setAttribute('title', label);
  };
  say(CODE_TEXT.copy, CODE_TEXT.copyLabel);
  copy.addEventListener('click', async () => {
    clearTimeout(reset);
    try {
      await navigator.clipboard.writeText(code);
      say(CODE_TEXT.copied, CODE_TEXT.copiedLabel);
    } catch {
      // No clipboard (an insecure page, a permission refused): the code is selected, for Ctrl+C.
      doc.getSelection()?.selectAllChildren(text);
      say(CODE_TEXT.copyFailed, CODE_TEXT.copyFailedLabel);
    }
    reset = setTimeout(() => say(CODE_TEXT.copy, CODE_TEXT.copyLabel), COPIED_MS);
  });
  head.append(name, copy);
  block.append(head, pre);
  if (language) highlightCode(text, language);
  return block;
}
