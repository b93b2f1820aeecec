import { describe, expect, it } from 'vitest';
import { partAt, partsLabel } from './pages';

const pdf = {
  from: 'application/pdf',
  bytes: 1000,
  pageCount: 3,
  parts: { kind: 'page' as const, starts: [0, 100, 250] },
};

describe('pages of a converted document', () => {
  it('finds the page that holds an offset', () => {
    expect(partAt(pdf, 0)).toBe(1);
    expect(partAt(pdf, 99)).toBe(1);
    expect(partAt(pdf, 100)).toBe(2);
    expect(partAt(pdf, 10_000)).toBe(3);
    expect(partAt(undefined, 5)).toBeUndefined();
  });

  it('names the pages a window holds', () => {
    expect(partsLabel(pdf, 0, 100)).toBe('page 1 of 3');
    expect(partsLabel(pdf, 50, 260)).toBe('pages 1-3 of 3');
    expect(partsLabel(pdf, 100, 250)).toBe('page 2 of 3');
  });

  it('says how many pages there are when only some were converted, and names sheets', () => {
    expect(partsLabel({ ...pdf, pageCount: 812 }, 260, 300)).toBe('page 3 of 812');
    const book = {
      from: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      bytes: 10,
      parts: { kind: 'sheet' as const, starts: [0, 40], names: ['Q1', 'Q2'] },
    };
    expect(partsLabel(book, 0, 80)).toBe('sheets 1-2 of 2 (Q1, Q2)');
  });
});
