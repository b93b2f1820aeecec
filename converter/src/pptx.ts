import type { ConvertedDocument, ConvertLimits } from '../../shared/documents';
import { markdownTable } from './markdown';
import { Refusal } from './refusal';
import { TextOut } from './text-out';
import {
  attribute,
  child,
  children,
  coreTitle,
  descendants,
  isElement,
  parseXml,
  relationships,
  relsOf,
  type XmlNode,
} from './xml';
import { ZIP_LIMITS } from './zip-limits';
import { openZip } from './zip';

/**
 * PPTX → one section per slide in the deck's order (`## Slide 3: <title>`), with where each starts: the title
 * placeholder, then every text shape in the slide tree's order as bullets indented by their level, tables as
 * markdown tables, and the speaker notes. Slide numbers, dates and footers are left out; a hidden slide says so.
 */
export function convertPptx(bytes: Uint8Array, limits: ConvertLimits): ConvertedDocument {
  const zip = openZip(bytes, ZIP_LIMITS);
  const presentationXml = zip.text('ppt/presentation.xml');
  if (!presentationXml) throw new Refusal('not a PPTX file: the package has no ppt/presentation.xml');
  const rels = relationships(zip.text(relsOf('ppt/presentation.xml')), 'ppt/presentation.xml');
  const slideIds = descendants(parseXml(presentationXml), 'p:sldId');

  const out = new TextOut(limits.maxChars);
  for (const [index, slideId] of slideIds.slice(0, limits.maxPages).entries()) {
    if (!out.part()) break;
    const part = rels[attribute(slideId, 'r:id') ?? '']?.target;
    const xml = part ? zip.text(part) : undefined;
    if (!out.add(xml ? slideMarkdown(index + 1, parseXml(xml), notesOf(part!)) : `## Slide ${index + 1}`)) break;
  }
  return out.paged({
    format: 'pptx',
    kind: 'slide',
    count: slideIds.length,
    maxPages: limits.maxPages,
    title: coreTitle(zip.text('docProps/core.xml')),
  });

  function notesOf(slidePart: string): string {
    const slideRels = relationships(zip.text(relsOf(slidePart)), slidePart);
    const notesPart = Object.values(slideRels).find((rel) => rel.type.endsWith('/notesSlide'))?.target;
    const xml = notesPart ? zip.text(notesPart) : undefined;
    if (!xml) return '';
    return descendants(parseXml(xml), 'p:sp')
      .filter((shape) => placeholderType(shape) === 'body')
      .flatMap((shape) => paragraphs(child(shape, 'p:txBody')))
      .join('\n');
  }
}

const LEFT_OUT = new Set(['sldNum', 'dt', 'ftr']);

function slideMarkdown(number: number, slide: XmlNode[], notes: string): string {
  let title = '';
  const blocks: string[] = [];
  const walk = (tree: XmlNode | undefined) => {
    for (const shape of children(tree)) {
      if (shape.tagName === 'p:grpSp') walk(shape);
      else if (shape.tagName === 'p:sp') {
        const lines = paragraphs(child(shape, 'p:txBody'));
        if (!lines.length) continue;
        const type = placeholderType(shape);
        if (!title && (type === 'title' || type === 'ctrTitle')) title = lines.map((l) => l.trim()).join(' ');
        else if (!LEFT_OUT.has(type ?? ''))
          blocks.push(lines.map((line) => `${/^\s*/.exec(line)![0]}- ${line.trimStart()}`).join('\n'));
      } else if (shape.tagName === 'p:graphicFrame')
        for (const table of descendants([shape], 'a:tbl'))
          blocks.push(
            markdownTable(
              children(table, 'a:tr').map((row) =>
                children(row, 'a:tc').map((cell) =>
                  paragraphs(child(cell, 'a:txBody'))
                    .map((l) => l.trim())
                    .join('\n'),
                ),
              ),
            ),
          );
    }
  };
  walk(descendants(slide, 'p:spTree')[0]);
  const hidden = attribute(descendants(slide, 'p:sld')[0], 'show') === '0' ? ' (hidden)' : '';
  const heading = `## Slide ${number}${title ? `: ${title}` : ''}${hidden}`;
  const notesBlock = notes ? `\n\n> Notes: ${notes.replace(/\n/g, '\n> ')}` : '';
  return [heading, ...blocks].join('\n\n') + notesBlock;
}

function placeholderType(shape: XmlNode): string | undefined {
  const placeholder = child(child(child(shape, 'p:nvSpPr'), 'p:nvPr'), 'p:ph');
  return placeholder ? (attribute(placeholder, 'type') ?? 'body') : undefined;
}

/** A text body's paragraphs with text, each indented two spaces per level (`a:pPr lvl`). */
function paragraphs(body: XmlNode | undefined): string[] {
  return children(body, 'a:p')
    .map((paragraph) => {
      const level = Number(attribute(child(paragraph, 'a:pPr'), 'lvl') ?? 0) || 0;
      const text = children(paragraph)
        .map((run) =>
          run.tagName === 'a:r' || run.tagName === 'a:fld'
            ? children(run, 'a:t')
                .map((t) => t.children.filter((c) => !isElement(c)).join(''))
                .join('')
            : run.tagName === 'a:br'
              ? '\n'
              : '',
        )
        .join('');
      return text.trim() ? `${'  '.repeat(Math.min(level, 8))}${text}` : '';
    })
    .filter(Boolean);
}
