/**
 * The size of a model request as sent, in characters, for what the meter estimates: the reservation made before a
 * request (usage/meter.ts), and the usage of one the provider reported nothing for. A walk over the prompt and the
 * tools, not `JSON.stringify`: it runs before every model request while budgets are in force, and a long
 * conversation's prompt is hundreds of kilobytes — counting its strings allocates nothing.
 */
export function requestChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return 5;
  if (value instanceof Uint8Array) return MEDIA_CHARS;
  if (Array.isArray(value)) {
    let chars = 2;
    for (const item of value) chars += requestChars(item) + 1;
    return chars;
  }
  if (value !== null && typeof value === 'object') {
    // An image or a file: providers bill it by its pixels or pages, not by the bytes (or base64) it is sent as.
    if (MEDIA_PARTS.has((value as { type?: unknown }).type as string)) return MEDIA_CHARS;
    let chars = 2;
    for (const key in value) chars += key.length + 4 + requestChars((value as Record<string, unknown>)[key]);
    return chars;
  }
  return 0;
}

/** The prompt's and tool results' parts that carry an image or a file (LanguageModelV4 prompt, tool output content). */
const MEDIA_PARTS = new Set(['file', 'image', 'media', 'image-data', 'file-data', 'image-url', 'file-url']);

/**
 * What an image or a file is counted as: about 1,600 tokens — what Anthropic and OpenAI bill for an image of about a
 * megapixel, and a page or two of a PDF — at 3.3 characters a token. A 1 MiB image counted by its base64 would be
 * some 420,000 tokens, and would refuse a tenant's every turn while it is in flight.
 */
const MEDIA_CHARS = 1_600 * 3.3;
