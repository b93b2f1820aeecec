import type { ElementContent, Root } from 'hast';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { createLowlight } from 'lowlight';

/**
 * Code as highlight.js tokens, never as HTML: lowlight runs highlight.js's grammars and hands back the tokens as a
 * tree (hast) — elements with class names, and text — which `paint` turns into spans and text nodes. So the model's
 * code is only ever text, and the class names come from the grammars (`hl-keyword`, `hl-string`, …), not from it.
 * Only the common languages are here (HIGHLIGHTED_LANGUAGES names them for the widget): this module is the lazily
 * loaded chunk's, and each grammar is bytes a phone downloads.
 */
const lowlight = createLowlight({
  bash,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  python,
  shell,
  sql,
  typescript,
  xml,
  yaml,
});

/** Above this, a block stays plain text: highlighting runs on every frame while an answer streams. */
export const MAX_HIGHLIGHTED_CHARS = 50_000;

// Finished blocks are re-rendered on each frame of a streaming answer: their tokens are kept, not computed again.
const recent = new Map<string, Root>();
const RECENT_MAX = 64;

/** The tokens of `code` in `language`, or undefined for a language the chunk does not have (or code too long). */
export function tokens(code: string, language: string): Root | undefined {
  if (code.length > MAX_HIGHLIGHTED_CHARS || !lowlight.registered(language)) return undefined;
  const key = `${language}\n${code}`;
  let tree = recent.get(key);
  if (!tree) {
    tree = lowlight.highlight(language, code, { prefix: 'hl-' });
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value!);
  } else recent.delete(key);
  recent.set(key, tree);
  return tree;
}

/** Replaces the text of `code` (a `<code>` element) with its tokens: false if the language is not one of ours. */
export function paint(code: HTMLElement, language: string): boolean {
  const tree = tokens(code.textContent ?? '', language);
  if (!tree) return false;
  const doc = code.ownerDocument;
  const build = (node: ElementContent): Node => {
    if (node.type === 'text') return doc.createTextNode(node.value);
    if (node.type !== 'element') return doc.createTextNode('');
    const span = doc.createElement('span');
    const names = node.properties.className;
    if (Array.isArray(names)) span.className = names.join(' ');
    span.append(...node.children.map(build));
    return span;
  };
  code.replaceChildren(...tree.children.map((node) => build(node as ElementContent)));
  code.dataset.highlighted = language;
  return true;
}

export const registered = (language: string): boolean => lowlight.registered(language);
