import { zipSync } from 'fflate';
import mammoth from 'mammoth';
import { htmlToMarkdown } from 'mdream';
import type { ConvertedDocument, ConvertLimits } from '../../shared/documents';
import { Refusal } from './refusal';
import { TextOut } from './text-out';
import { ZIP_LIMITS } from './zip-limits';
import { openZip } from './zip';
import { coreTitle } from './xml';

/**
 * DOCX → markdown: mammoth turns the document's structure (headings by style, lists by numbering, tables, links,
 * bold and italic) into HTML, mdream turns that into markdown. mammoth reads the package with its own unzip, which
 * trusts the ZIP's sizes; so it is handed a package we rebuilt from the entries we inflated ourselves, within the
 * limits (zip.ts), with the media left out: images become nothing (their bytes are never read) and a linked
 * external file is never fetched.
 */
export async function convertDocx(bytes: Uint8Array, limits: ConvertLimits): Promise<ConvertedDocument> {
  const zip = openZip(bytes, ZIP_LIMITS);
  if (!zip.has('word/document.xml')) throw new Refusal('not a DOCX file: the package has no word/document.xml');
  const parts: Record<string, [Uint8Array, { level: 0 }]> = {};
  for (const name of zip.names) if (/\.(xml|rels)$/i.test(name)) parts[name] = [zip.read(name)!, { level: 0 }];
  const html = (
    await mammoth.convertToHtml(
      { arrayBuffer: zipSync(parts).buffer as ArrayBuffer },
      {
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        externalFileAccess: false,
        ignoreEmptyParagraphs: true,
      },
    )
  ).value;
  const out = new TextOut(limits.maxChars);
  out.add(htmlToMarkdown(html, { clean: { emptyImages: true, emptyLinks: true, emptyLinkText: true } }).trim());
  return out.whole('docx', coreTitle(zip.text('docProps/core.xml')));
}
