/**
 * The widget's theme: `theme="light" | "dark" | "auto"` (default light; auto
 * follows the system's `prefers-color-scheme`, live). The colours themselves
 * are CSS (THEME_STYLES below, keyed on the host's attribute), so a host's own
 * `--mcp-*` values on the element still win in either theme; this module only
 * tells the parts that cannot read CSS — MCP Apps views, through their host
 * context — which theme is showing, and when it flips.
 */
export type ThemeSetting = 'light' | 'dark' | 'auto';
export type Theme = 'light' | 'dark';

/** An attribute or property value as a setting: anything unknown is the default, light. */
export function themeSetting(value: unknown): ThemeSetting {
  return value === 'dark' || value === 'auto' ? value : 'light';
}

/**
 * Watches what the setting resolves to: `changed` is called with the theme
 * showing whenever it flips (the setting changed, or under `auto` the system
 * switched), never twice with the same theme.
 */
export class ThemeWatcher {
  private readonly query = matchMedia('(prefers-color-scheme: dark)');
  private current: Theme;
  private readonly listener = () => this.update();

  constructor(
    private readonly setting: () => ThemeSetting,
    private readonly changed: (theme: Theme) => void,
  ) {
    this.current = this.resolve();
  }

  get theme(): Theme {
    return this.current;
  }

  /** Listens to the system's scheme while the element is on the page. */
  start(): void {
    this.query.addEventListener('change', this.listener);
    this.update();
  }
  stop(): void {
    this.query.removeEventListener('change', this.listener);
  }

  /** The setting changed (or may have): says so if the theme showing did. */
  update(): void {
    const next = this.resolve();
    if (next === this.current) return;
    this.current = next;
    this.changed(next);
  }

  private resolve(): Theme {
    const setting = this.setting();
    if (setting === 'auto') return this.query.matches ? 'dark' : 'light';
    return setting;
  }
}

/**
 * The dark values of every colour variable. Contrast checked with axe-core
 * (test/browser/widget-shell.test.ts): text ≥ 4.5:1 on each background it
 * sits on, field borders ≥ 3:1 (WCAG 1.4.11).
 */
const DARK = `
  color-scheme: dark;
  --mcp-bg: #16181d;
  --mcp-fg: #e6e9ef;
  --mcp-muted: #a7afbf;
  --mcp-border: #363c49;
  --mcp-field-border: #7d879b;
  --mcp-accent: #93a8ff;
  --mcp-accent-fg: #0d1020;
  --mcp-user-bg: #232c47;
  --mcp-assistant-bg: #1e2128;
  --mcp-step-bg: #1a1c22;
  --mcp-error: #ff9a90;
  --mcp-error-bg: #3a1e1d;
  --mcp-success: #5fcf95;
  --mcp-warning: #e8ad4a;
  --mcp-view-bg: #1a1c22;
  --mcp-shadow: rgba(0, 0, 0, .5);
`;

/** `theme="dark"`, and `theme="auto"` on a system that prefers dark. */
export const THEME_STYLES = `
:host([theme="dark"]) {${DARK}}
@media (prefers-color-scheme: dark) { :host([theme="auto"]) {${DARK}} }
`;
