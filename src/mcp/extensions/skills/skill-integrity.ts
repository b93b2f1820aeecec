import { bytesOfBase64 } from '../../../../shared/base64';
import type { StoredContents } from '../../../cache/types';
import type { SkillFileRef } from './skills';

/**
 * The integrity of a skill's files (MCP Skills extension, SEP-2640): a
 * listed file's raw bytes must have the size and SHA-256 digest its skill's
 * entry gives, and a SKILL.md's frontmatter must say what the entry says.
 * Checked on every copy a read would serve — from memory, KV or the server —
 * so a bad copy is never used, wherever it came from (resource-read.ts).
 * Digests are not signatures: they bind the file to the list, not to an author.
 */
export class SkillIntegrityError extends Error {
  constructor(
    readonly reason: 'size' | 'digest' | 'frontmatter' | 'unlisted' | 'missing',
    message: string,
  ) {
    super(message);
    this.name = 'SkillIntegrityError';
  }
}

/** Throws a SkillIntegrityError when `contents` (one read of `file.listed.uri`) is not what the skill's entry lists. */
export async function verifySkillFile(file: SkillFileRef & { uri: string }, contents: StoredContents[]): Promise<void> {
  const content = contents.find((c) => c.uri === file.uri) ?? contents[0];
  if (!content) throw new SkillIntegrityError('missing', `${file.uri} came back with no contents`);
  const bytes = 'text' in content ? new TextEncoder().encode(content.text) : bytesOfBase64(content.blob);
  if (file.listed) {
    if (bytes.byteLength !== file.listed.size) {
      throw new SkillIntegrityError(
        'size',
        `${file.uri} is ${bytes.byteLength} bytes; the skill's entry lists ${file.listed.size}`,
      );
    }
    const digest = await sha256Digest(bytes);
    if (digest !== file.listed.digest)
      throw new SkillIntegrityError(
        'digest',
        `${file.uri} has digest ${digest}; the skill's entry lists ${file.listed.digest}`,
      );
  }
  if (!file.manifest) return;
  const text = 'text' in content ? content.text : new TextDecoder().decode(bytes);
  const frontmatter = parseFrontmatter(text);
  const differences = ['name', 'description'].filter((key) => frontmatter?.[key] !== file.skill.frontmatter[key]);
  if (differences.length) {
    throw new SkillIntegrityError(
      'frontmatter',
      `the frontmatter of ${file.uri} differs from the skill's entry (${differences.join(', ')})`,
    );
  }
}

/** `sha256:` + lowercase hex, as the extension writes digests. */
export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `sha256:${[...hash].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * The top-level scalar fields of a SKILL.md's YAML frontmatter — plain,
 * single- or double-quoted, or a `|` / `>` block — which is what names and
 * descriptions are. Nested values are skipped (only `name` and `description`
 * are compared; a listed file's bytes are bound by its digest anyway).
 * Undefined when the text has no frontmatter.
 */
export function parseFrontmatter(markdown: string): Record<string, string> | undefined {
  const text = markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
  if (!match) return undefined;
  const lines = match[1]!.split('\n');
  const fields: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const field = /^([A-Za-z0-9_-]+):(?:\s+(.*?))?\s*$/.exec(lines[i]!);
    if (!field) continue;
    const [, key, raw = ''] = field;
    const block = /^([|>])[+-]?$/.exec(raw);
    if (block) {
      const body: string[] = [];
      while (i + 1 < lines.length && (/^\s+\S/.test(lines[i + 1]!) || lines[i + 1] === ''))
        body.push(lines[++i]!.trim());
      fields[key!] =
        block[1] === '|' ? body.join('\n').replace(/\n+$/, '') : body.join(' ').replace(/\s+/g, ' ').trim();
    } else if (/^'.*'$/.test(raw)) fields[key!] = raw.slice(1, -1).replace(/''/g, "'");
    else if (/^".*"$/.test(raw)) fields[key!] = jsonString(raw) ?? raw.slice(1, -1);
    else if (raw !== '') fields[key!] = raw.replace(/\s+#.*$/, '');
  }
  return fields;
}

/** A double-quoted YAML scalar read as JSON (their escapes are JSON's, but for a few exotic ones: left as written). */
function jsonString(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}
