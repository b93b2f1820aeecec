// The highlighting chunk's highlighter (highlighter.ts) in plain Node: every language name the widget loads the
// chunk for is one it has, code comes back as tokens whose text is exactly the code, and `paint` builds spans and
// text nodes only.
import { describe, expect, it } from 'vitest';
import { fenceLanguage, HIGHLIGHTED_LANGUAGES } from './highlight-languages';
import { MAX_HIGHLIGHTED_CHARS, paint, registered, tokens } from './highlighter';

type Tree = {
  type: string;
  value?: string;
  tagName?: string;
  children?: Tree[];
  properties?: { className?: string[] };
};
const text = (node: Tree): string => node.value ?? (node.children ?? []).map(text).join('');
const classes = (node: Tree): string[] => [
  ...(node.properties?.className ?? []),
  ...(node.children ?? []).flatMap(classes),
];

describe('the highlighter', () => {
  it('has every language the widget loads it for (names and aliases a fence may use)', () => {
    expect([...HIGHLIGHTED_LANGUAGES].filter((name) => !registered(name))).toEqual([]);
    expect(registered('rust')).toBe(false);
  });

  it('gives tokens, never HTML: the text of the tree is the code as written, markup included', () => {
    const code = 'const a = "<script>alert(1)</script>"; // &amp;\nfunction f(x) { return x + 1; }';
    const tree = tokens(code, 'js') as unknown as Tree;
    expect(text(tree)).toBe(code);
    expect(classes(tree)).toEqual(expect.arrayContaining(['hl-keyword', 'hl-string', 'hl-comment', 'hl-title']));
  });

  it('colours the common languages (a keyword or a string in each)', () => {
    const samples: Record<string, string> = {
      python: 'def f(x):\n    return "a"',
      typescript: 'interface A { b: string }',
      json: '{"a": 1, "b": true}',
      bash: 'if [ -f x ]; then echo "hi"; fi',
      sql: 'SELECT name FROM tasks WHERE id = 1;',
      html: '<div class="a">b</div>',
      css: '.a { color: red; }',
      yaml: 'name: demo\nitems:\n  - 1',
      go: 'func main() { fmt.Println("hi") }',
      java: 'public class A { int b = 1; }',
      diff: '--- a\n+++ b\n-old\n+new',
    };
    for (const [language, code] of Object.entries(samples)) {
      const tree = tokens(code, language) as unknown as Tree;
      expect(text(tree), language).toBe(code);
      expect(classes(tree).length, language).toBeGreaterThan(0);
    }
  });

  it('leaves an unknown language and code over the limit alone', () => {
    expect(tokens('fn main() {}', 'rust')).toBeUndefined();
    expect(tokens('x'.repeat(MAX_HIGHLIGHTED_CHARS + 1), 'js')).toBeUndefined();
  });

  it('paint: the code element gets spans with class names and text nodes, nothing parsed', () => {
    const made: string[] = [];
    const element = (name: string) => {
      made.push(name);
      const node = {
        name,
        className: '',
        children: [] as unknown[],
        append: (...c: unknown[]) => node.children.push(...c),
      };
      return node;
    };
    const doc = { createElement: element, createTextNode: (value: string) => ({ value }) };
    const code = {
      textContent: 'let s = "<b>";',
      ownerDocument: doc,
      dataset: {} as Record<string, string>,
      children: [] as unknown[],
      replaceChildren(...c: unknown[]) {
        this.children = c;
      },
    };
    expect(paint(code as unknown as HTMLElement, 'ts')).toBe(true);
    expect(new Set(made)).toEqual(new Set(['span']));
    expect(code.dataset.highlighted).toBe('ts');
    const flat = (n: unknown): string =>
      (n as { value?: string }).value ?? ((n as { children: unknown[] }).children ?? []).map(flat).join('');
    expect(code.children.map(flat).join('')).toBe('let s = "<b>";');
  });

  it('reads the language from a fence’s info string', () => {
    expect(fenceLanguage('Python')).toBe('python');
    expect(fenceLanguage(' ts {title="a.ts"}')).toBe('ts');
    expect(fenceLanguage('c++')).toBe('c++');
    expect(fenceLanguage('')).toBe('');
  });
});
