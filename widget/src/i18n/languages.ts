import { type ChunkRef, loadChunk } from '../chunk-loader';
import { registered } from './register';
import type { PartialStrings } from './strings';

/*
 * The languages the widget ships strings for. English is strings.ts itself, in the widget; each other language is
 * a chunk of its own (its file here: `de.ts`, …), loaded when a widget on the page speaks it — most pages need one
 * language, and all of them in the widget would more than double its size. German, French, Spanish and Japanese
 * are complete; Arabic and Hebrew cover the chat's shell (header, composer, start screen, conversations, messages,
 * errors), the rest falls back to English key by key. A host adds or completes any with the `strings` property.
 */

/** Each language's chunk beside the widget, as scripts/build-widget.mjs built it (undefined outside a build: tests). */
declare const __MCP_LANGUAGE_CHUNKS__: Readonly<Record<string, ChunkRef>> | undefined;
const chunks: Readonly<Record<string, ChunkRef>> =
  typeof __MCP_LANGUAGE_CHUNKS__ === 'object' && typeof document !== 'undefined' ? __MCP_LANGUAGE_CHUNKS__ : {};

/** Whether the widget has strings for the language: English, a language built as a chunk (every `<lang>.ts` here), or one registered. */
export function shipped(lang: string): boolean {
  return lang === 'en' || chunks[lang] !== undefined || registered()[lang] !== undefined;
}

/** How long a widget waits for its language before it shows English (a chunk that hangs must not hide the chat). */
const LOAD_TIMEOUT_MS = 3_000;

const loads = new Map<string, Promise<boolean>>();
/** Loads that ended without the language: English is shown, and it is not waited for again. */
const missing = new Set<string>();

/** The language's table, if it is here (loaded, or registered by a test). */
export function translation(lang: string): PartialStrings | undefined {
  return lang === 'en' ? {} : registered()[lang];
}

/** Whether the language's strings can still come (shipped, not here yet, not failed): worth waiting for. */
export function coming(lang: string): boolean {
  return !translation(lang) && !missing.has(lang) && chunks[lang] !== undefined;
}

/** Loads the language's chunk, once per page; true when its table is here (false: English it is, quietly). */
export function loadLanguage(lang: string): Promise<boolean> {
  if (translation(lang)) return Promise.resolve(true);
  const ref = chunks[lang];
  if (!ref) return Promise.resolve(false);
  let load = loads.get(lang);
  if (!load) {
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, LOAD_TIMEOUT_MS));
    load = Promise.race([loadChunk(ref), timeout])
      .catch(() => undefined)
      .then(() => {
        const here = translation(lang) !== undefined;
        if (!here) missing.add(lang);
        return here;
      });
    loads.set(lang, load);
  }
  return load;
}
