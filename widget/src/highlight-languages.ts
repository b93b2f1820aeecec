// What the widget and its lazily loaded highlighting chunk agree on: the key the chunk registers under, what it
// offers, and the languages it has.

/** The chunk hands its highlighter over under this key of the global object (Symbol.for: one per page, whoever asks). */
export const HIGHLIGHTER_KEY = Symbol.for('mcp-ondemand-chat.highlighter.v1');

export interface Highlighter {
  /** Replaces the text of a `<code>` element with its tokens as spans; false if the language is not the chunk's. */
  paint(code: HTMLElement, language: string): boolean;
}

/**
 * The languages the highlighting chunk (highlight-chunk.ts) colours, by every name a model writes after a fence
 * (its grammar's name and aliases, as highlight.js knows them). Kept in the widget itself, so that a code block in
 * another language never loads the chunk; highlighter.test.ts checks that each name is one the chunk knows.
 */
export const HIGHLIGHTED_LANGUAGES: ReadonlySet<string> = new Set([
  'javascript',
  'js',
  'jsx',
  'mjs',
  'cjs',
  'typescript',
  'ts',
  'tsx',
  'mts',
  'cts',
  'json',
  'python',
  'py',
  'bash',
  'sh',
  'zsh',
  'shell',
  'console',
  'sql',
  'html',
  'xml',
  'svg',
  'css',
  'yaml',
  'yml',
  'go',
  'golang',
  'java',
  'diff',
  'patch',
]);

/** The language a fence's info string names (its first word, as highlight.js looks names up), or ''. */
export function fenceLanguage(info: string): string {
  return /^[\w+#.-]{1,40}/.exec(info.trim())?.[0].toLowerCase() ?? '';
}
