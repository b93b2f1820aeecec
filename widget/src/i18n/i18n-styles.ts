/**
 * What logical properties cannot say, for a right-to-left language (`dir="rtl"` on the chat, set from its `lang`):
 * shadows that mark a side (the selected option's bar, the current conversation's, the thread panel's and the source panel's edges) move
 * to the other side, and code stays left to right wherever it sits. Everything else in the widget's CSS is
 * written with logical properties (`margin-inline-start`, `inset-inline`, `text-align: start`) and mirrors itself.
 * And the chat stays hidden while its language's strings load (a moment: i18n/languages.ts). Added to STYLES
 * (styles.ts), in the same constructed stylesheet.
 */
export const I18N_STYLES = `
.chat[data-language-loading] { visibility: hidden; }
.chat[dir="rtl"] [role="option"][aria-selected="true"] { box-shadow: inset -3px 0 0 var(--mcp-accent); }
.chat[dir="rtl"] .thread-open[aria-current="true"] { box-shadow: inset -3px 0 0 var(--mcp-accent); }
@media (min-width: 481px) { .chat[dir="rtl"] .threads { box-shadow: -4px 0 24px var(--mcp-shadow); } }
.chat[dir="rtl"] .source-panel { box-shadow: 6px 0 24px var(--mcp-shadow); }
@container (max-width: 480px) { .chat[dir="rtl"] .source-panel { box-shadow: 0 -6px 24px var(--mcp-shadow); } }
.chat[dir="rtl"] pre, .chat[dir="rtl"] code { direction: ltr; unicode-bidi: isolate; }
.chat[dir="rtl"] pre { text-align: left; }
`;
