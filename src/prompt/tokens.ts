/**
 * Estimated tokens of a text, for budgets (catalog, pins, tool definitions).
 * Catalog lines and schemas are dense (URIs, MIME types, numbers, JSON):
 * about 3.3 characters a token with GPT-4o's tokenizer, which the
 * context-cost benchmark checks.
 */
export const CHARS_PER_TOKEN = 3.3;

export const estimateTokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);
