import { humanSize } from '../../../shared/human-size';
import { format, type Values } from './format';
import { shipped, translation } from './languages';
import { EN, type PartialStrings, type Strings, type TextKey } from './strings';

/** Languages written right to left: the widget's layout is mirrored for them (`dir="rtl"`). */
const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'sd', 'yi', 'dv', 'ckb']);

/** A BCP 47 tag in its canonical form ("EN-us" → "en-US"), or undefined when it is not one. */
export function canonicalTag(tag: string | null | undefined): string | undefined {
  if (!tag?.trim() || tag.length > 35) return undefined;
  try {
    return Intl.getCanonicalLocales(tag.trim())[0];
  } catch {
    return undefined;
  }
}

const baseOf = (tag: string) => tag.split('-')[0]!.toLowerCase();

/**
 * The language the widget speaks: the first of `wanted` (its `lang` or the page's, else the browser's languages)
 * whose strings are shipped, exactly ("pt-BR") or by its base language ("de-AT" → "de"); English when none is.
 * `tag` is the language asked for (kept for `Intl` and for the model: "de-AT" formats as Austria does), `strings`
 * the table's. A host's own strings count as shipped: a host may bring a language (`lang="fa"` with its `strings`).
 */
export function matchLanguage(
  wanted: ReadonlyArray<string | null | undefined>,
  ownStrings = false,
): { tag: string; strings: string } {
  for (const candidate of wanted) {
    const tag = canonicalTag(candidate);
    if (!tag) continue;
    if (shipped(tag)) return { tag, strings: tag };
    const base = baseOf(tag);
    if (shipped(base)) return { tag, strings: base };
    if (ownStrings) return { tag, strings: 'en' };
  }
  return { tag: 'en', strings: 'en' };
}

function merged(base: Strings, ...layers: Array<PartialStrings | undefined>): Strings {
  const out: Record<string, Record<string, string>> = {};
  for (const group of Object.keys(base) as Array<keyof Strings>) {
    out[group] = { ...base[group] };
    for (const layer of layers) {
      const strings = layer?.[group];
      if (!strings || typeof strings !== 'object') continue;
      // Only the table's keys, and only strings: a host's object is input, not code.
      for (const [key, value] of Object.entries(strings))
        if (key in base[group] && typeof value === 'string') out[group][key] = value;
    }
  }
  return out as unknown as Strings;
}

/**
 * One language as the widget uses it: its strings (the language's translation over English, a host's
 * overrides over both), its direction, and its numbers, sizes and times through `Intl`.
 */
export class Locale {
  readonly dir: 'ltr' | 'rtl';
  private readonly table: Strings;
  private readonly english: boolean;
  private readonly dates: Intl.DateTimeFormat;
  private readonly datesWithSeconds: Intl.DateTimeFormat;
  private readonly times: Intl.DateTimeFormat;
  private readonly lists: Intl.ListFormat;

  /** `lang`: the tag asked for; `strings`: the shipped table it matched; `overrides`: the host's. */
  constructor(
    readonly lang: string,
    strings = 'en',
    overrides?: PartialStrings,
  ) {
    // The language's table once its chunk is here (languages.ts); until then, and for what it lacks, English.
    this.table = merged(EN, translation(strings), overrides);
    this.dir = RIGHT_TO_LEFT.has(baseOf(lang)) ? 'rtl' : 'ltr';
    this.english = baseOf(lang) === 'en';
    this.dates = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short' });
    this.datesWithSeconds = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'medium' });
    this.times = new Intl.DateTimeFormat(lang, { timeStyle: 'medium' });
    this.lists = new Intl.ListFormat(lang, { type: 'conjunction' });
  }

  /** The string at `key`, its placeholders filled in. */
  t(key: TextKey, values?: Values): string {
    const dot = key.indexOf('.');
    const group = this.table[key.slice(0, dot) as keyof Strings] as Record<string, string>;
    return format(group[key.slice(dot + 1)] ?? key, values, this.lang);
  }

  /** A whole group of strings, as they are (for a module that takes its words as an object). */
  group<G extends keyof Strings>(group: G): Strings[G] {
    return this.table[group];
  }

  number(value: number, options?: Intl.NumberFormatOptions): string {
    return new Intl.NumberFormat(this.lang, options).format(value);
  }

  /**
   * 1061 → "1.0 KB" (English: as the model is told sizes, shared/human-size.ts), "1,0 kB" (German), "1.0 KB"
   * (Japanese): the same steps of 1,024 and the same digits, in the language's numbers and units.
   */
  size(bytes: number): string {
    if (this.english) return humanSize(bytes);
    const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    const digits = unit > 0 && value < 10 ? 1 : 0;
    return this.number(unit > 0 && value >= 10 ? Math.round(value) : value, {
      style: 'unit',
      unit: units[unit],
      unitDisplay: 'short',
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
  }

  /** "7 s", "1 min 05 s", "2 h 03 min": how long something took, in the language's units. */
  elapsed(ms: number): string {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    const minutes = Math.floor(seconds / 60);
    if (this.english) {
      if (seconds < 60) return `${seconds} s`;
      if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
      return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
    }
    const unit = (value: number, name: string, pad = false) =>
      this.number(value, { style: 'unit', unit: name, unitDisplay: 'short', minimumIntegerDigits: pad ? 2 : 1 });
    if (seconds < 60) return unit(seconds, 'second');
    if (minutes < 60) return `${unit(minutes, 'minute')} ${unit(seconds % 60, 'second', true)}`;
    return `${unit(Math.floor(minutes / 60), 'hour')} ${unit(minutes % 60, 'minute', true)}`;
  }

  /** "90 s": a wait in seconds, however long (the service says when to try again in seconds). */
  seconds(count: number): string {
    if (this.english) return `${count} s`;
    return this.number(count, { style: 'unit', unit: 'second', unitDisplay: 'short' });
  }

  /** A date and time: the thread list's "last active" (`short` time), a source's read time (`medium`: with seconds). */
  dateTime(date: Date | number, time: 'short' | 'medium' = 'short'): string {
    return (time === 'short' ? this.dates : this.datesWithSeconds).format(date);
  }
  /** A time of day, with seconds: when a task started. */
  time(date: Date | number): string {
    return this.times.format(date);
  }
  /** "a, b and c" in the language. */
  list(items: string[]): string {
    return this.lists.format(items);
  }
}

/** English, as shipped: the default of every function that is given no locale (and of the tests). */
export const ENGLISH = new Locale('en');
