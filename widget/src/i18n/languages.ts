import { AR } from './ar';
import { DE } from './de';
import { ES } from './es';
import { FR } from './fr';
import { HE } from './he';
import { JA } from './ja';
import type { PartialStrings } from './strings';

/**
 * The shipped translations, by language (English is strings.ts itself). German, French, Spanish and Japanese are
 * complete; Arabic and Hebrew cover the chat's shell (header, composer, start screen, conversations, messages,
 * errors), the rest falls back to English key by key. A host adds or completes any with the `strings` property.
 */
export const TRANSLATIONS: Readonly<Record<string, PartialStrings>> = {
  de: DE,
  fr: FR,
  es: ES,
  ja: JA,
  ar: AR,
  he: HE,
};

/** Every language the widget ships strings for. */
export const SHIPPED_LANGUAGES = ['en', ...Object.keys(TRANSLATIONS)] as const;
