import type { PartialStrings } from './strings';

/**
 * Where the shipped translations are kept once loaded: a language's chunk (scripts/build-widget.mjs bundles each
 * translation file with this module) registers its table here, under a key of the global object no page script
 * uses by accident; the widget reads it (languages.ts). Tests register tables directly.
 */
const LANGUAGES_KEY = Symbol.for('mcp-ondemand-chat.languages.v1');

export function registered(): Record<string, PartialStrings> {
  const global = globalThis as unknown as Record<symbol, Record<string, PartialStrings> | undefined>;
  global[LANGUAGES_KEY] ??= {};
  return global[LANGUAGES_KEY];
}

export function registerLanguage(lang: string, table: PartialStrings): void {
  registered()[lang] = table;
}
