import { describe, expect, it } from 'vitest';
import { isTextType, uploadType } from './content-type';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const TEXT = new TextEncoder().encode('hello, world');

describe('uploadType', () => {
  it('keeps a declared type its bytes agree with', () => {
    expect(uploadType('image/png', 'a.png', PNG)).toBe('image/png');
    expect(uploadType('text/plain; charset=utf-8', 'a.txt', TEXT)).toBe('text/plain');
  });

  it('takes the extension when nothing (or octet-stream) is declared', () => {
    expect(uploadType('', 'notes.md', TEXT)).toBe('text/markdown');
    expect(uploadType('application/octet-stream', 'logo.png', PNG)).toBe('image/png');
    expect(uploadType('', 'blob', TEXT)).toBe('application/octet-stream');
  });

  it('refuses a claim the bytes contradict: never an image, a PDF or text it is not', () => {
    expect(uploadType('image/png', 'a.png', TEXT)).toBe('application/octet-stream');
    expect(uploadType('application/pdf', 'a.pdf', PNG)).toBe('application/octet-stream');
    expect(uploadType('text/plain', 'a.txt', PNG)).toBe('application/octet-stream');
    expect(uploadType('not a type', 'a.txt', TEXT)).toBe('application/octet-stream');
  });
});

it('isTextType: text/*, JSON, XML, YAML and their +suffixes', () => {
  for (const t of ['text/csv', 'application/json', 'application/ld+json', 'image/svg+xml', 'application/yaml'])
    expect(isTextType(t), t).toBe(true);
  for (const t of ['image/png', 'application/pdf', 'application/octet-stream']) expect(isTextType(t), t).toBe(false);
});
