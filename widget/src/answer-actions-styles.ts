/** The row of actions under a finished answer (answer-actions.ts): small, quiet buttons that wrap on a phone. */
export const ACTIONS_STYLES = `
.answer-actions { margin: .35em 0 0; display: flex; flex-direction: column; gap: 6px; }
.action-row { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; }
button.action { font: inherit; font-size: .82em; line-height: 1.2; min-height: 28px; padding: 3px 9px; border: 1px solid var(--mcp-border); border-radius: 999px; background: var(--mcp-bg); color: var(--mcp-muted); cursor: pointer; }
button.action:hover { color: var(--mcp-fg); border-color: var(--mcp-field-border); }
button.action svg { width: 16px; height: 16px; vertical-align: -3px; fill: none; stroke: currentColor; stroke-width: 2; stroke-linecap: round; stroke-linejoin: round; }
button.action[data-rating="down"] svg { transform: rotate(180deg); }
button.action[aria-pressed="true"] svg { fill: color-mix(in srgb, currentColor 20%, transparent); }
button.action[aria-pressed="true"] { color: var(--mcp-accent); border-color: var(--mcp-accent); background: var(--mcp-user-bg); }
.action-note { font-size: .8em; color: var(--mcp-muted); }
.action-note:empty { display: none; }
.feedback-form { display: flex; flex-direction: column; gap: 6px; max-width: 32em; }
.feedback-form label { font-size: .85em; }
.feedback-form textarea { flex: none; min-height: 0; font-size: .92em; }
`;
