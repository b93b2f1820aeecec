import { describe, expect, it } from 'vitest';
import { AR } from './ar';
import { DE } from './de';
import { ES } from './es';
import { format } from './format';
import { FR } from './fr';
import { HE } from './he';
import { JA } from './ja';
import { shipped } from './languages';
import { canonicalTag, ENGLISH, Locale, matchLanguage } from './locale';
import { registerLanguage } from './register';
import { EN } from './strings';

// In a page each comes as a chunk of its own (languages.ts); here they are registered as the chunks do.
const TRANSLATIONS = { de: DE, fr: FR, es: ES, ja: JA, ar: AR, he: HE };
for (const [lang, table] of Object.entries(TRANSLATIONS)) registerLanguage(lang, table);

describe('format: the ICU subset of the table', () => {
  it('fills placeholders, formats numbers for the language, keeps an unknown placeholder as written', () => {
    expect(format('Remove {title}', { title: 'a.pdf' }, 'en')).toBe('Remove a.pdf');
    expect(format('{n} of {total}', { n: 1234, total: 5000 }, 'de')).toBe('1.234 of 5.000');
    expect(format('Hello {name}', {}, 'en')).toBe('Hello {name}');
    expect(format('No braces', undefined, 'en')).toBe('No braces');
  });

  it('plural picks by the language’s rules; `=n` wins; `#` is the number, formatted', () => {
    const files = '{count, plural, =0 {no files} one {# file} other {# files}}';
    expect(format(files, { count: 0 }, 'en')).toBe('no files');
    expect(format(files, { count: 1 }, 'en')).toBe('1 file');
    expect(format(files, { count: 1200 }, 'en')).toBe('1,200 files');
    expect(format(files, { count: 1200 }, 'fr')).toBe('1\u202f200 files');
    // Arabic has six categories: a host's Arabic string can use them.
    const ar = '{n, plural, zero {صفر} one {واحد} two {اثنان} few {# قليلة} many {# كثيرة} other {#}}';
    expect(format(ar, { n: 2 }, 'ar')).toBe('اثنان');
    expect(format(ar, { n: 3 }, 'ar')).toMatch(/قليلة$/);
    expect(format(ar, { n: 11 }, 'ar')).toMatch(/كثيرة$/);
  });

  it('select, nested placeholders inside a branch', () => {
    const t = '{kind, select, skill {the skill {name}} other {the prompt {name}}}';
    expect(format(t, { kind: 'skill', name: 'x' }, 'en')).toBe('the skill x');
    expect(format(t, { kind: 'prompt', name: 'y' }, 'en')).toBe('the prompt y');
  });
});

describe('matchLanguage: the best shipped match, then the base language, then English', () => {
  it.each([
    [['de'], 'de', 'de'],
    [['de-AT'], 'de-AT', 'de'],
    [['JA-jp'], 'ja-JP', 'ja'],
    [['pt-BR', 'es-MX'], 'es-MX', 'es'],
    [['en-GB', 'de'], 'en-GB', 'en'],
    [['zz', 'not a tag!', 'fr-CA'], 'fr-CA', 'fr'],
    [[null, '', undefined], 'en', 'en'],
    [['pt'], 'en', 'en'],
  ] as const)('%j → %s (strings: %s)', (wanted, tag, strings) => {
    expect(matchLanguage(wanted)).toEqual({ tag, strings });
  });

  it('a language the host brings its own strings for is kept (strings fall back to English)', () => {
    expect(matchLanguage(['fa'], true)).toEqual({ tag: 'fa', strings: 'en' });
  });

  it('canonicalTag refuses what is not BCP 47, and what is too long', () => {
    expect(canonicalTag('zh-hant-tw')).toBe('zh-Hant-TW');
    expect(canonicalTag('de_DE')).toBeUndefined();
    expect(canonicalTag(`de-${'x'.repeat(40)}`)).toBeUndefined();
  });
});

describe('Locale: strings, overrides, direction, numbers', () => {
  it('looks a key up in the language, falls back to English key by key, and takes a host’s overrides over both', () => {
    const de = new Locale('de', 'de');
    expect(de.t('shell.send')).toBe('Senden');
    expect(de.t('threads.renameLabel', { title: 'Plan' })).toBe('„Plan“ umbenennen');
    // Arabic ships the shell; a string it does not translate is English.
    const ar = new Locale('ar', 'ar');
    expect(ar.t('shell.send')).toBe('إرسال');
    expect(ar.t('steps.listed')).toBe(EN.steps.listed);
    const host = new Locale('de', 'de', {
      shell: { send: 'Los' },
      // Input, not code: unknown groups and keys, and values that are not strings, are ignored.
      nothing: { here: 'x' },
      status: { loading: 42 as unknown as string, nope: 'x' },
    } as never);
    expect(host.t('shell.send')).toBe('Los');
    expect(host.t('shell.stop')).toBe('Stopp');
    expect(host.t('status.loading')).toBe('Wird geladen…');
  });

  it('is right to left for Arabic, Hebrew, Persian and Urdu', () => {
    for (const lang of ['ar', 'he', 'fa-IR', 'ur']) expect(new Locale(lang).dir).toBe('rtl');
    for (const lang of ['en', 'de', 'ja']) expect(new Locale(lang).dir).toBe('ltr');
  });

  it('formats sizes and durations with Intl in the language; English keeps the figures the model is told', () => {
    expect(ENGLISH.size(2765)).toBe('2.7 KB');
    expect(ENGLISH.size(31)).toBe('31 B');
    expect(new Locale('de', 'de').size(2765)).toBe('2,7 kB');
    expect(new Locale('fr', 'fr').size(5 * 1024 * 1024)).toBe('5,0\u202fMo');
    expect(ENGLISH.elapsed(65_000)).toBe('1 min 05 s');
    expect(new Locale('de', 'de').elapsed(65_000)).toBe('1 Min. 05 Sek.');
    expect(new Locale('ja', 'ja').elapsed(7_000)).toBe('7 秒');
    expect(new Locale('de', 'de').list(['a', 'b', 'c'])).toBe('a, b und c');
  });

  it('ships English, and each translation registered as its chunk does', () => {
    for (const lang of ['en', ...Object.keys(TRANSLATIONS)]) expect(shipped(lang)).toBe(true);
    expect(shipped('pt')).toBe(false);
  });

  it('every shipped translation has only keys of the table, and keeps its placeholders', () => {
    for (const [lang, table] of Object.entries(TRANSLATIONS)) {
      for (const [group, strings] of Object.entries(table)) {
        const english = EN[group as keyof typeof EN] as Record<string, string>;
        expect(english, `${lang}: group ${group}`).toBeDefined();
        for (const [key, text] of Object.entries(strings as Record<string, string>)) {
          expect(english[key], `${lang}: ${group}.${key}`).toBeDefined();
          const names = (s: string) => [...s.matchAll(/\{(\w+)/g)].map((m) => m[1]).sort();
          expect(names(text), `${lang}: ${group}.${key}`).toEqual(names(english[key]!));
        }
      }
    }
  });
});
