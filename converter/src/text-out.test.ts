import { expect, it } from 'vitest';
import { TextOut } from './text-out';

it('records where each part starts, a blank line between parts', () => {
  const out = new TextOut(100);
  out.part();
  out.add('one');
  out.part();
  out.add('two');
  expect(out.text).toBe('one\n\ntwo');
  expect(out.starts).toEqual([0, 5]);
  expect(out.paged({ format: 'pdf', kind: 'page', count: 2, maxPages: 10 })).toEqual({
    format: 'pdf',
    text: 'one\n\ntwo',
    pageCount: 2,
    parts: { kind: 'page', starts: [0, 5] },
  });
});

it('stops at maxChars, never inside a surrogate pair, and says in which part', () => {
  const out = new TextOut(8);
  out.part();
  expect(out.add('abc')).toBe(true);
  out.part();
  expect(out.add('de😀f')).toBe(false);
  expect(out.text).toBe('abc\n\nde');
  expect(out.part()).toBe(false);
  expect(out.paged({ format: 'pdf', kind: 'page', count: 5, maxPages: 3 }).note).toBe(
    'text stops at 8 characters (DOCUMENT_MAX_CHARS), in page 2 of 5',
  );
});

it('names the page limit when the parts ran out before the characters', () => {
  const out = new TextOut(100);
  out.part();
  out.add('x');
  expect(out.paged({ format: 'pptx', kind: 'slide', count: 9, maxPages: 1, notes: ['one of mine'] }).note).toBe(
    'one of mine; converted up to slide 1 of 9 (DOCUMENT_MAX_PAGES)',
  );
  expect(new TextOut(3).whole('csv')).toEqual({ format: 'csv', text: '' });
});
