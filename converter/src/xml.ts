import { parse, type TNode } from 'txml/txml';

/**
 * A small ordered XML tree (txml) and the few walks the Office readers need. txml keeps document order and
 * namespaced tag names as written (`a:p`, `w:t`), which is all OOXML asks; it does no entity expansion beyond
 * the five XML entities and character references, and has no DTDs, so an entity bomb has nothing to expand.
 */
export type XmlNode = TNode;

export function parseXml(text: string): XmlNode[] {
  return parse(text, { keepWhitespace: true, decodeEntities: true, selfClosingTags: [] }) as XmlNode[];
}

export const isElement = (node: unknown): node is XmlNode => typeof node === 'object' && node !== null;

/** Element children of `node` (named `tag`, if given). */
export const children = (node: XmlNode | undefined, tag?: string): XmlNode[] =>
  (node?.children ?? []).filter((c): c is XmlNode => isElement(c) && (!tag || c.tagName === tag));

export const child = (node: XmlNode | undefined, tag: string): XmlNode | undefined => children(node, tag)[0];

/** Every element named `tag` below `nodes`, in document order. */
export function descendants(nodes: readonly (XmlNode | string)[], tag: string, out: XmlNode[] = []): XmlNode[] {
  for (const node of nodes)
    if (isElement(node)) {
      if (node.tagName === tag) out.push(node);
      descendants(node.children, tag, out);
    }
  return out;
}

export const attribute = (node: XmlNode | undefined, name: string): string | undefined =>
  node?.attributes?.[name] ?? undefined;

/** The text directly inside `node` (its string children). */
export const ownText = (node: XmlNode): string => node.children.filter((c) => !isElement(c)).join('');

/** Relationships of an OOXML part (`_rels/<part>.rels`): id → target (resolved against the part's folder). */
export function relationships(
  xml: string | undefined,
  part: string,
): Record<string, { target: string; type: string; external: boolean }> {
  const folder = part.slice(0, part.lastIndexOf('/'));
  const out: Record<string, { target: string; type: string; external: boolean }> = {};
  if (!xml) return out;
  for (const rel of descendants(parseXml(xml), 'Relationship')) {
    const id = attribute(rel, 'Id');
    const target = attribute(rel, 'Target') ?? '';
    if (!id) continue;
    const external = attribute(rel, 'TargetMode') === 'External';
    out[id] = { type: attribute(rel, 'Type') ?? '', external, target: external ? target : resolvePart(folder, target) };
  }
  return out;
}

/** Where the rels file of `part` is. */
export const relsOf = (part: string): string => {
  const at = part.lastIndexOf('/');
  return `${part.slice(0, at + 1)}_rels/${part.slice(at + 1)}.rels`;
};

function resolvePart(folder: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = folder ? folder.split('/') : [];
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts.join('/');
}

/** `dc:title` of an Office package's docProps/core.xml, if it has one. */
export function coreTitle(xml: string | undefined): string | undefined {
  if (!xml) return undefined;
  const title = descendants(parseXml(xml), 'dc:title')[0];
  const text = title ? ownText(title).trim() : '';
  return text || undefined;
}
