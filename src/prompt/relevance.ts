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

/** What a hit weighs by where it is: the one table for the catalog, the listings, tool search and predicted reads. */
export const WEIGHT = { title: 3, uri: 2, description: 1, name: 1 } as const;

/** The weighted fields of each kind of entry a question is matched against. */
export const fieldsOf = {
  resource: (r: { title?: string | undefined; name: string; uri: string; description?: string | undefined }) =>
    [
      [r.title ?? r.name, WEIGHT.title],
      [r.uri, WEIGHT.uri],
      [r.description, WEIGHT.description],
    ] as Scorable['fields'],
  template: (t: { title?: string | undefined; name: string; uriTemplate: string; description?: string | undefined }) =>
    [
      [t.title ?? t.name, WEIGHT.title],
      [t.uriTemplate, WEIGHT.uri],
      [t.description, WEIGHT.description],
    ] as Scorable['fields'],
  /** A skill's name is kebab-case: its words are the title's. */
  skill: (s: { name: string; description?: string | undefined }) =>
    [
      [s.name.replace(/-/g, ' '), WEIGHT.title],
      [s.description, WEIGHT.description],
    ] as Scorable['fields'],
  prompt: (p: { title?: string | undefined; name: string; description?: string | undefined }) =>
    [
      [p.title ?? p.name, WEIGHT.title],
      [p.description, WEIGHT.description],
    ] as Scorable['fields'],
  /** A tool's name is snake_case; its title, when it has one, weighs as much. */
  tool: (t: { name: string; title?: string | undefined; description?: string | undefined }) =>
    [
      [t.name.replace(/_/g, ' '), WEIGHT.title],
      [t.title, WEIGHT.title],
      [t.description, WEIGHT.description],
    ] as Scorable['fields'],
};
