import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate } from '@modelcontextprotocol/client';
import { isTextMime } from '../mcp/contents';
import { terms } from './relevance';
import { documentFormatOf } from '../../shared/documents';
import { documentTextBound } from '../documents/pages';

/**
 * One catalog entry per line, as the model sees it in the system prompt and
 * in listing tools: `- <uri> <title> [<type> <size>] <description>`, about 20
 * tokens, never content. The notation is explained once in the system
 * prompt; MIME types and sizes are abbreviated (`md 13K`) because they are
 * repeated on every line.
 */
export interface LineOptions {
  /** Descriptions are cut (visibly) at this many characters. */
  descriptionChars?: number;
  /** Text resources larger than this many bytes are marked `long` (they come in parts; search_resource finds passages). */
  longOver?: number;
  /** Documents (PDF, Office files) are converted to text when read (DOCUMENT_CONVERTER): their line says `text`. */
  documents?: boolean;
}

/**
 * Whether a resource's text may be longer than `chars` (a read window), judged from its listing before it is read:
 * text by its bytes (UTF-8 has at least as many bytes as characters, so this errs long), a document that is read as
 * its text (`documents`) by the most text its bytes may hold; a size not listed may be anything.
 */
export function mayExceed(r: Resource, chars: number, documents = false): boolean {
  const format = documents ? documentFormatOf(r.mimeType, r.uri) : undefined;
  if (!format && !isTextMime(r.mimeType)) return false;
  if (r.size === undefined) return true;
  return (format ? documentTextBound(format, r.size) : r.size) > chars;
}

export function resourceLine(r: Resource, options: LineOptions = {}): string {
  const long =
    options.longOver !== undefined && r.size !== undefined && mayExceed(r, options.longOver, options.documents);
  // A PDF or an Office file reads as text: the model should know it can ask for it (HTML and CSV are text already).
  const format = options.documents ? documentFormatOf(r.mimeType, r.uri) : undefined;
  const readable = format && format !== 'html' && format !== 'csv';
  const meta =
    [typeNote(r.mimeType), r.size === undefined ? undefined : shortSize(r.size)].filter(Boolean).join(' ') +
    (long ? ', long' : '') +
    (readable ? ', text' : '');
  const title = r.title ?? r.name;
  const named = title && !r.uri.endsWith(title) ? ` ${metadataLine(title, 80)}` : '';
  const description =
    r.description && addsInformation(`${title} ${r.uri}`, r.description)
      ? ` ${metadataLine(r.description, options.descriptionChars ?? 160)}`
      : '';
  return `${identifier(r.uri)}${named}${meta ? ` [${meta}]` : ''}${description}`;
}

/** A description that only repeats the title's words costs tokens and tells the model nothing. */
function addsInformation(known: string, description: string): boolean {
  const seen = new Set(terms(known));
  return terms(description).some((word) => !seen.has(word));
}

export function templateLine(t: ResourceTemplate, options: LineOptions = {}): string {
  const about = [t.title, t.description]
    .filter(Boolean)
    .map((text) => metadataLine(text!, options.descriptionChars ?? 160))
    .join(' — ');
  return `${identifier(t.uriTemplate)}${t.mimeType ? ` [${typeNote(t.mimeType)}]` : ''}${about ? ` ${about}` : ''}`;
}

export function promptLine(p: Prompt, options: LineOptions = {}): string {
  const args = (p.arguments ?? []).map((a) => `${identifier(a.name)}${a.required ? '' : '?'}`).join(', ');
  return `${identifier(p.name)}(${args})${p.description ? `: ${metadataLine(p.description, options.descriptionChars ?? 160)}` : ''}`;
}

/** A resource line read back (the offline model reads the catalog so): URI, title (or else description), description. */
export interface ParsedResourceLine {
  uri: string;
  title: string;
  description: string;
}

/**
 * `<uri> <title> [<type size>] <description>`, as resourceLine writes it;
 * undefined for any other line. The `[type size]` group separates the title
 * from the description; without one (neither is known) the rest of the line
 * is read as the title. A line without a title (the URI ends with it) reads
 * its description as the title.
 */
