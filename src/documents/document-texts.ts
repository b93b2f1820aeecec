import type { StoredContents } from '../../shared/api/resources';
import type { ServerState } from '../../shared/api/catalog';

/**
 * How long a server's documents are as text, once read (`ServerState.documentTexts`): a PDF is listed by its bytes,
 * which say little of its text (a 240 KB PDF may hold 20 KB of text, or none). The cost planner and the predicted
 * read weigh a document by its text once it has been read — in this conversation, or by another one whose converted
 * copy this one was served — and only while the listing still gives the bytes it was converted from (a new version
 * is weighed again when read). Kept in the server's stored header, so it outlives the instance.
 */

/** At most this many documents per server are remembered (the most recently read). */
const MAX_REMEMBERED = 200;

/** Records the text size of the document `contents` hold (a read of `uri`); true when the state changed. */
export function rememberDocumentText(state: ServerState, uri: string, contents: readonly StoredContents[]): boolean {
  const converted = contents.filter((entry) => entry.document && !entry.document.failed && 'text' in entry);
  if (!converted.length) return false;
  const chars = converted.reduce((sum, entry) => sum + ('text' in entry ? entry.text.length : 0), 0);
  const bytes = converted.reduce((sum, entry) => sum + entry.document!.bytes, 0);
  const known = state.documentTexts?.[uri];
  if (known?.chars === chars && known.bytes === bytes) return false;
  const texts = { ...state.documentTexts };
  delete texts[uri]; // re-inserted last: the most recently read
  texts[uri] = { chars, bytes };
  const uris = Object.keys(texts);
  for (const old of uris.slice(0, Math.max(0, uris.length - MAX_REMEMBERED))) delete texts[old];
  state.documentTexts = texts;
  return true;
}

/** Characters of a listed document's text, when it was read at the size it is listed at now. */
export function documentTextChars(
  state: Pick<ServerState, 'documentTexts'>,
  resource: { uri: string; size?: number | undefined },
): number | undefined {
  const known = state.documentTexts?.[resource.uri];
  return known && resource.size !== undefined && known.bytes === resource.size ? known.chars : undefined;
}
