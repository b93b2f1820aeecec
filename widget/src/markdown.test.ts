// The widget's markdown (markdown.ts) in plain Node: the renderer only creates
// nodes and appends them, so a few lines of fake document stand in for the
// browser's, and each case is read back as the HTML a browser would hold.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

class FakeNode {
  readonly childNodes: Array<FakeNode | string> = [];
  readonly attributes: Record<string, string> = {};
  constructor(readonly nodeName: string) {}
  append(...nodes: Array<FakeNode | string>): void {
    for (const node of nodes)
      if (node instanceof FakeNode && node.nodeName === '#document-fragment') this.childNodes.push(...node.childNodes);
      else if (node !== '') this.childNodes.push(node);
  }
  appendChild<T extends FakeNode>(node: T): T {
    this.append(node);
    return node;
  }
  setAttribute(name: string, value: string): void {
    this.attributes[name] = value;
  }
  set textContent(text: string) {
    this.childNodes.splice(0, this.childNodes.length, text);
  }
  get html(): string {
    const inner = this.childNodes.map((n) => (typeof n === 'string' ? n : n.html)).join('');
    if (this.nodeName === '#document-fragment') return inner;
    const attributes = Object.entries(this.attributes).map(([k, v]) => ` ${k}="${v}"`);
    return this.nodeName === 'br' ? '<br>' : `<${this.nodeName}${attributes.join('')}>${inner}</${this.nodeName}>`;
  }
}

const fakeDocument = {
  createDocumentFragment: () => new FakeNode('#document-fragment'),
  createElement: (name: string) => new FakeNode(name),
  createTextNode: (text: string) => text,
} as unknown as Document;

const html = (source: string) => (renderMarkdown(source, fakeDocument) as unknown as FakeNode).html;

describe('renderMarkdown: lists', () => {
  it('a hard-wrapped item keeps its indented second line (the demo skill, estimate-a-task): five items, no loose lines', () => {
    const skill = [
      'Use this when someone asks how long a task will take.',
      '',
      '1. Read the team guidelines: estimates are in hours, and no single task',
      '   may be estimated above the limit they give. A bigger task is split first.',
      '2. Split the work into parts a person can finish in one sitting.',
      '3. Size each part in whole hours; round up, never down.',
      '4. Go through `checklist.md` item by item.',
      '5. Answer with the parts, their hours and the total. If you create tasks, create one per part:',
      '   the user is asked to approve each.',
    ].join('\n');
    expect(html(skill)).toBe(
      '<p>Use this when someone asks how long a task will take.</p><ol>' +
        '<li>Read the team guidelines: estimates are in hours, and no single task<br>may be estimated above the limit they give. A bigger task is split first.</li>' +
        '<li>Split the work into parts a person can finish in one sitting.</li>' +
        '<li>Size each part in whole hours; round up, never down.</li>' +
        '<li>Go through <code>checklist.md</code> item by item.</li>' +
        '<li>Answer with the parts, their hours and the total. If you create tasks, create one per part:<br>the user is asked to approve each.</li>' +
        '</ol>',
    );
  });

  it('a lazy continuation (the wrapped line not indented) stays in its item; a paragraph after a blank line does not', () => {
    expect(html('- first item goes on\nand on here\n- second\n\nAfter the list.')).toBe(
      '<ul><li>first item goes on<br>and on here</li><li>second</li></ul><p>After the list.</p>',
    );
  });

  it('a list indented by two to four spaces nests in the item above it, and the outer list goes on after it', () => {
    for (const indent of ['  ', '   ', '    '])
      expect(html(`1. Parts\n${indent}- design\n${indent}- build\n2. Total`)).toBe(
        '<ol><li>Parts<ul><li>design</li><li>build</li></ul></li><li>Total</li></ol>',
      );
    expect(html('- a\n  - b\n    - c\n      wrapped\n  - d\n- e')).toBe(
      '<ul><li>a<ul><li>b<ul><li>c<br>wrapped</li></ul></li><li>d</li></ul></li><li>e</li></ul>',
    );
  });

  it('items split by blank lines stay one list (numbers follow); a paragraph between them splits it, keeping numbers', () => {
    expect(html('1. one\n\n2. two\n\n   more about two\n3. three')).toBe(
      '<ol><li>one</li><li>two<p>more about two</p></li><li>three</li></ol>',
    );
    expect(html('1. one\n\nBetween.\n\n2. two')).toBe(
      '<ol><li>one</li></ol><p>Between.</p><ol start="2"><li>two</li></ol>',
    );
    // Steps quoted out of a longer list keep their numbers; a model's "1. 1. 1." counts on as usual.
    expect(html('> 1. first\n>\n> 3. third\n>\n> 5. fifth')).toBe(
      '<blockquote><ol><li>first</li><li value="3">third</li><li value="5">fifth</li></ol></blockquote>',
    );
    expect(html('1. a\n1. b\n1. c')).toBe('<ol><li>a</li><li>b</li><li>c</li></ol>');
  });

  it('a list of the other kind, a heading, a quote or a fence after an item is not swallowed by it', () => {
    expect(html('- a\n1. b')).toBe('<ul><li>a</li></ul><ol><li>b</li></ol>');
    expect(html('- a\n# Title')).toBe('<ul><li>a</li></ul><h4>Title</h4>');
    expect(html('- a\n> quoted')).toBe('<ul><li>a</li></ul><blockquote><p>quoted</p></blockquote>');
    expect(html('- a\n  ```\n  let x = 1;\n  ```')).toBe('<ul><li>a<pre><code>let x = 1;</code></pre></li></ul>');
  });

  it('text stays text inside items: markup in an item is a text node, links keep their rule', () => {
    const list = renderMarkdown(
      '- <img src=x onerror=alert(1)>\n  [x](javascript:void0)',
      fakeDocument,
    ) as unknown as FakeNode;
    const item = (list.childNodes[0] as FakeNode).childNodes[0] as FakeNode;
    expect(item.childNodes).toEqual(['<img src=x onerror=alert(1)>', expect.objectContaining({ nodeName: 'br' }), 'x']);
  });
});
