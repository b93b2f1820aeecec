/**
 * The text markers the model is shown that our own code reads back — read
 * elision finds what a step already read by them, the offline model finds
 * the catalog and the passages by them. Each is written by one function and
 * parsed by its pair beside it: rewording a marker in one place used to
 * break its reader silently (elision off: a cost regression no assertion
 * named). markers.test.ts round-trips every pair.
 */

/** A window of a resource's text: characters `from`–`to` of `total`. */
export interface TextWindow {
  from: number;
  to: number;
  total: number;
}

/** `<resource server="…" uri="…" mime="…">` — resource text as reference material (untrusted input). */
export interface ResourceTag {
  server: string;
  uri: string;
  mime: string;
  /** Set when the resource comes in windows. */
  window?: TextWindow | undefined;
  /** A converted document's pages (slides, sheets) this block holds: "page 3 of 40", "pages 3-4 of 40". */
  pages?: string | undefined;
}

const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const unattr = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
/** Resource text cannot close the wrapper it sits in. */
const escapeBody = (text: string) => text.replace(/<\/resource/gi, '<\\/resource');

/** One block of resource text, wrapped. */
export function resourceBlock(tag: ResourceTag, text: string): string {
  const part = tag.window ? ` part="characters ${tag.window.from}-${tag.window.to} of ${tag.window.total}"` : '';
  const pages = tag.pages ? ` pages="${attr(tag.pages)}"` : '';
  return `<resource server="${attr(tag.server)}" uri="${attr(tag.uri)}" mime="${attr(tag.mime)}"${part}${pages}>\n${escapeBody(text)}\n</resource>`;
}

const BLOCK =
  /<resource server="([^"]*)" uri="([^"]*)" mime="([^"]*)"(?: part="characters (\d+)-(\d+) of (\d+)")?(?: pages="([^"]*)")?>\n([\s\S]*?)\n<\/resource>/g;

/** Every wrapped block in `text`, with its body (as escaped: the model saw it so). */
export function parseResourceBlocks(text: string): Array<ResourceTag & { body: string }> {
  return findResourceBlocks(text).map(({ at: _, ...block }) => block);
}

/** Every wrapped block in `text`, and where its body starts in `text` (a source's window points at it: turn/sources.ts). */
export function findResourceBlocks(text: string): Array<ResourceTag & { body: string; at: number }> {
  return [...text.matchAll(BLOCK)].map((m) => ({
    server: unattr(m[1]!),
    uri: unattr(m[2]!),
    mime: unattr(m[3]!),
    ...(m[4] === undefined ? {} : { window: { from: Number(m[4]), to: Number(m[5]), total: Number(m[6]) } }),
    ...(m[7] === undefined ? {} : { pages: unattr(m[7]) }),
    body: m[8]!,
    // The body ends the match but for the closing line.
    at: m.index + m[0].length - '\n</resource>'.length - m[8]!.length,
  }));
}

/** `<program-output calls="…" read="…">` — what a program (run_code) returned: built from server text, so wrapped. */
export interface ProgramTag {
  calls: number;
  /** Bytes the program was given, in words ("5.0 MB"). */
  bytes: string;
}

/** A program's output cannot close the wrapper it sits in. */
const escapeProgram = (text: string) => text.replace(/<\/(program-output)/gi, '<\\/$1');

/** A program's output (its result and console lines), wrapped. */
export function programBlock(tag: ProgramTag, text: string): string {
  return `<program-output calls="${tag.calls}" read="${attr(tag.bytes)}">\n${escapeProgram(text)}\n</program-output>`;
}

const PROGRAM_BLOCK = /<program-output calls="(\d+)" read="([^"]*)">\n([\s\S]*?)\n<\/program-output>/;

/** The wrapped output of a program, as the model saw it (escaped). */
export function parseProgramBlock(text: string): (ProgramTag & { body: string }) | undefined {
  const m = PROGRAM_BLOCK.exec(text);
  return m ? { calls: Number(m[1]), bytes: unattr(m[2]!), body: m[3]! } : undefined;
}

/** Where the next window of a resource is read from (read_resource's arguments). */
export interface NextWindow {
  uri: string;
  server: string;
  offset: number;
}

/** After a window that is not the last: what was shown, and the read_resource call for the next part. */
export function continuationNote(window: TextWindow, next: NextWindow): string {
  return `[Showing characters ${window.from}-${window.to} of ${window.total}. The rest is not shown yet: call read_resource with ${JSON.stringify(next)} for the next part.]`;
}

