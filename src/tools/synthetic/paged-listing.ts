import type { Scorable } from '../../prompt/relevance';
import { score, terms } from '../../prompt/relevance';

/** Entries a list tool shows per call. */
export const LIST_PAGE = 50;

export interface ListingRequest<E> {
  /** What is listed, in catalog order. */
  entries: E[];
  query?: string | undefined;
  cursor?: string | undefined;
  /** The weighted fields a query is matched against. */
  fields: (entry: E) => Scorable['fields'];
  /** One entry's line. */
  line: (entry: E) => string;
  /** "resource", "skill": the summary's noun. */
  noun: string;
  /** The tool to call again for the next page. */
  tool: string;
}

/**
 * One page of a list tool's answer (list_resources, list_skills): with a
 * query, only matches, the most relevant first; a summary line, the
 * entries, and the cursor of the next page when there is one.
 */
export function listingPage<E>({ entries, query, cursor, fields, line, noun, tool }: ListingRequest<E>): string {
  let ranked = entries;
  if (query) {
    const wanted = terms(query);
    ranked = entries
      .map((entry) => ({ entry, relevance: score(wanted, { fields: fields(entry) }) }))
      .filter((e) => e.relevance > 0)
      .sort((a, b) => b.relevance - a.relevance)
      .map((e) => e.entry);
  }
  if (!ranked.length) return `No ${noun}s${query ? ` match "${query}"` : ''}.`;
  const start = cursor ? decodeCursor(cursor) : 0;
  const page = ranked.slice(start, start + LIST_PAGE);
  const next = start + LIST_PAGE < ranked.length ? encodeCursor(start + LIST_PAGE) : undefined;
  return [
    `${ranked.length} ${noun}(s)${query ? ` matching "${query}"` : ''}; showing ${start + 1}-${start + page.length}.`,
    ...page.map(line),
    next ? `More: call ${tool} again with cursor "${next}".` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const encodeCursor = (offset: number) => btoa(`o:${offset}`);

function decodeCursor(cursor: string): number {
  try {
    const match = /^o:(\d+)$/.exec(atob(cursor));
    if (match) return Number(match[1]);
  } catch {
    // fall through
  }
  throw new Error(`Invalid cursor "${cursor}": use the one the previous page gave`);
}
