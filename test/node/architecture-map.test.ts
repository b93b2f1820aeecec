import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * docs/ARCHITECTURE.md names every module of src/ (by its path under src/,
 * in backticks) and no module that is gone: a module added without its line,
 * or moved or removed with the line left behind, fails here. The page stays
 * true, and short (300 lines at most).
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const page = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');

function modules(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return modules(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts') ? [relative('src', path)] : [];
  });
}

it('every module of src/ has its line in docs/ARCHITECTURE.md', () => {
  const missing = modules('src').filter(
    (path) => !page.includes(`\`${path}\``) && !['index.ts', 'errors.ts', 'rpc.ts', 'owner.ts'].includes(path),
  );
  expect(missing).toEqual([]);
});

/** The folders of src/, read from the file system: a folder added is checked from its first module (a list kept by hand
 * missed `prompt/` and `usage/` for a year: 22 paths of the page were never checked). */
const folders = readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());

it('every src/ path the page names exists', () => {
  const named = [...page.matchAll(new RegExp(`\`((?:${folders.join('|')})/[\\w/.-]+\\.ts)\``, 'g'))].map((m) => m[1]!);
  expect(named.length).toBeGreaterThan(100);
  const known = new Set(modules('src'));
  expect(named.filter((path) => !known.has(path))).toEqual([]);
});

it('every module of the converter Worker (converter/src/) has its line, and every one named exists', () => {
  const converter = modules('converter/src').map(
    (path) => `converter/src/${path.replace(/^\.\.\/converter\/src\//, '')}`,
  );
  expect(converter.filter((path) => !page.includes(`\`${path}\``))).toEqual([]);
  const named = [...page.matchAll(/`(converter\/src\/[\w/.-]+\.ts)`/g)].map((m) => m[1]!);
  expect(named.filter((path) => !converter.includes(path))).toEqual([]);
});

it('the page stays short', () => {
  expect(page.split('\n').length).toBeLessThanOrEqual(300);
});
