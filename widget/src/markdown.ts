/**
 * A small markdown subset rendered by building DOM nodes: paragraphs,
 * headings, block quotes, lists, fenced code, `code`, **bold**, *emphasis*
 * and [links](https://…). Every piece of text becomes a text node, never
 * markup, so model output and resource text cannot inject HTML or script —
 * there is no sanitiser to get wrong because nothing is ever parsed as HTML.
 * Links are kept only for http(s) and mailto, and open in a new tab without
 * an opener.
 */
export function renderMarkdown(source: string, doc: Document = document): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) code.push(lines[i]!);
      i++;
      const pre = doc.createElement('pre');
      pre.appendChild(doc.createElement('code')).textContent = code.join('\n');
      fragment.append(pre);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Headings inside a chat bubble stay small: h4–h6 whatever the level.
      const h = doc.createElement(`h${Math.min(6, heading[1]!.length + 3)}`);
      h.append(inline(heading[2]!, doc));
      fragment.append(h);
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const quoted: string[] = [];
      for (; i < lines.length && /^\s*>/.test(lines[i]!); i++) quoted.push(lines[i]!.replace(/^\s*> ?/, ''));
      const blockquote = doc.createElement('blockquote');
      blockquote.append(renderMarkdown(quoted.join('\n'), doc));
      fragment.append(blockquote);
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const marker = item.exec(line)![1]!;
      const ordered = /\d/.test(marker);
      const list = doc.createElement(ordered ? 'ol' : 'ul');
      // Items split by blank lines arrive as separate lists: keep their numbers.
      if (ordered && parseInt(marker, 10) !== 1) list.setAttribute('start', String(parseInt(marker, 10)));
      for (; i < lines.length && item.test(lines[i]!); i++) {
        const li = doc.createElement('li');
        li.append(inline(lines[i]!.replace(item, ''), doc));
        list.append(li);
      }
      fragment.append(list);
      continue;
    }
    const paragraph: string[] = [];
    for (
      ;
      i < lines.length && !/^\s*$/.test(lines[i]!) && !/^\s*(```|~~~|>|#{1,6}\s|[-*+]\s|\d+[.)]\s)/.test(lines[i]!);
      i++
    )
      paragraph.push(lines[i]!);
    if (!paragraph.length) paragraph.push(lines[i++]!);
    const p = doc.createElement('p');
    paragraph.forEach((text, n) => {
      if (n) p.append(doc.createElement('br'));
      p.append(inline(text, doc));
    });
    fragment.append(p);
  }
  return fragment;
}

// Underscore emphasis only at word boundaries, as in CommonMark: snake_case and demo__tool stay as written.
// Link parts are bounded, so hostile text ("[[[[…") cannot make the match take seconds.
const INLINE =
  /`([^`]+)`|\*\*([^*]+)\*\*|(?<!\w)__([^_]+)__(?!\w)|\*([^*\s][^*]*)\*|(?<!\w)_([^_\s][^_]*)_(?!\w)|\[([^[\]\n]{1,300})\]\(([^)\s]{1,2048})\)/g;

function inline(text: string, doc: Document): DocumentFragment {
  const fragment = doc.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    fragment.append(text.slice(last, match.index));
    last = match.index + match[0].length;
    const [, code, bold1, bold2, em1, em2, label, href] = match;
    if (code !== undefined) fragment.appendChild(doc.createElement('code')).textContent = code;
    else if (bold1 ?? bold2) fragment.appendChild(doc.createElement('strong')).append(inline(bold1 ?? bold2!, doc));
    else if (em1 ?? em2) fragment.appendChild(doc.createElement('em')).append(inline(em1 ?? em2!, doc));
    else if (label !== undefined) fragment.append(link(label, href!, doc));
  }
  fragment.append(text.slice(last));
  return fragment;
}

function link(label: string, href: string, doc: Document): Node {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return doc.createTextNode(`${label} (${href})`);
  }
  if (!['http:', 'https:', 'mailto:'].includes(url.protocol)) return doc.createTextNode(label);
  const a = doc.createElement('a');
  a.href = url.href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  // A label that is not the address itself also shows where the link goes.
  a.textContent =
    label === href || label === url.href ? label : `${label} (${url.protocol === 'mailto:' ? url.pathname : url.host})`;
  return a;
}
