/**
 * Keys are configured as SHA-256 hex digests, never in the clear (a tenant's `apiKeySha256`, `OPERATOR_KEY_SHA256`):
 * a presented key is hashed once, then compared with each digest in constant time.
 */
export async function keyDigest(key: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
}

/** Whether `digest` is the one `hex` writes (64 hex digits, checked where the config is read), in constant time. */
export function isDigest(digest: Uint8Array, hex: string): boolean {
  const expected = Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
  return crypto.subtle.timingSafeEqual(digest, expected);
}