/** After the first window of a long tool result (kept whole by the conversation, read on like a document). */
export function resultContinuationNote(window: TextWindow, next: Omit<NextWindow, 'server'>): string {
  return `[Showing characters ${window.from}-${window.to} of ${window.total} of this result. The rest is kept: call read_resource with ${JSON.stringify(next)} for the next part.]`;
}

const CONTINUATION =
  /\[Showing characters (\d+)-(\d+) of (\d+)(?: of this result)?\. The rest (?:is not shown yet|is kept): call read_resource with (\{[^\n]*\}) for the next part\.\]/;

/** The window a continuation note in `text` describes, and where the next part is. */
export function parseContinuation(text: string): { window: TextWindow; next: Partial<NextWindow> } | undefined {
  const m = CONTINUATION.exec(text);
  if (!m) return undefined;
  let next: Partial<NextWindow> = {};
  try {
    next = JSON.parse(m[4]!) as Partial<NextWindow>;
  } catch {}
  return { window: { from: Number(m[1]), to: Number(m[2]), total: Number(m[3]) }, next };
}

/** `text` without the continuation note it ends with (an attachment carries every window: no "read on" for the model). */
export function withoutContinuation(text: string): string {
  const m = CONTINUATION.exec(text);
  return m && m.index + m[0].length === text.length ? text.slice(0, m.index).replace(/\n$/, '') : text;
}

/** search_resource's first line: how many passages of which resource matched, and how to read on. */
export interface SearchSummary {
  uri: string;
  server: string;
  total: number;
  query: string;
  passages: number;
  /** read_resource's arguments for reading on from the best passage (absent: nothing matched). */
  best?: NextWindow | undefined;
}

export function searchHeader(s: SearchSummary): string {
  return s.best
    ? `[${s.passages} passage(s) of ${s.uri} on server "${s.server}" (${s.total} characters) matching "${s.query}", best first. To read on from the best: read_resource ${JSON.stringify(s.best)}; from another, the same with the offset its "characters" start at.]`
    : `[No passage of ${s.uri} on server "${s.server}" (${s.total} characters) matches "${s.query}". Try other words, or read it with read_resource.]`;
}

const SEARCH =
  /^\[(?:(\d+) passage\(s\) of (.+?)|No passage of (.+?)) on server "([^"]*)" \((\d+) characters\) (?:matching|matches) "/;

/** The server, URI and total a search_resource result speaks of. */
export function parseSearchHeader(
  text: string,
): Pick<SearchSummary, 'uri' | 'server' | 'total' | 'passages'> | undefined {
  const m = SEARCH.exec(text);
  if (!m) return undefined;
  return { passages: m[1] === undefined ? 0 : Number(m[1]), uri: m[2] ?? m[3]!, server: m[4]!, total: Number(m[5]) };
}

/** How the catalog entries sent with a message begin: those an over-budget system prompt could not show. */
export const RELEVANT_HEADER =
  'Catalog entries that may be relevant to this message (not listed in the system prompt):';

/** The entries relevant to a message, each line naming its server. */
export function relevantEntries(entries: Array<{ line: string; server: string }>): string {
  return `${RELEVANT_HEADER}\n${entries.map((e) => `${e.line} [server ${e.server}]`).join('\n')}`;
}

/** The lines of a relevant-entries text (with their servers), or undefined when `text` is not one. */
export function parseRelevantEntries(text: string): Array<{ line: string; server: string | undefined }> | undefined {
  if (!text.startsWith(RELEVANT_HEADER)) return undefined;
  return text
    .split('\n')
    .slice(1)
    .map((line) => {
      const hinted = / \[server ([^\]]+)\]$/.exec(line);
      return hinted ? { line: line.slice(0, hinted.index), server: hinted[1]! } : { line, server: undefined };
    });
}

/** A server's section of the system prompt begins with this line. */
export function serverHeading(id: string, title: string | undefined): string {
  return `## Server "${id}"${title ? ` — ${title}` : ''}`;
}

export function parseServerHeading(line: string): string | undefined {
  return /^## Server "([^"]+)"/.exec(line)?.[1];
}

/** The catalog's parts within a server's section, each under its heading line. */
export type CatalogSection = 'resource' | 'template' | 'prompt' | 'skill';
const SECTION_TITLES: Record<CatalogSection, string> = {
  resource: 'Resources',
  template: 'Resource templates',
  prompt: 'Prompts (invoke_prompt)',
  skill: 'Skills (load_skill)',
};

export const sectionHeading = (section: CatalogSection) => `${SECTION_TITLES[section]}:`;

export function parseSectionHeading(line: string): CatalogSection | undefined {
  return (Object.keys(SECTION_TITLES) as CatalogSection[]).find((section) => line === sectionHeading(section));
}
