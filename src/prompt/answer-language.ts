import type { UIMessage } from 'ai';
import { LanguageTag } from '../../shared/api/common';

/**
 * The user's language, as the model is told it: one short line after each user message that was sent with one
 * (`language`, the widget's `lang`; kept in the message's metadata). Not in the system prompt: that stays the same
 * byte string whoever asks, so the prompt cache's prefix does not change with a person's language; and each
 * message carries its own note, the same every time it is sent again, so earlier requests stay a prefix of later
 * ones. A person who switches language mid-conversation gets the newest note last.
 */
export function answerLanguageNote(tag: string): string {
  const canonical = Intl.getCanonicalLocales(tag)[0] ?? tag;
  const name = languageName(canonical);
  return `[The user's language: ${name} (${canonical}). Answer in ${name}, unless the user writes in another language.]`;
}

/** "German", "Brazilian Portuguese": the language's English name (the note is in English, as the system prompt is). */
function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** A prompt's messages with the user's language on the last user message (as a message sent with one carries it). */
export function withLanguage(messages: UIMessage[], language: string | undefined): UIMessage[] {
  const last = messages.findLastIndex((m) => m.role === 'user');
  if (!language || last < 0) return messages;
  return messages.map((message, index) =>
    index === last ? { ...message, metadata: { ...(message.metadata as object | undefined), language } } : message,
  );
}

/** The messages as the model is sent them: each user message with a valid `language` gets its note as a last text part (never stored). */
export function withAnswerLanguage(messages: UIMessage[]): UIMessage[] {
  return messages.map((message) => {
    const language = (message.metadata as { language?: unknown } | undefined)?.language;
    if (message.role !== 'user' || typeof language !== 'string') return message;
    // Checked when it came in; checked again here, since stored history outlives any version of that check.
    if (!LanguageTag.safeParse(language).success) return message;
    return { ...message, parts: [...message.parts, { type: 'text', text: answerLanguageNote(language) }] };
  });
}
