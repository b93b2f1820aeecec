/**
 * Word-overlap relevance, deterministic and cheap: used to prune a large
 * catalog to what the conversation is about, to rank `list_resources`
 * results for a query, and by the offline model to pick what to read.
 */
const STOPWORDS = new Set(
  'a an and are as at be by can do does for from has have how i in is it its me my of on or our please show tell that the their them there these this to us was we what when where which who why will with you your about into'.split(
    ' ',
  ),
);

export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 && !STOPWORDS.has(word));
}

/**
 * Crude stemming so "guideline" matches "guidelines", "estimate" matches
 * "estimates", "planning" and "planned" match "plan" (a consonant doubled
 * before -ing/-ed is single again; not l, s or z: "falling" is "fall").
 */
export function stem(word: string): string {
  const suffix = /(ings|ing|ies|es|ed|(?<!s)s)$/.exec(word)?.[1];
  let base = suffix ? word.slice(0, -suffix.length) : word;
  if ((suffix === 'ing' || suffix === 'ings' || suffix === 'ed') && /([b-df-hj-kmnp-rtv-y])\1$/.test(base))
    base = base.slice(0, -1);
  return base.replace(/e$/, '') || word;
}

export interface Scorable {
  /** Weighted fields: a hit in a heavier field counts more (title 3, URI 2, description 1…). */
  fields: Array<[text: string | undefined, weight: number]>;
}

export function score(query: string[] | Set<string>, item: Scorable): number {
  const wanted = new Set([...query].map(stem));
  if (!wanted.size) return 0;
  let total = 0;
  for (const [text, weight] of item.fields) {
    if (!text) continue;
    const seen = new Set(terms(text).map(stem));
    for (const word of wanted) if (seen.has(word)) total += weight;
  }
  return total;
}
