import { type ChunkRef, loadChunk } from './chunk-loader';
import { HIGHLIGHTED_LANGUAGES, HIGHLIGHTER_KEY, type Highlighter } from './highlight-languages';

/**
 * Colours code blocks with the highlighting chunk, which the widget loads the first time an answer shows a block in
 * one of its languages — not before: most answers have no code, and the chunk (highlight.js's grammars) is about as
 * big as the rest of the widget. Until it arrives a block is plain text; when it does, the blocks still on screen
 * are coloured in place (no re-render: what the person selected or focused stays). A chunk that cannot be had
 * (offline, a CSP or Trusted Types policy that refuses it, an old pinned widget whose chunk was removed) leaves
 * the code plain, quietly.
 *
 * The chunk is a classic script next to the widget, on a path that changes with its bytes, added with its
 * `integrity` (both built into the widget by scripts/build-widget.mjs): a widget pinned with SRI therefore pins
 * its chunk too, and a host CSP that lets the widget's script in lets the chunk in (same origin; the widget
 * script's nonce is passed on).
 */

declare const __MCP_HIGHLIGHT_CHUNK__: string | undefined;
declare const __MCP_HIGHLIGHT_INTEGRITY__: string | undefined;

const chunk: ChunkRef | undefined =
  typeof __MCP_HIGHLIGHT_CHUNK__ === 'string' && typeof document !== 'undefined'
    ? {
        path: __MCP_HIGHLIGHT_CHUNK__,
        integrity: typeof __MCP_HIGHLIGHT_INTEGRITY__ === 'string' ? __MCP_HIGHLIGHT_INTEGRITY__ : '',
      }
    : undefined;

type Global = Record<symbol, Highlighter | undefined>;
let highlighter = (globalThis as Global)[HIGHLIGHTER_KEY];
let state: 'idle' | 'loading' | 'failed' = 'idle';
/** Blocks rendered while the chunk loads (a streaming answer renders each frame anew: most will have left). */
const waiting = new Map<HTMLElement, string>();

/** Colours `code` (a `<code>` element) as `language`: now if the chunk is here, else once it has loaded. */
export function highlightCode(code: HTMLElement, language: string): void {
  if (!HIGHLIGHTED_LANGUAGES.has(language)) return;
  if (highlighter) {
    highlighter.paint(code, language);
    return;
  }
  if (!chunk || state === 'failed') return;
  waiting.set(code, language);
  if (state === 'idle') load(chunk);
}

function load(from: ChunkRef): void {
  state = 'loading';
  const failed = () => {
    state = 'failed';
    waiting.clear();
  };
  loadChunk(from).then(() => {
    highlighter = (globalThis as Global)[HIGHLIGHTER_KEY];
    if (!highlighter) return failed();
    for (const [code, language] of waiting) if (code.isConnected) highlighter.paint(code, language);
    waiting.clear();
  }, failed);
}
