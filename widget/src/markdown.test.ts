// The widget's markdown (markdown.ts) in plain Node: the renderer only creates
// nodes and appends them, so a few lines of fake document stand in for the
// browser's, and each case is read back as the HTML a browser would hold.
import { describe, expect, it } from 'vitest';
import { RenderedBlocks, renderMarkdown } from './markdown';

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
  addEventListener(): void {}
  set textContent(text: string) {
    this.childNodes.splice(0, this.childNodes.length, text);
  }
  get textContent(): string {
    return this.childNodes.map((n) => (typeof n === 'string' ? n : n.textContent)).join('');
  }
  get html(): string {
    const inner = this.childNodes.map((n) => (typeof n === 'string' ? n : n.html)).join('');
    if (this.nodeName === '#document-fragment') return inner;
    const attributes = Object.entries(this.attributes).map(([k, v]) => ` ${k}="${v}"`);
    const open = `<${this.nodeName}${attributes.join('')}>`;
    return ['br', 'input'].includes(this.nodeName) ? open : `${open}${inner}</${this.nodeName}>`;
  }
}

const fakeDocument = {
  createDocumentFragment: () => new FakeNode('#document-fragment'),
  createElement: (name: string) => new FakeNode(name),
  createTextNode: (text: string) => text,
} as unknown as Document;

const html = (source: string) => (renderMarkdown(source, fakeDocument) as unknown as FakeNode).html;

/** A code block as the renderer builds it: the language and a Copy button above the code. */
const codeHtml = (language: string, code: string) =>
  '<div class="code-block" part="code-block"><div class="code-head">' +
  `<span class="code-lang">${language}</span>` +
  '<button type="button" class="code-copy" part="code-copy" aria-label="Copy code" title="Copy code">Copy</button></div>' +
  `<pre><code${language ? ` class="language-${language}"` : ''}>${code}</code></pre></div>`;

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
    expect(html('- a\n  ```\n  let x = 1;\n  ```')).toBe(`<ul><li>a${codeHtml('', 'let x = 1;')}</li></ul>`);
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

describe('renderMarkdown: nested and mixed lists', () => {
  it('ordered and unordered lists nest in each other by indentation, three levels deep, tabs counting as four', () => {
    expect(html('- fruit\n  1. apple\n  2. pear\n     - green\n     - ripe\n- vegetables')).toBe(
      '<ul><li>fruit<ol><li>apple</li><li>pear<ul><li>green</li><li>ripe</li></ul></li></ol></li><li>vegetables</li></ul>',
    );
    expect(html('1. one\n\t- a\n\t- b\n2. two')).toBe('<ol><li>one<ul><li>a</li><li>b</li></ul></li><li>two</li></ol>');
  });

  it('a hard-wrapped nested item keeps its continuation line, indented or lazy', () => {
    expect(html('- outer\n  - inner item that goes\n    on here\n  - next\n    and lazily\n- last')).toBe(
      '<ul><li>outer<ul><li>inner item that goes<br>on here</li><li>next<br>and lazily</li></ul></li><li>last</li></ul>',
    );
  });
});

describe('renderMarkdown: task lists', () => {
  it('`- [ ]` and `- [x]` are disabled checkboxes named by their text; the list is marked as tasks', () => {
    expect(html('- [ ] write the **tests**\n- [x] ship it\n- [X] done too\n- plain')).toBe(
      '<ul class="tasks">' +
        '<li class="task"><input type="checkbox" disabled="" aria-label="write the tests">write the <strong>tests</strong></li>' +
        '<li class="task"><input type="checkbox" disabled="" checked="" aria-label="ship it">ship it</li>' +
        '<li class="task"><input type="checkbox" disabled="" checked="" aria-label="done too">done too</li>' +
        '<li>plain</li></ul>',
    );
  });

  it('a task item still streaming in (`- [ ]` alone) has a box named "Task"; `[y]` or `[x]text` are text', () => {
    expect(html('1. [ ]')).toBe(
      '<ol class="tasks"><li class="task"><input type="checkbox" disabled="" aria-label="Task"></li></ol>',
    );
    expect(html('- [y] no\n- [x]no')).toBe('<ul><li>[y] no</li><li>[x]no</li></ul>');
  });

  it('task lists nest like any list', () => {
    expect(html('- [x] plan\n  - [ ] design\n  - [x] build')).toBe(
      '<ul class="tasks"><li class="task"><input type="checkbox" disabled="" checked="" aria-label="plan">plan' +
        '<ul class="tasks"><li class="task"><input type="checkbox" disabled="" aria-label="design">design</li>' +
        '<li class="task"><input type="checkbox" disabled="" checked="" aria-label="build">build</li></ul></li></ul>',
    );
  });
});

