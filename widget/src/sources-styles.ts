/**
 * The sources' look (sources.ts): the list under an answer, the citations in its text, and the panel — at the chat's
 * side, or a sheet from its bottom when the chat is narrow (a container query on the layer: the panel follows the
 * widget's width, not the page's). The layer is positioned, so its containment never sizes the chat.
 */
export const SOURCES_STYLES = `
.sources { margin: .5em 0 .2em; font-size: .88em; }
.sources h4 { margin: 0 0 4px; font-size: .85em; color: var(--mcp-muted); font-weight: 600; }
.sources ol { margin: 0; padding-inline-start: 1.6em; display: flex; flex-direction: column; gap: 2px; }
button.source { font: inherit; text-align: start; border: 0; background: none; padding: 2px 4px; border-radius: 4px; cursor: pointer; color: var(--mcp-accent); display: inline-flex; flex-wrap: wrap; gap: 0 6px; align-items: baseline; }
button.source:hover .source-title { text-decoration: underline; }
button.source .meta { color: var(--mcp-muted); }
button.cite { font: inherit; border: 0; background: none; padding: 0; color: var(--mcp-accent); cursor: pointer; text-decoration: underline; text-underline-offset: 2px; overflow-wrap: anywhere; text-align: start; }
button.cite sup { font-size: .75em; margin-inline-start: 1px; text-decoration: none; }
.source-layer { position: absolute; inset: 0; pointer-events: none; z-index: 4; container-type: inline-size; }
/* Nothing over the chat while no panel is open (a layer over the text, even a transparent one, hides its colours from a contrast check). */
.source-layer:empty { display: none; }
.source-panel { pointer-events: auto; position: absolute; inset-block: 0; inset-inline-end: 0; width: min(420px, 85%); display: flex; flex-direction: column; gap: 6px; padding: 10px 14px; background: var(--mcp-bg); border-inline-start: 1px solid var(--mcp-border); box-shadow: -6px 0 24px var(--mcp-shadow); overflow-y: auto; }
.source-head { display: flex; align-items: flex-start; gap: 8px; }
.source-head h3 { margin: 0; flex: 1; font-size: 1em; overflow-wrap: anywhere; }
.source-panel dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 0; font-size: .85em; }
.source-panel dt { color: var(--mcp-muted); }
.source-panel dd { margin: 0; overflow-wrap: anywhere; }
.source-panel h4 { margin: 6px 0 0; font-size: .85em; color: var(--mcp-muted); font-weight: 600; }
.source-panel h5 { margin: 4px 0 0; font-size: .82em; font-weight: 600; }
.source-text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--mcp-assistant-bg); border: 1px solid var(--mcp-border); border-radius: 6px; padding: 6px 8px; font-size: .85em; }
@container (max-width: 480px) {
  .source-panel { top: auto; inset-inline-start: 0; width: 100%; max-height: 80%; border-inline-start: 0; border-top: 1px solid var(--mcp-border); border-radius: var(--mcp-radius) var(--mcp-radius) 0 0; box-shadow: 0 -6px 24px var(--mcp-shadow); }
}
`;
