import { htmlToMarkdown } from 'mdream';
import type { ConvertedDocument, ConvertLimits } from '../../shared/documents';
import { TextOut } from './text-out';

/**
 * HTML → readable markdown with mdream's minimal preset: the main content (navigation, forms, footers, asides
 * dropped), scripts and styles never reach the text, links and tables kept. The page's `<title>` is its title.
 * mdream is Rust compiled to WebAssembly; in workerd its `.wasm` is a module of the bundle, compiled at upload,
 * never at run time.
 */
export function convertHtml(bytes: Uint8Array, limits: ConvertLimits): ConvertedDocument {
  const html = new TextDecoder().decode(bytes);
  let title: string | undefined;
  const markdown = withoutFrontmatter(
    htmlToMarkdown(html, {
      minimal: true,
      frontmatter: (fields) => {
        title = fields.title?.trim() || undefined;
      },
    }),
  ).trim();
  const out = new TextOut(limits.maxChars);
  out.add(markdown);
  return out.whole('html', title);
}

/** The minimal preset heads the text with the page's metadata (`---\ntitle: …\n---`): the title is returned apart. */
function withoutFrontmatter(markdown: string): string {
  if (!markdown.startsWith('---\n')) return markdown;
  const end = markdown.indexOf('\n---\n', 4);
  return end < 0 ? markdown : markdown.slice(end + 5);
}

/** CSV is text already: decoded, kept as it is (within `maxChars`). */
export function convertCsv(bytes: Uint8Array, limits: ConvertLimits): ConvertedDocument {
  const out = new TextOut(limits.maxChars);
  out.add(new TextDecoder().decode(bytes));
  return out.whole('csv');
}