describe('renderMarkdown: tables', () => {
  const wrap = (inner: string) =>
    `<div class="table-wrap" role="region" aria-label="Table" tabindex="0"><table part="table">${inner}</table></div>`;

  it('a GFM table: header cells, rows, alignment from the delimiter row, inline markdown in cells', () => {
    expect(
      html(
        '| Task | Hours | Owner |\n|:-----|------:|:-----:|\n| **Design** | 3 | `ana` |\n| Build | 12 | [Bo](https://example.com) |',
      ),
    ).toBe(
      wrap(
        '<thead><tr><th scope="col" data-align="left">Task</th><th scope="col" data-align="right">Hours</th><th scope="col" data-align="center">Owner</th></tr></thead>' +
          '<tbody><tr><td data-align="left"><strong>Design</strong></td><td data-align="right">3</td><td data-align="center"><code>ana</code></td></tr>' +
          '<tr><td data-align="left">Build</td><td data-align="right">12</td><td data-align="center"><a href="https://example.com/" target="_blank" rel="noopener noreferrer nofollow">Bo (example.com)</a></td></tr></tbody>',
      ),
    );
  });

  it('without outer pipes, with escaped pipes, ragged rows (filled or cut to the header), then a paragraph after a blank line', () => {
    expect(html('a | b\n--- | ---\n1 \\| 2 | 3 | extra\nonly\n\nAfter.')).toBe(
      `${wrap(
        '<thead><tr><th scope="col">a</th><th scope="col">b</th></tr></thead>' +
          '<tbody><tr><td>1 | 2</td><td>3</td></tr></tbody>',
      )}<p>only</p><p>After.</p>`,
    );
    expect(html('| a | b |\n|---|---|\n| 1 |')).toBe(
      wrap(
        '<thead><tr><th scope="col">a</th><th scope="col">b</th></tr></thead><tbody><tr><td>1</td><td></td></tr></tbody>',
      ),
    );
  });

  it('a column with a cell of more than 24 characters of text is one of prose (it gets room on a phone)', () => {
    expect(
      html('| a | b |\n|---|---|\n| [short](https://example.com/a/very/long/address) | twenty-five characters... |'),
    ).toContain('<th scope="col">a</th><th scope="col" class="prose">b</th>');
  });

  it('a table right under a paragraph line starts there; one in a list item nests in it', () => {
    expect(html('The estimates:\n| part | h |\n|---|---|\n| a | 1 |')).toBe(
      `<p>The estimates:</p>${wrap('<thead><tr><th scope="col">part</th><th scope="col">h</th></tr></thead><tbody><tr><td>a</td><td>1</td></tr></tbody>')}`,
    );
    expect(html('- item\n\n  | x |\n  |---|\n  | 1 |')).toBe(
      `<ul><li>item${wrap('<thead><tr><th scope="col">x</th></tr></thead><tbody><tr><td>1</td></tr></tbody>')}</li></ul>`,
    );
  });

  it('not a table: a delimiter row of another width, no pipes, a setext-like line, or more than 64 columns', () => {
    expect(html('| a | b |\n|---|\n| 1 | 2 |')).toBe('<p>| a | b |<br>|---|<br>| 1 | 2 |</p>');
    expect(html('a b\n---')).toBe('<p>a b<br>---</p>');
    const wide = `${'| c '.repeat(65)}|\n${'|---'.repeat(65)}|`;
    expect(html(wide)).not.toContain('<table');
  });

  it('while it streams in: a half-received delimiter row already makes a table; a half-received row is filled', () => {
    expect(html('| Task | Hours |\n|---')).toBe(
      wrap('<thead><tr><th scope="col">Task</th><th scope="col">Hours</th></tr></thead>'),
    );
    expect(html('| Task | Hours |\n| :-- | --')).toBe(
      wrap('<thead><tr><th scope="col" data-align="left">Task</th><th scope="col">Hours</th></tr></thead>'),
    );
    expect(html('| Task | Hours |\n|---|---|\n| Des')).toBe(
      wrap(
        '<thead><tr><th scope="col">Task</th><th scope="col">Hours</th></tr></thead><tbody><tr><td>Des</td><td></td></tr></tbody>',
      ),
    );
  });

  it('huge tables render in time linear in their size (5,000 rows; a row of 100,000 pipes)', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => `| ${i} | row ${i} | **${i}** |`).join('\n');
    let started = performance.now();
    const big = html(`| n | text | bold |\n|---|---|---|\n${rows}`);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(big.match(/<tr>/g)).toHaveLength(5_001);
    started = performance.now();
    expect(html(`| a |\n|---|\n${'|'.repeat(100_000)}`)).toContain('<table');
    expect(html(`${'|'.repeat(100_000)}\n${'|-'.repeat(50_000)}`)).not.toContain('<table');
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('renderMarkdown: code', () => {
  it('a fenced block names its language, has a Copy button, and keeps its text as text', () => {
    expect(html('```python\nprint("<b>hi</b>")\n```')).toBe(codeHtml('python', 'print("<b>hi</b>")'));
    expect(html('~~~\nplain\n~~~')).toBe(codeHtml('', 'plain'));
    // The info string's first word; its case does not matter.
    expect(html('```TS {title="a.ts"}\nlet a;\n```')).toBe(codeHtml('ts', 'let a;'));
  });

  it('a fence not closed yet (streaming) takes the rest of the answer as its code', () => {
    expect(html('Run:\n```bash\nnpm install\nnpm te')).toBe(`<p>Run:</p>${codeHtml('bash', 'npm install\nnpm te')}`);
  });

  it('inline code keeps what is in it as it is: markdown, pipes, markup', () => {
    expect(html('Use `**not bold** <b>` and `a|b`.')).toBe(
      '<p>Use <code>**not bold** <b></code> and <code>a|b</code>.</p>',
    );
  });
});

describe('renderMarkdown: links and hostile text', () => {
  it('links open in a new tab without opener or referrer; bare and <…> addresses are links, without the sentence’s punctuation', () => {
    expect(html('See https://example.com/docs. Or <https://example.com/a_b>, (https://example.com/x).')).toBe(
      '<p>See <a href="https://example.com/docs" target="_blank" rel="noopener noreferrer nofollow">https://example.com/docs</a>. ' +
        'Or <a href="https://example.com/a_b" target="_blank" rel="noopener noreferrer nofollow">https://example.com/a_b</a>, ' +
        '(<a href="https://example.com/x" target="_blank" rel="noopener noreferrer nofollow">https://example.com/x</a>).</p>',
    );
    expect(html('Write to [us](mailto:help@example.com).')).toBe(
      '<p>Write to <a href="mailto:help@example.com" target="_blank" rel="noopener noreferrer nofollow">us (help@example.com)</a>.</p>',
    );
  });

  it('javascript:, data: and other schemes are never links, in any case or spelling', () => {
    for (const href of ['javascript:alert`1`', 'JaVaScRiPt:void0', 'data:text/html,<script>x</script>', 'vbscript:x'])
      expect(html(`[click](${href})`)).toBe('<p>click</p>');
    expect(html('<javascript:alert(1)>')).toBe('<p><javascript:alert(1)></p>');
    expect(html('~~gone~~ and ~~`code`~~')).toBe('<p><del>gone</del> and <del><code>code</code></del></p>');
  });

  it('HTML in any construct is text: a table cell, a task, a code block, a heading', () => {
    const nodes = renderMarkdown(
      '# <script>alert(1)</script>\n| <img src=x onerror=alert(1)> |\n|---|\n- [ ] <iframe src=javascript:alert(1)>\n\n```html\n<script>alert(1)</script>\n```',
      fakeDocument,
    ) as unknown as FakeNode;
    const elements: string[] = [];
    const walk = (node: FakeNode | string) => {
      if (typeof node === 'string') return;
      elements.push(node.nodeName);
      expect(Object.keys(node.attributes)).not.toContain('src');
      expect(node.attributes.href ?? '').not.toMatch(/javascript/i);
      node.childNodes.forEach(walk);
    };
    walk(nodes);
    expect(elements.filter((name) => ['script', 'img', 'iframe'].includes(name))).toEqual([]);
    expect(nodes.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('hostile inline text (unclosed brackets, long runs of markers) renders quickly', () => {
    const started = performance.now();
    html(`${'[['.repeat(20_000)} ${'**'.repeat(20_000)} ${'~~'.repeat(20_000)} https://${'a'.repeat(50_000)}`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('renderMarkdown while an answer streams (RenderedBlocks)', () => {
  const render = (source: string, reuse: RenderedBlocks) =>
    (renderMarkdown(source, fakeDocument, reuse) as unknown as FakeNode).childNodes as FakeNode[];

  it('a block the text goes on after is the same DOM on the next frame; the last block is built anew', () => {
    const reuse = new RenderedBlocks();
    const first = render('| a |\n|---|\n| 1 |\n\n```js\nlet a', reuse);
    const second = render('| a |\n|---|\n| 1 |\n\n```js\nlet a = 1;\n```\n\nDone', reuse);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    const third = render('| a |\n|---|\n| 1 |\n\n```js\nlet a = 1;\n```\n\nDone.', reuse);
    expect(third.slice(0, 2)).toEqual(second.slice(0, 2));
    expect(third[0]).toBe(first[0]);
    expect(third[1]).toBe(second[1]);
    expect(third[2]).not.toBe(second[2]);
  });

  it('the same text twice in an answer is two elements; a block that changed is built anew', () => {
    const reuse = new RenderedBlocks();
    const first = render('Yes.\n\nYes.\n\nmore', reuse);
    const second = render('Yes.\n\nYes.\n\nmore text', reuse);
    expect(second[0]).not.toBe(second[1]);
    expect(new Set([second[0], second[1]])).toEqual(new Set([first[0], first[1]]));
    const changed = render('Yes!\n\nYes.\n\nmore text', reuse);
    expect(changed[0]).not.toBe(second[0]);
    expect((changed[0] as FakeNode).html).toBe('<p>Yes!</p>');
  });

  it('rendering with or without reuse gives the same markup', () => {
    const source = '# T\n\n- [x] a\n- b\n\n| x |\n|:-:|\n| 1 |\n\n> q\n\n```\nc\n```\n\ntail';
    const reuse = new RenderedBlocks();
    render(source, reuse);
    expect((renderMarkdown(source, fakeDocument, reuse) as unknown as FakeNode).html).toBe(html(source));
  });
});
