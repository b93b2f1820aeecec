import { THEME_STYLES } from './theme';

/**
 * The look of the chat's shell: the start screen (start-screen.ts), the
 * thread list (threads.ts: a side panel on a wide chat, a full sheet on a
 * phone), the header's icon buttons, and the dark theme (theme.ts). Added
 * to STYLES (styles.ts), in the same constructed stylesheet.
 */
export const SHELL_STYLES = `
.start { display: flex; flex-direction: column; align-items: stretch; gap: 8px; width: 100%; max-width: 34em; text-align: start; }
.start-greeting { margin: 0; font-size: 1.25em; color: var(--mcp-fg); }
.start-intro, .start-help { margin: 0; }
.start-heading { margin: 6px 0 2px; font-size: .8em; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; }
.start-list { list-style: none; margin: 0; padding: 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 14em), 1fr)); gap: 8px; }
.start-choice { font: inherit; width: 100%; height: 100%; text-align: start; display: flex; flex-direction: column; gap: 2px; padding: 8px 12px; border: 1px solid var(--mcp-border); border-radius: 8px; background: var(--mcp-assistant-bg); color: var(--mcp-fg); cursor: pointer; }
.start-choice:hover { border-color: var(--mcp-accent); }
.start-choice .detail { font-size: .85em; color: var(--mcp-muted); }
button.icon { flex: none; display: inline-flex; align-items: center; justify-content: center; min-width: 32px; height: 32px; padding: 0 6px; border: 1px solid transparent; border-radius: 8px; background: transparent; color: var(--mcp-fg); cursor: pointer; font: inherit; font-size: 1.2em; line-height: 1; }
button.icon:hover { border-color: var(--mcp-border); }
button.icon svg { fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; }
button.danger { font: inherit; border-radius: 8px; padding: 6px 12px; cursor: pointer; border: 1px solid var(--mcp-error); background: var(--mcp-error); color: var(--mcp-bg); }
.threads { position: absolute; inset-block: 0; inset-inline-start: 0; z-index: 4; width: min(340px, 100%); display: flex; flex-direction: column; gap: 6px; padding: 10px 12px; background: var(--mcp-bg); border-inline-end: 1px solid var(--mcp-border); box-shadow: 4px 0 24px var(--mcp-shadow); overflow-y: auto; }
.threads-head { display: flex; align-items: center; gap: 8px; }
.threads-head h3 { margin: 0; font-size: 1em; flex: 1; }
.threads-list { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
.thread { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; padding: 4px; border-radius: 8px; }
.thread:hover, .thread:focus-within { background: var(--mcp-assistant-bg); }
.thread-open { font: inherit; flex: 1; min-width: 0; display: flex; flex-direction: column; align-items: flex-start; gap: 1px; text-align: start; padding: 4px 6px; border: 0; border-radius: 6px; background: transparent; color: var(--mcp-fg); cursor: pointer; }
.thread-open[aria-current="true"] { box-shadow: inset 3px 0 0 var(--mcp-accent); font-weight: 600; }
.thread-title { overflow-wrap: anywhere; }
.thread-open .meta { font-weight: 400; }
.thread-rename, .thread-confirm { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; width: 100%; }
.thread-rename input { font: inherit; flex: 1; min-width: 8em; padding: 4px 8px; border: 1px solid var(--mcp-field-border); border-radius: 6px; color: inherit; background: var(--mcp-bg); }
.thread-confirm p { margin: 0; width: 100%; }
.threads-status:empty { display: none; }
@media (max-width: 480px) { .threads { width: 100%; border-inline-end: 0; box-shadow: none; } }
${THEME_STYLES}`;
