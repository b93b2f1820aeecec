import { highlightCode } from './code-highlight';
import { fenceLanguage } from './highlight-languages';
import { ENGLISH, type Locale } from './i18n/locale';

/** How long "Copied" shows before the button reads "Copy" again. */
const COPIED_MS = 2_000;

/**
 * A fenced code block: its language (as the fence names it) and a Copy button above the code, which is coloured by
 * the highlighting chunk when the language is one of its own (code-highlight.ts). The code is a text node; the
 * button copies exactly the text between the fences.
 */
export function codeBlock(code: string, info: string, doc: Document, locale: Locale = ENGLISH): HTMLElement {
  const words = locale.group('code');
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
  say(words.copy, words.copyLabel);
  copy.addEventListener('click', async () => {
    clearTimeout(reset);
    try {
      await navigator.clipboard.writeText(code);
      say(words.copied, words.copiedLabel);
    } catch {
      // No clipboard (an insecure page, a permission refused): the code is selected, for Ctrl+C.
      doc.getSelection()?.selectAllChildren(text);
      say(words.copyFailed, words.copyFailedLabel);
    }
    reset = setTimeout(() => say(words.copy, words.copyLabel), COPIED_MS);
  });
  head.append(name, copy);
  block.append(head, pre);
  if (language) highlightCode(text, language);
  return block;
}
