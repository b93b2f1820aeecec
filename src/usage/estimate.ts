/**
 * The size of a model request as sent, in characters, for what the meter estimates: the reservation made before a
 * request (usage/meter.ts), and the usage of one the provider reported nothing for. A walk over the prompt and the
 * tools, not `JSON.stringify`: it runs before every model request while budgets are in force, and a long
 * conversation's prompt is hundreds of kilobytes — counting its strings allocates nothing.
 */
export function requestChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return 5;
  // Bytes (an image, a file) as the base64 a provider is sent.
  if (value instanceof Uint8Array) return Math.ceil((value.byteLength * 4) / 3);
  if (Array.isArray(value)) {
    let chars = 2;
    for (const item of value) chars += requestChars(item) + 1;
    return chars;
  }
  if (value !== null && typeof value === 'object') {
    let chars = 2;
    for (const key in value) chars += key.length + 4 + requestChars((value as Record<string, unknown>)[key]);
    return chars;
  }
  return 0;
}
