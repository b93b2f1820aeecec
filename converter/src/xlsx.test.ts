import { expect, it } from 'vitest';
import { columnOf, excelDate, isDateFormat } from './xlsx';

it('columns, dates and date formats as Excel has them', () => {
  expect([columnOf('A1'), columnOf('Z9'), columnOf('AA10'), columnOf('XFD1')]).toEqual([0, 25, 26, 16_383]);
  expect(excelDate(46_037, false)).toBe('2026-01-15');
  expect(excelDate(46_037.5, false)).toBe('2026-01-15 12:00:00');
  expect(excelDate(44_575, true)).toBe('2026-01-15');
  expect(excelDate(1e20, false)).toBeUndefined();
  expect(['yyyy-mm-dd', 'd/m/yy h:mm', '[$-409]mmm d', 'hh:mm:ss'].map(isDateFormat)).toEqual([true, true, true, true]);
  expect(['0.00', '#,##0', '0%', '"days"0', '[Red]0.0'].map(isDateFormat)).toEqual([false, false, false, false, false]);
});
