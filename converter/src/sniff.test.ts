import { expect, it } from 'vitest';
import { checkBytes } from './sniff';

const bytes = (text: string) => new TextEncoder().encode(text);

it('a PDF starts with %PDF- (leading junk allowed), an Office file with PK', () => {
  expect(() => checkBytes(bytes('%PDF-1.7\n'), 'pdf')).not.toThrow();
  expect(() => checkBytes(bytes(`${' '.repeat(100)}%PDF-1.4`), 'pdf')).not.toThrow();
  expect(() => checkBytes(bytes('PK\x03\x04rest'), 'xlsx')).not.toThrow();
  expect(() => checkBytes(bytes('hello'), 'pdf')).toThrow('not a PDF: its bytes do not start with %PDF-');
  expect(() => checkBytes(bytes('%PDF-1.7'), 'pptx')).toThrow(
    'not a PPTX file: its bytes are not an Office (ZIP) package (they are a PDF)',
  );
  expect(() => checkBytes(new Uint8Array(0), 'docx')).toThrow('(the file is empty)');
});

it('an OLE file is an encrypted Office file when it holds an EncryptedPackage, else a legacy one', () => {
  const ole = new Uint8Array(600);
  ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  expect(() => checkBytes(ole, 'xlsx')).toThrow('not a XLSX file: a legacy binary Office file');
  ole.set(
    [...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]),
    500,
  );
  expect(() => checkBytes(ole, 'xlsx')).toThrow('encrypted: a password is needed (an encrypted Office file)');
});

it('HTML and CSV must be text', () => {
  expect(() => checkBytes(bytes('<p>hi</p>'), 'html')).not.toThrow();
  expect(() => checkBytes(bytes('a,b\0c'), 'csv')).toThrow('not CSV: its bytes are binary');
});
