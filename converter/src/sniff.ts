import type { DocumentFormat } from '../../shared/documents';
import { Refusal } from './refusal';

/**
 * The bytes checked against the format they are said to be, before any parser sees them: a PDF starts with `%PDF-`
 * (within its first kilobyte, as readers allow), an Office file is a ZIP (`PK\3\4`), HTML and CSV are text. An
 * encrypted Office file is not a ZIP but an OLE compound file holding an `EncryptedPackage` stream; it is named as
 * such, as is a legacy binary .doc/.xls/.ppt (also OLE).
 */
export function checkBytes(bytes: Uint8Array, format: DocumentFormat): void {
  if (format === 'pdf') {
    if (!find(bytes, PDF, 0, 1024))
      throw new Refusal(`not a PDF: its bytes do not start with %PDF-${described(bytes)}`);
    return;
  }
  if (format === 'docx' || format === 'xlsx' || format === 'pptx') {
    if (startsWith(bytes, ZIP)) return;
    if (startsWith(bytes, OLE))
      throw new Refusal(
        find(bytes, ENCRYPTED_PACKAGE, 0, bytes.length)
          ? 'encrypted: a password is needed (an encrypted Office file)'
          : `not a ${format.toUpperCase()} file: a legacy binary Office file (.doc, .xls, .ppt), which is not read`,
      );
    throw new Refusal(
      `not a ${format.toUpperCase()} file: its bytes are not an Office (ZIP) package${described(bytes)}`,
    );
  }
  // HTML and CSV are text: a NUL in the first kilobytes, or a known binary signature, says otherwise.
  if (startsWith(bytes, PDF) || startsWith(bytes, ZIP) || startsWith(bytes, OLE) || bytes.subarray(0, 4096).includes(0))
    throw new Refusal(`not ${format === 'html' ? 'HTML' : 'CSV'}: its bytes are binary${described(bytes)}`);
}

const PDF = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-
const ZIP = [0x50, 0x4b, 0x03, 0x04]; // PK\3\4
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** "EncryptedPackage" as an OLE directory entry name (UTF-16LE). */
const ENCRYPTED_PACKAGE = [...'EncryptedPackage'].flatMap((c) => [c.charCodeAt(0), 0]);

const startsWith = (bytes: Uint8Array, magic: number[]) => magic.every((byte, i) => bytes[i] === byte);

function find(bytes: Uint8Array, magic: number[], from: number, within: number): boolean {
  const last = Math.min(from + within, bytes.length - magic.length);
  const first = magic[0];
  for (let at = bytes.indexOf(first!, from); at >= 0 && at <= last; at = bytes.indexOf(first!, at + 1)) {
    let i = 1;
    while (i < magic.length && bytes[at + i] === magic[i]) i++;
    if (i === magic.length) return true;
  }
  return false;
}

/** What the bytes look like instead, when we know: " (they are a PDF)". */
function described(bytes: Uint8Array): string {
  if (startsWith(bytes, PDF)) return ' (they are a PDF)';
  if (startsWith(bytes, ZIP)) return ' (they are a ZIP)';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return ' (they are a PNG image)';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return ' (they are a JPEG image)';
  if (bytes.length === 0) return ' (the file is empty)';
  return '';
}
