import type { DocumentInfo } from '../../shared/api/resources';

/**
 * Where a window of a resource's text that starts at `offset` ends: `windowChars` on at most, pulled back into its
 * last fifth to the nicest edge there — a page (slide, sheet) of a converted document, else the end of a line, else
 * the end of one content entry — so that a window does not stop in the middle of a line (a table row, a sentence)
 * when one ends near its edge. A text without such an edge (minified JSON, one long line) is cut at `windowChars`.
 * Windows still tile the text exactly: the next one starts where this one ends (its `nextOffset`).
 */
export function windowEnd(
  entries: ReadonlyArray<{ text: string; document?: DocumentInfo | undefined }>,
  offset: number,
  windowChars: number,
): number {
  const total = entries.reduce((sum, entry) => sum + entry.text.length, 0);
  const hard = Math.min(total, offset + windowChars);
  if (hard >= total) return total;
  // An edge must leave the window at least four fifths of its size (and something: never an empty window).
  const floor = Math.max(offset, offset + Math.ceil(windowChars * 0.8) - 1);
  let start = 0;
  for (const entry of entries) {
    const end = start + entry.text.length;
    if (hard > end) {
      start = end;
      continue;
    }
    if (hard === end) return hard;
    const starts = entry.document?.parts?.starts ?? [];
    for (let i = starts.length - 1; i >= 0; i--) {
      const at = start + starts[i]!;
      if (at <= floor) break;
      if (at <= hard) return at;
    }
    const newline = entry.text.lastIndexOf('\n', hard - start - 1);
    if (newline >= 0 && start + newline + 1 > floor) return start + newline + 1;
    return start > floor ? start : hard;
  }
  return hard;
}
