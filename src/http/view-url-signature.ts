/**
 * View links signed in the Worker. `GET /views/<conversation>/<nonce>` takes
 * no credential (an iframe's `src` carries none; the nonce is the
 * capability), so without this anyone could make the Worker address — and so
 * create — a conversation's Durable Object for any well-formed id. With a
 * signature over (conversation, nonce), a path no view link of ours names is
 * refused before any object is addressed.
 *
 * The key is derived from `TENANTS` (a secret in production): no new secret
 * to deploy. Changing `TENANTS` invalidates outstanding view links, which live 10
 * minutes and are minted per view anyway. Without `TENANTS` (local
 * development, where the API is open too) view links are not signed.
 */

const encoder = new TextEncoder();
/** The key of the last `TENANTS` seen by this isolate (one deployment has one). */
let cached: { tenants: string; key: Promise<CryptoKey> } | undefined;

function keyFor(env: Pick<Env, 'TENANTS'>): Promise<CryptoKey> | undefined {
  const tenants = env.TENANTS?.trim();
  if (!tenants) return undefined;
  if (cached?.tenants !== tenants) {
    const key = crypto.subtle
      .digest('SHA-256', encoder.encode(`mcp-ondemand view links\n${tenants}`))
      .then((material) => crypto.subtle.importKey('raw', material, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
    cached = { tenants, key };
  }
  return cached.key;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** The last segment of a view link's path: `<nonce>.<signature>` (128 bits of HMAC-SHA-256), or the nonce alone when links are not signed. */
export async function signedViewSegment(
  env: Pick<Env, 'TENANTS'>,
  conversationId: string,
  nonce: string,
): Promise<string> {
  const key = keyFor(env);
  if (!key) return nonce;
  const signature = new Uint8Array(
    await crypto.subtle.sign('HMAC', await key, encoder.encode(`${conversationId}/${nonce}`)),
  ).slice(0, 16);
  return `${nonce}.${base64url(signature)}`;
}

/** The nonce of a segment this service signed for this conversation, or undefined (then: 404, no object addressed). */
export async function verifiedViewNonce(
  env: Pick<Env, 'TENANTS'>,
  conversationId: string,
  segment: string,
): Promise<string | undefined> {
  const nonce = segment.split('.')[0] ?? '';
  if (!/^[0-9a-f]{32}$/.test(nonce)) return undefined;
  const expected = encoder.encode(await signedViewSegment(env, conversationId, nonce));
  const given = encoder.encode(segment);
  return expected.length === given.length && crypto.subtle.timingSafeEqual(expected, given) ? nonce : undefined;
}
