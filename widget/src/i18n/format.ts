/** A placeholder's value: text as it is, a number formatted for the language. */
export type Values = Readonly<Record<string, string | number>>;

/**
 * Fills a string of the table (strings.ts) in: the ICU MessageFormat subset translations need and nothing more —
 * `{name}`, `{name, number}`, `{name, plural, =0 {…} one {…} other {…}}` (`#` in a branch is the number) and
 * `{name, select, a {…} other {…}}`, nested. Numbers go through `Intl.NumberFormat` and plural categories through
 * `Intl.PluralRules`, both for `lang`. A placeholder with no value stays as written (a host's string with a typo
 * shows the typo, not nothing). Written by hand: the widget has no dependencies, and a full ICU parser is 10 KB.
 */
export function format(template: string, values: Values | undefined, lang: string): string {
  if (!template.includes('{')) return template;
  return expand(template, values ?? {}, lang, undefined);
}

function expand(template: string, values: Values, lang: string, hash: string | undefined): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '#' && hash !== undefined) {
      out += hash;
      i++;
      continue;
    }
    if (c !== '{') {
      out += c;
      i++;
      continue;
    }
    const end = closing(template, i);
    if (end < 0) return out + template.slice(i);
    out += placeholder(template.slice(i + 1, end), values, lang, hash);
    i = end + 1;
  }
  return out;
}

/** Where the brace opened at `start` closes (-1: never). */
function closing(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function placeholder(body: string, values: Values, lang: string, hash: string | undefined): string {
  const [name = '', kind = '', ...rest] = body.split(',');
  const key = name.trim();
  const value = values[key];
  if (value === undefined) return `{${body}}`;
  const type = kind.trim();
  if (type === 'plural' || type === 'select') {
    const branches = branchesOf(rest.join(','));
    const number = Number(value);
    const chosen =
      type === 'plural'
        ? (branches.get(`=${number}`) ?? branches.get(new Intl.PluralRules(lang).select(number)))
        : branches.get(String(value));
    const text = chosen ?? branches.get('other') ?? '';
    return expand(text, values, lang, type === 'plural' ? numberOf(number, lang) : hash);
  }
  return typeof value === 'number' || type === 'number' ? numberOf(Number(value), lang) : value;
}

/** `one {…} other {…}` → its branches by selector. */
function branchesOf(text: string): Map<string, string> {
  const branches = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    const end = closing(text, open);
    if (end < 0) break;
    branches.set(text.slice(i, open).trim(), text.slice(open + 1, end));
    i = end + 1;
  }
  return branches;
}

const numberFormats = new Map<string, Intl.NumberFormat>();
function numberOf(value: number, lang: string): string {
  let formatter = numberFormats.get(lang);
  if (!formatter) numberFormats.set(lang, (formatter = new Intl.NumberFormat(lang)));
  return formatter.format(value);
}
