import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { openZip } from './zip';

const LIMITS = { maxEntries: 10, maxInflatedBytes: 1_000 };

describe('openZip', () => {
  it('reads stored and deflated entries by name', () => {
    const zip = openZip(
      zipSync({ 'a.xml': [strToU8('<a/>'), { level: 0 }], 'b/c.xml': strToU8('x'.repeat(500)) }),
      LIMITS,
    );
    expect(zip.names).toEqual(['a.xml', 'b/c.xml']);
    expect(zip.text('a.xml')).toBe('<a/>');
    expect(zip.text('b/c.xml')).toBe('x'.repeat(500));
    expect(zip.read('missing.xml')).toBeUndefined();
  });

  it('counts what is inflated against one budget for the whole package', () => {
    const zip = openZip(zipSync({ 'a.xml': strToU8('a'.repeat(600)), 'b.xml': strToU8('b'.repeat(600)) }), LIMITS);
    expect(zip.text('a.xml')).toHaveLength(600);
    expect(() => zip.read('b.xml')).toThrow('it inflates to more than 0 MiB (a ZIP bomb?)');
  });

  it('refuses too many entries, and what is not a ZIP', () => {
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`${i}.xml`, strToU8('')]));
    expect(() => openZip(zipSync(many), LIMITS)).toThrow('the package lists 11 entries, more than 10');
    expect(() => openZip(strToU8('%PDF-1.7 not a zip'), LIMITS)).toThrow('not a ZIP package (no central directory)');
  });

  it('refuses an entry cut short', () => {
    const bytes = zipSync({ 'a.xml': strToU8('a'.repeat(300)) });
    // Point the entry's data past the end of the file.
    const view = new DataView(bytes.buffer);
    const central = bytes.findIndex((_, i) => view.getUint32(i, true) === 0x02014b50);
    view.setUint32(central + 20, 1_000_000, true);
    expect(() => openZip(bytes, LIMITS).read('a.xml')).toThrow('a damaged ZIP (entry a.xml is cut)');
  });
});
