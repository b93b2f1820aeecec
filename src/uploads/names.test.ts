import { describe, expect, it } from 'vitest';
import { isSafeFileName, safeFileName, uniqueName } from './names';

describe('safeFileName', () => {
  it('keeps the last path segment, drops accents, replaces the rest, keeps the extension', () => {
    expect(safeFileName('C:\\Users\\me\\Q3 report (final).pdf')).toBe('Q3_report_final.pdf');
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('Résumé.pdf')).toBe('Resume.pdf');
    expect(safeFileName('.env')).toBe('env');
    expect(safeFileName('..')).toBe('file');
    expect(safeFileName('')).toBe('file');
    expect(safeFileName('日本語.txt')).toBe('file.txt');
  });

  it('is at most 128 characters, extension kept, and always a safe name', () => {
    const long = safeFileName(`${'a'.repeat(300)}.docx`);
    expect(long).toHaveLength(128);
    expect(long.endsWith('.docx')).toBe(true);
    for (const raw of ['a b', '..x', '-x', 'x\u0000y', 'ÿ'.repeat(200), '/'.repeat(5)])
      expect(isSafeFileName(safeFileName(raw)), raw).toBe(true);
  });
});

describe('uniqueName', () => {
  it('suffixes before the extension until the name is free', () => {
    expect(uniqueName('a.pdf', new Set())).toBe('a.pdf');
    expect(uniqueName('a.pdf', new Set(['a.pdf']))).toBe('a-2.pdf');
    expect(uniqueName('a.pdf', new Set(['a.pdf', 'a-2.pdf']))).toBe('a-3.pdf');
    expect(uniqueName('README', new Set(['README']))).toBe('README-2');
  });
});
