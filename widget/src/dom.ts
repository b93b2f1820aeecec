type Child = Node | string | null | undefined | false;

/**
 * Builds an element. Strings become text nodes, never markup; attributes are
 * set one by one; `on*` functions become listeners. The widget builds all of
 * its DOM this way, so no text from the service is ever parsed as HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | EventListener | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2).toLowerCase(), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

let counter = 0;
/** A document-unique id, for aria-controls / aria-activedescendant. */
export const uid = (prefix: string) => `mcp-${prefix}-${++counter}`;

/** A one-path line drawing (an icon): its button's label names it, so it is hidden from screen readers. */
export function svgIcon(d: string, size: number): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  for (const [k, v] of Object.entries({ viewBox: '0 0 24 24', width: size, height: size, 'aria-hidden': 'true' }))
    svg.setAttribute(k, String(v));
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}
