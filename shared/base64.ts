/**
 * Bytes ⇄ base64 (standard alphabet), as MCP carries blobs and `data:` URLs carry files. One pair for every layer
 * (shared/ is a leaf): atob/btoa work on binary strings, and each caller used to write the same loop around them.
 */

/** The bytes of base64 text (whitespace ignored); throws a DOMException when it is not base64. */
export function bytesOfBase64(base64: string): Uint8Array {
  const binary = atob(base64.replace(/\s/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 of bytes, in chunks (a spread of a large array would overflow the call stack). */
export function base64OfBytes(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
