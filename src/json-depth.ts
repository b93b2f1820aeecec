/**
 * (A leaf module: used by src/http/openapi.ts, which checks every JSON body, and the chat socket.)
 *
 * Deepest nesting of arrays and objects accepted in a request body. The
 * deepest body we define is a chat message with a tool call's input in it
 * (about 8 levels before the input's own structure); 64 leaves any real
 * input room, and is far below what breaks later — zod's recursion, and the
 * structured clone of Durable Object RPC, which failed (`RangeError`, a 500)
 * on 100,000 levels inside prompt arguments.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by one
 * scan of the text (brackets inside strings do not count) before anything
 * is built from it. Malformed text is left for `JSON.parse` to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > max) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}
