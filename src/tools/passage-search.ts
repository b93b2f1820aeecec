import { stem, terms } from '../prompt/relevance';

/**
 * Finding the relevant part of a long text without reading it all: the text
 * is cut into passages at paragraph or line breaks (about `passageChars`
 * each), scored with BM25 over stemmed words, and the best few returned with
 * their character offsets — the offsets `read_resource` takes, so the model
 * can read on from a passage. Computed in the Durable Object from the cached
 * text: no server needs to support search.
 */
export interface Passage {
  /** Character offsets into the resource's text (all text contents, concatenated, as read_resource counts them). */
  offset: number;
  end: number;
  score: number;
  text: string;
}

export interface SearchOptions {
  passageChars?: number;
  limit?: number;
  /** Offsets no passage crosses: where a converted document's pages start, so each passage is on one page. */
  breaks?: readonly number[] | undefined;
}

const K1 = 1.2;
const B = 0.75;

export function searchPassages(
  text: string,
  query: string,
  { passageChars = 800, limit = 5, breaks }: SearchOptions = {},
): Passage[] {
  const wanted = [...new Set(terms(query).map(stem))];
  if (!wanted.length || !text) return [];
  const passages = breaks?.length ? splitAt(text, breaks, passageChars) : split(text, passageChars);

  // Term frequencies of the wanted words only: a 5 MB text is scanned once, nothing else is kept.
  const counts = passages.map((p) => {
    const words = terms(text.slice(p.offset, p.end)).map(stem);
    const tf = new Map<string, number>();
    for (const word of words) if (wanted.includes(word)) tf.set(word, (tf.get(word) ?? 0) + 1);
    return { tf, length: words.length };
  });
  const averageLength = counts.reduce((sum, c) => sum + c.length, 0) / Math.max(1, counts.length);
  const idf = new Map(
    wanted.map((word) => {
      const containing = counts.filter((c) => c.tf.has(word)).length;
      return [word, Math.log(1 + (counts.length - containing + 0.5) / (containing + 0.5))];
    }),
  );

  return passages
    .map((p, i) => {
      const { tf, length } = counts[i]!;
      let score = 0;
      for (const [word, f] of tf)
        score += idf.get(word)! * ((f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / Math.max(1, averageLength))));
      return { ...p, score };
    })
    .filter((p) => p.score > 0)
    .sort((a, b) => b.score - a.score || a.offset - b.offset)
    .slice(0, limit)
    .map((p) => ({ ...p, score: Math.round(p.score * 100) / 100, text: text.slice(p.offset, p.end) }));
}

/** Passages of about `size` characters, ending at a paragraph break, else a line break, else a space. */
function split(text: string, size: number, from = 0, to = text.length): Array<{ offset: number; end: number }> {
  const out: Array<{ offset: number; end: number }> = [];
  let offset = from;
  while (offset < to) {
    let end = Math.min(to, offset + size);
    if (end < to) {
      const window = text.slice(offset + Math.floor(size / 2), end);
      const cut = [window.lastIndexOf('\n\n'), window.lastIndexOf('\n'), window.lastIndexOf(' ')].find((i) => i >= 0);
      if (cut !== undefined) end = offset + Math.floor(size / 2) + cut + 1;
    }
    out.push({ offset, end });
    offset = end;
  }
  return out;
}

/** The same, within each span between two breaks (a page): a short page is one passage, never half of two. */
function splitAt(text: string, breaks: readonly number[], size: number): Array<{ offset: number; end: number }> {
  const bounds = [...new Set([0, ...breaks.filter((b) => b > 0 && b < text.length), text.length])].sort(
    (a, b) => a - b,
  );
  return bounds.slice(1).flatMap((end, i) => split(text, size, bounds[i]!, end));
}
