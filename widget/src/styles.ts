import { I18N_STYLES } from './i18n/i18n-styles';
import { MARKDOWN_STYLES } from './markdown-styles';
import { SHELL_STYLES } from './shell-styles';
import { ACTIONS_STYLES } from './answer-actions-styles';
import { SOURCES_STYLES } from './sources-styles';

/**
 * The widget's look, inside its shadow root. Everything a host may want to
 * change is a CSS custom property (set them on the element or any ancestor);
 * ::part() names are exported for deeper changes. Applied as a constructed
 * stylesheet, so a host CSP without 'unsafe-inline' styles does not block it.
 * The dark values of the colours are in theme.ts (`theme="dark" | "auto"`).
 */
export const STYLES =
  `
:host {
  --mcp-font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  --mcp-font-size: 14px;
  --mcp-bg: #ffffff;
  --mcp-fg: #1d2330;
  --mcp-muted: #5d6678;
  --mcp-border: #d9dde6;
  /* Borders of fields: 3:1 against the background (WCAG 1.4.11). */
  --mcp-field-border: #858d9f;
  --mcp-accent: #3451b2;
  --mcp-accent-fg: #ffffff;
  --mcp-user-bg: #eef1fb;
  --mcp-assistant-bg: #f7f8fa;
  --mcp-step-bg: #ffffff;
  --mcp-error: #b3261e;
  --mcp-error-bg: #fdecea;
  --mcp-success: #2e7d4f;
  --mcp-warning: #b26a00;
  /* Behind a tool's view (MCP Apps): a view that paints no background of its own shows this. */
  --mcp-view-bg: #ffffff;
  --mcp-shadow: rgba(0, 0, 0, .12);
  --mcp-radius: 10px;
  --mcp-height: 560px;
  display: block;
  height: var(--mcp-height);
  font: var(--mcp-font-size)/1.45 var(--mcp-font);
  color: var(--mcp-fg);
  /* Scrollbars and form controls follow the theme. */
  color-scheme: light;
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.chat { display: flex; flex-direction: column; height: 100%; background: var(--mcp-bg); border: 1px solid var(--mcp-border); border-radius: var(--mcp-radius); overflow: hidden; position: relative; }
header { display: flex; align-items: center; gap: 8px; padding: 10px 14px; border-bottom: 1px solid var(--mcp-border); }
header h2 { font-size: 1em; margin: 0; flex: 1; }
.status { color: var(--mcp-muted); font-size: .85em; }
.log { flex: 1; overflow-y: auto; padding: 12px 14px; display: flex; flex-direction: column; gap: 10px; }
.empty { color: var(--mcp-muted); margin: auto; text-align: center; max-width: 32em; }
.msg { max-width: 92%; padding: 8px 12px; border-radius: var(--mcp-radius); overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--mcp-user-bg); }
.msg.assistant { align-self: flex-start; background: var(--mcp-assistant-bg); }
.msg p, .msg ul, .msg ol, .msg blockquote, .msg pre { margin: .35em 0; }
.msg blockquote { border-inline-start: 3px solid var(--mcp-border); padding-inline-start: 10px; color: var(--mcp-muted); }
.msg pre { background: var(--mcp-step-bg); border: 1px solid var(--mcp-border); border-radius: 6px; padding: 6px 8px; overflow-x: auto; white-space: pre-wrap; font-size: .9em; }
.msg code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .92em; }
.msg a { color: var(--mcp-accent); }
.meta { font-size: .8em; color: var(--mcp-muted); }
.chips { display: flex; flex-wrap: wrap; gap: 6px; }
.chip { display: inline-flex; align-items: center; gap: 6px; border: 1px solid var(--mcp-border); border-radius: 999px; padding: 2px 10px; font-size: .85em; background: var(--mcp-step-bg); }
.chip button { border: 0; background: none; cursor: pointer; color: var(--mcp-muted); padding: 0 2px; font-size: 1.1em; line-height: 1; }
.chip.file { max-width: 100%; }
.chip.file .name { overflow-wrap: anywhere; }
.chip.file progress { width: 56px; height: 6px; accent-color: var(--mcp-accent); }
button.attach { flex: none; display: inline-flex; align-items: center; justify-content: center; width: 40px; height: 40px; border: 1px solid var(--mcp-field-border); border-radius: 8px; background: var(--mcp-bg); color: var(--mcp-muted); cursor: pointer; }
button.attach svg { fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; }
.drop-hint { display: none; position: absolute; inset: 0; z-index: 3; align-items: center; justify-content: center; background: color-mix(in srgb, var(--mcp-bg) 85%, transparent); border: 2px dashed var(--mcp-accent); border-radius: var(--mcp-radius); color: var(--mcp-accent); font-weight: 600; pointer-events: none; }
.chat[data-drop] .drop-hint { display: flex; }
.step { border: 1px solid var(--mcp-border); border-radius: 8px; background: var(--mcp-step-bg); margin: .35em 0; font-size: .88em; }
.step summary { cursor: pointer; padding: 4px 8px; color: var(--mcp-muted); list-style-position: inside; }
.step[data-status="error"] summary, .step[data-status="denied"] summary { color: var(--mcp-error); }
.step pre { margin: 0 8px 8px; max-height: 240px; overflow: auto; }
.step h4 { margin: 6px 8px 2px; font-size: .85em; color: var(--mcp-muted); font-weight: 600; }
.step .code-block { margin: 0 8px 8px; }
.step .code-block pre { max-height: none; }
.step p.meta { margin: 0 8px 8px; }
.program-calls { margin: 0 8px 8px; padding-inline-start: 20px; overflow-wrap: anywhere; }
.program-calls .call-error { color: var(--mcp-error); }
.approval { border: 1px solid var(--mcp-accent); border-radius: 8px; padding: 8px; margin: .35em 0; background: var(--mcp-step-bg); }
.approval p { margin: 0 0 6px; font-weight: 600; }
.approval pre { margin: 0 0 8px; }
.approval p.changed { font-weight: 400; color: var(--mcp-error); background: var(--mcp-error-bg); padding: 4px 8px; border-radius: 6px; }
.task-card { border: 1px solid var(--mcp-border); border-inline-start: 3px solid var(--mcp-accent); border-radius: 8px; padding: 6px 10px; margin: .35em 0; background: var(--mcp-step-bg); font-size: .9em; display: flex; flex-direction: column; gap: 4px; min-width: min(300px, 100%); }
.task-card[data-status="completed"] { border-inline-start-color: var(--mcp-success); }
.task-card[data-status="failed"], .task-card[data-status="cancelled"] { border-inline-start-color: var(--mcp-error); }
.task-card[data-status="input_required"] { border-inline-start-color: var(--mcp-warning); }
.task-head { display: flex; align-items: baseline; gap: 6px; flex-wrap: wrap; }
.task-head .badge { margin-inline-start: auto; font-size: .85em; padding: 0 8px; border-radius: 999px; border: 1px solid var(--mcp-border); color: var(--mcp-muted); }
.task-card .task-detail { margin: 0; }
.task-card progress { width: 100%; height: 6px; accent-color: var(--mcp-accent); }
.task-foot { display: flex; align-items: center; gap: 8px; color: var(--mcp-muted); font-variant-numeric: tabular-nums; }
.task-foot button { margin-inline-start: auto; }
/* Nothing of the transcript asks for a width of its own: a fixed width would become the least width of the widget, and a
   host whose layout sizes it by its content (a grid track, a flex item) would grow past a phone's screen to fit it. A
   message with a view takes the room it has instead; the view is at most 560 px wide. */
.msg:has(.app-view) { width: 92%; }
.app-view { margin: .35em 0; width: 100%; max-width: 560px; }
.view-frame { display: block; width: 100%; border: 1px solid var(--mcp-border); border-radius: 8px; background: var(--mcp-view-bg); }
.view-frame.bare { border: 0; background: transparent; }
.row { display: flex; gap: 8px; flex-wrap: wrap; }
button.primary, button.secondary { font: inherit; border-radius: 8px; padding: 6px 12px; cursor: pointer; border: 1px solid var(--mcp-accent); }
button.primary { background: var(--mcp-accent); color: var(--mcp-accent-fg); }
button.secondary { background: transparent; color: var(--mcp-accent); }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 2px solid var(--mcp-accent); outline-offset: 2px; }
.notice { font-size: .85em; color: var(--mcp-muted); align-self: center; }
.alert { margin: 0 14px 8px; padding: 8px 12px; border-radius: 8px; background: var(--mcp-error-bg); color: var(--mcp-error); display: flex; gap: 10px; align-items: flex-start; }
.alert div { flex: 1; }
.alert strong { display: block; }
.composer { border-top: 1px solid var(--mcp-border); padding: 8px 14px 12px; display: flex; flex-direction: column; gap: 6px; position: relative; }
.input-row { display: flex; gap: 8px; align-items: flex-end; }
textarea { flex: 1; min-width: 0; resize: none; font: inherit; color: inherit; background: var(--mcp-bg); border: 1px solid var(--mcp-field-border); border-radius: 8px; padding: 8px 10px; min-height: 40px; max-height: 140px; }
.hint { font-size: .8em; color: var(--mcp-muted); }
[role="listbox"] { list-style: none; margin: 0; padding: 4px; border: 1px solid var(--mcp-border); border-radius: 8px; background: var(--mcp-bg); box-shadow: 0 6px 24px var(--mcp-shadow); max-height: 240px; overflow-y: auto; }
.menu { position: absolute; inset-inline: 14px; bottom: 100%; z-index: 2; }
[role="option"] { padding: 6px 8px; border-radius: 6px; cursor: pointer; }
[role="option"][aria-selected="true"] { background: var(--mcp-user-bg); box-shadow: inset 3px 0 0 var(--mcp-accent); }
[role="option"][aria-disabled="true"] { color: var(--mcp-error); cursor: default; }
[role="option"] .detail { display: block; font-size: .82em; color: var(--mcp-muted); }
[role="listbox"] .group { padding: 6px 8px 2px; font-size: .75em; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; color: var(--mcp-muted); }
.form { border: 1px solid var(--mcp-border); border-radius: 8px; padding: 10px; display: flex; flex-direction: column; gap: 8px; background: var(--mcp-assistant-bg); }
.form h3 { margin: 0; font-size: 1em; }
.form label { display: flex; flex-direction: column; gap: 2px; font-size: .88em; position: relative; }
.form input { font: inherit; padding: 6px 8px; border: 1px solid var(--mcp-field-border); border-radius: 6px; color: inherit; background: var(--mcp-bg); }
.form [role="listbox"] { max-height: 150px; }
.form .error { color: var(--mcp-error); font-size: .85em; }
.preview { white-space: pre-wrap; background: var(--mcp-bg); border: 1px solid var(--mcp-border); border-radius: 6px; padding: 6px 8px; max-height: 160px; overflow: auto; font-size: .88em; margin: 0; }
.connect-cards { margin: 0 14px 8px; display: flex; flex-direction: column; gap: 6px; }
.connect { border: 1px solid var(--mcp-accent); border-radius: 8px; padding: 8px 10px; background: var(--mcp-step-bg); }
.connect p { margin: 0 0 6px; }
.connect[data-state="connected"] { border-color: var(--mcp-border); }
.connect[data-state="failed"] .note { color: var(--mcp-error); }
.connect .note { font-size: .9em; }
button.small { padding: 2px 10px; font-size: .85em; }
.accounts { padding: 8px 14px; border-bottom: 1px solid var(--mcp-border); background: var(--mcp-assistant-bg); }
.accounts h3 { margin: 0 0 6px; font-size: .95em; }
.accounts ul { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px; }
.accounts li { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.accounts li .meta { flex: 1; }
.accounts p:empty { display: none; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
${MARKDOWN_STYLES}
${ACTIONS_STYLES}
${SOURCES_STYLES}
` +
  SHELL_STYLES +
  I18N_STYLES;
