import { ApiError } from '../errors';

/**
 * AES-256-GCM keys for what this service keeps sealed: OAuth tokens at rest
 * (src/auth/vault.ts) and the `state` of an authorization in flight
 * (tickets.ts). `OAUTH_TOKEN_KEYS` (a Worker secret) lists `id:base64key`
 * pairs, comma separated; the first seals, all of them open — so a key is
 * rotated by putting a new one first and dropping the old one once no sealed
 * value needs it (values carry their key's id).
 */
export class KeyRing {
  private constructor(
    private readonly current: { id: string; key: CryptoKey },
    private readonly byId: Map<string, CryptoKey>,
  ) {}

  static async from(spec: string): Promise<KeyRing> {
    const entries = spec
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf(':');
        const id = part.slice(0, at);
        if (at < 1 || !/^[\w-]{1,32}$/.test(id)) throw invalidKeys('each entry is "id:base64key"');
        const raw = decodeBase64(part.slice(at + 1));
        if (raw?.length !== 32) throw invalidKeys(`key "${id}" must be 32 bytes, base64`);
        return { id, raw };
      });
    if (!entries.length) throw invalidKeys('no key');
    const byId = new Map<string, CryptoKey>();
    for (const { id, raw } of entries)
      byId.set(id, await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']));
    const first = entries[0]!.id;
    return new KeyRing({ id: first, key: byId.get(first)! }, byId);
  }

  /** `keyId.iv.ciphertext` (base64url). `purpose` is authenticated with it (AES-GCM additional data): a value sealed for one place does not open in another. */
  async seal(plaintext: string, purpose: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: utf8(purpose) },
      this.current.key,
      utf8(plaintext),
    );
    return `${this.current.id}.${encodeBase64Url(iv)}.${encodeBase64Url(new Uint8Array(sealed))}`;
  }

  /** The plaintext, or undefined when the value was tampered with, sealed for another purpose, or under a key no longer listed. */
  async open(sealed: string, purpose: string): Promise<string | undefined> {
    const [id, iv, body, extra] = sealed.split('.');
    const key = id ? this.byId.get(id) : undefined;
    const ivBytes = iv ? decodeBase64(iv) : undefined;
    const bodyBytes = body ? decodeBase64(body) : undefined;
    if (!key || !ivBytes || !bodyBytes || extra !== undefined) return undefined;
    try {
      return new TextDecoder().decode(
        await crypto.subtle.decrypt({ name: 'AES-GCM', iv: ivBytes, additionalData: utf8(purpose) }, key, bodyBytes),
      );
    } catch {
      return undefined;
    }
  }

  /** Whether this value was sealed under an older key (to be sealed again under the current one). */
  isStale(sealed: string): boolean {
    return !sealed.startsWith(`${this.current.id}.`);
  }
}

const invalidKeys = (why: string) => new ApiError(500, 'invalid_config', `OAUTH_TOKEN_KEYS is invalid: ${why}`);

const utf8 = (text: string) => new TextEncoder().encode(text);

export function encodeBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Standard or URL-safe base64; undefined when it is neither. */
function decodeBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
