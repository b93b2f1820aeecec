import type { McpOndemandChatStrings } from '../../mcp-ondemand-chat';
import { coming, loadLanguage } from './languages';
import { Locale, matchLanguage } from './locale';
import type { PartialStrings } from './strings';

/**
 * One widget's language: its `lang` (else the page's — the nearest `lang` above it, `<html lang>` — else the
 * browser's languages), matched to the shipped strings, with the host's own `strings` over them. Resolved when
 * first asked and again after a change; a language whose strings are a chunk not here yet is `loading` until they
 * arrive, and then `changed` is called so that the widget says everything again in it.
 */
export class WidgetLanguage {
  private own: PartialStrings | undefined;
  private resolved: Locale | undefined;
  /** The shipped language whose chunk is on its way. */
  private awaited: string | undefined;

  constructor(
    private readonly host: HTMLElement,
    private readonly changed: () => void,
  ) {}

  get locale(): Locale {
    if (!this.resolved) {
      const page = this.host.closest('[lang]')?.getAttribute('lang');
      const wanted = page ? [page] : navigator.languages.length ? navigator.languages : [navigator.language];
      const { tag, strings } = matchLanguage(wanted, this.own !== undefined);
      this.resolved = new Locale(tag, strings, this.own);
      this.awaited = coming(strings) ? strings : undefined;
      if (this.awaited)
        void loadLanguage(strings).then(() => {
          if (this.awaited !== strings) return;
          this.awaited = undefined;
          this.reset();
        });
    }
    return this.resolved;
  }

  /** Its strings are on their way: the widget is hidden meanwhile rather than English first (3 s at most). */
  get loading(): boolean {
    return this.awaited !== undefined;
  }

  /** The host's own strings (a copy). */
  get strings(): McpOndemandChatStrings {
    return this.own ? structuredClone(this.own) : {};
  }
  set strings(value: McpOndemandChatStrings | null | undefined) {
    // Checked key by key when merged (locale.ts): only the table's keys, only strings.
    this.own = value && typeof value === 'object' ? (structuredClone(value) as PartialStrings) : undefined;
    this.reset();
  }

  /** Something it depends on changed (`lang`, `strings`, a chunk arrived): resolved again, and the widget told. */
  reset(): void {
    this.resolved = undefined;
    this.changed();
  }
}
