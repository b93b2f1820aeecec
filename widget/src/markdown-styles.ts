// The code colours on a dark background (GitHub's dark palette).
const DARK_CODE = `
  --mcp-code-keyword: #ff7b72;
  --mcp-code-string: #a5d6ff;
  --mcp-code-comment: #8b949e;
  --mcp-code-number: #79c0ff;
  --mcp-code-title: #d2a8ff;
  --mcp-code-type: #ffa657;
  --mcp-code-attr: #79c0ff;
  --mcp-code-meta: #8b949e;
  --mcp-code-addition: #aff5b4;
  --mcp-code-addition-bg: #033a16;
  --mcp-code-deletion: #ffdcd7;
  --mcp-code-deletion-bg: #67060c;
`;

/**
 * The look of rendered markdown's tables, task lists and code blocks (styles.ts adds it to the widget's sheet).
 * Every colour is a custom property a host may set, with a light value here and a dark one for `theme="dark"` (and
 * `theme="auto"` under a dark `prefers-color-scheme`); the light values are 4.5:1 or more on the code background.
 */
export const MARKDOWN_STYLES = `
:host {
  --mcp-code-bg: var(--mcp-step-bg);
  --mcp-code-fg: var(--mcp-fg);
  --mcp-code-keyword: #cf222e;
  --mcp-code-string: #0a3069;
  --mcp-code-comment: #57606a;
  --mcp-code-number: #0550ae;
  --mcp-code-title: #6639ba;
  --mcp-code-type: #953800;
  --mcp-code-attr: #0550ae;
  --mcp-code-meta: #57606a;
  --mcp-code-addition: #116329;
  --mcp-code-addition-bg: #dafbe1;
  --mcp-code-deletion: #82071e;
  --mcp-code-deletion-bg: #ffebe9;
  --mcp-table-head-bg: var(--mcp-assistant-bg);
}
:host([theme="dark"]) {${DARK_CODE}}
@media (prefers-color-scheme: dark) {
  :host([theme="auto"]) {${DARK_CODE}}
}
/* A message with a table takes the room it has, and the table scrolls sideways inside it: its width never becomes
   the message's least width (a host that sizes the widget by its content would grow past a phone's screen). */
.msg:has(.table-wrap) { width: 92%; }
.table-wrap { overflow-x: auto; contain: inline-size; margin: .35em 0; }
.table-wrap table { border-collapse: collapse; overflow-wrap: normal; font-size: .95em; }
.table-wrap th, .table-wrap td { border: 1px solid var(--mcp-border); padding: 4px 8px; text-align: start; vertical-align: top; max-width: 28em; }
.table-wrap th { background: var(--mcp-table-head-bg); font-weight: 600; }
.table-wrap th.prose { min-width: 12em; }
.table-wrap [data-align="center"] { text-align: center; }
.table-wrap [data-align="right"] { text-align: end; }
.table-wrap [data-align="left"] { text-align: start; }
.msg ul.tasks { padding-inline-start: 1.4em; }
.msg li.task { list-style: none; }
.msg li.task > input { margin: 0 .4em 0 -1.3em; vertical-align: -2px; }
.msg del { color: var(--mcp-muted); }
.code-block { margin: .35em 0; border: 1px solid var(--mcp-border); border-radius: 6px; background: var(--mcp-code-bg); color: var(--mcp-code-fg); }
.code-head { display: flex; align-items: center; gap: 8px; padding: 2px 4px 2px 8px; border-bottom: 1px solid var(--mcp-border); font-size: .8em; color: var(--mcp-muted); }
.code-lang { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.code-copy { font: inherit; border: 1px solid transparent; border-radius: 6px; background: none; color: var(--mcp-accent); padding: 2px 8px; cursor: pointer; }
.code-copy:hover { border-color: var(--mcp-border); }
.msg .code-block pre { margin: 0; border: 0; border-radius: 0 0 6px 6px; background: none; }
.hl-keyword, .hl-selector-tag, .hl-doctag, .hl-template-tag { color: var(--mcp-code-keyword); }
.hl-string, .hl-regexp, .hl-char { color: var(--mcp-code-string); }
.hl-comment, .hl-quote { color: var(--mcp-code-comment); font-style: italic; }
.hl-number, .hl-literal, .hl-symbol, .hl-bullet, .hl-variable.constant_ { color: var(--mcp-code-number); }
.hl-title, .hl-section, .hl-name { color: var(--mcp-code-title); }
.hl-built_in, .hl-type, .hl-title.class_ { color: var(--mcp-code-type); }
.hl-attr, .hl-attribute, .hl-property, .hl-selector-class, .hl-selector-id, .hl-selector-attr, .hl-selector-pseudo, .hl-variable, .hl-template-variable { color: var(--mcp-code-attr); }
.hl-meta, .hl-meta .hl-keyword { color: var(--mcp-code-meta); }
.hl-addition { color: var(--mcp-code-addition); background: var(--mcp-code-addition-bg); }
.hl-deletion { color: var(--mcp-code-deletion); background: var(--mcp-code-deletion-bg); }
.hl-emphasis { font-style: italic; }
.hl-strong { font-weight: 600; }
`;