export function parseResourceLine(line: string): ParsedResourceLine | undefined {
  if (line.startsWith('…') || !/^\S+:\/\/|^\S+:/.test(line)) return undefined;
  const withMeta = /^(\S+)(?: (.*?))? \[[^\]]*\](?: (.*))?$/.exec(line);
  if (withMeta) {
    const description = withMeta[3] ?? '';
    return { uri: withMeta[1]!, title: withMeta[2] || description, description };
  }
  const [uri, ...rest] = line.split(' ');
  return { uri: uri!, title: rest.join(' '), description: '' };
}

/** `name(arg, optional?)…`, as promptLine writes it: the name and its arguments' names. */
export function parsePromptLine(line: string): { name: string; args: string[] } | undefined {
  const match = /^([^(\s]+)\(([^)]*)\)/.exec(line);
  if (!match) return undefined;
  return {
    name: match[1]!,
    args: match[2]!
      .split(',')
      .map((a) => a.trim().replace(/\?$/, ''))
      .filter(Boolean),
  };
}

/** What a skill line says of it: its files' count and size, or that its content is generated. */
export interface SkillLineInput {
  name: string;
  description: string;
  /** Files and their total bytes; undefined for a `"dynamic"` skill. */
  files?: { count: number; bytes: number } | undefined;
}

/** `<name>: <description> [<n> files <size>]` — one line per skill (MCP Skills extension), never its body. */
export function skillLine(skill: SkillLineInput, options: LineOptions = {}): string {
  const meta = skill.files
    ? `${skill.files.count} file${skill.files.count === 1 ? '' : 's'} ${shortSize(skill.files.bytes)}`
    : 'dynamic';
  return `${skill.name}: ${metadataLine(skill.description, options.descriptionChars ?? 160)} [${meta}]`;
}

/** A skill line read back: its name and (cut) description. */
export function parseSkillLine(line: string): { name: string; description: string } | undefined {
  const match = /^([a-z0-9][a-z0-9-]*): (.*?)(?: \[[^\]]*\])?$/.exec(line);
  return match ? { name: match[1]!, description: match[2]! } : undefined;
}

const SHORT_TYPES: Record<string, string> = {
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/html': 'html',
  'text/csv': 'csv',
  'text/xml': 'xml',
  'application/xml': 'xml',
  'application/json': 'json',
  'application/yaml': 'yaml',
  'text/yaml': 'yaml',
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
  'application/octet-stream': 'binary',
};

/** `text/markdown` → `md`; types without a well-known short name stay as they are. */
export const shortType = (mime: string | undefined) =>
  mime ? (SHORT_TYPES[mime.split(';')[0]!.trim().toLowerCase()] ?? mime) : undefined;

/** 590 → `590B`, 12_694 → `12K`, 5_000_000 → `4.8M`: sizes to the precision a choice needs. */
export function shortSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${kb < 10 ? kb.toFixed(1) : Math.round(kb)}K`;
  const mb = kb / 1024;
  return `${mb < 10 ? mb.toFixed(1) : Math.round(mb)}M`;
}

/**
 * Metadata a server wrote (a title, a description, a skill's frontmatter field) as the host shows it outside any
 * `<resource …>` wrapper: one line (whitespace collapsed), long text cut visibly at a word, and `<`, `>` and `]`
 * escaped, so it can neither start a line of its own, nor open or close a tag (`</resource>`, `<instructions>`), nor
 * end the `[…]` note it sits in. Every catalog line and a loaded skill's header (skill-notes.ts) go through it.
 */
export function metadataLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return escapeMarkup(flat);
  const cut = flat.slice(0, max - 1);
  const atWord = cut.lastIndexOf(' ');
  return `${escapeMarkup((atWord > max / 2 ? cut.slice(0, atWord) : cut).replace(/[\s,;:.—-]+$/, ''))}…`;
}

/**
 * A name the model uses as it is written — a URI, a URI template, a prompt's or an argument's name — with what could
 * leave the line or open a tag percent-encoded: line breaks and other control characters, `<` and `>`. A real
 * URI has none of them (RFC 3986), so none is changed; a name that has them is a server's attempt, and the model can
 * then not address it, which is as it should be.
 */
export const identifier = (text: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this encodes
  text.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029<>]/g, (c) => encodeURIComponent(c));

/** A MIME type in a line's `[…]` note: short when well known, else the server's, as metadata (it could end the note). */
const typeNote = (mime: string | undefined) => {
  const short = shortType(mime);
  return short === undefined ? undefined : metadataLine(short, 100);
};

/** Escaped after the cut, so a cut never splits an escape. */
const escapeMarkup = (text: string) => text.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/]/g, '&#93;');
