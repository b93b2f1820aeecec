import type { OAuthSetup } from '../config/oauth';
import { encodeBase64Url, KeyRing } from './keyring';

/** A connect link is good for this long, once. */
export const TICKET_TTL_MS = 10 * 60_000;
/** An authorization in flight (start → callback) is good for this long, once. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;

/**
 * The connect link: `/oauth/start#<ticket>`. The ticket rides in the
 * fragment, which browsers never send, so no request log (ours, wrangler's,
 * the platform's) ever prints it; the start page posts it (docs/SECURITY.md).
 */
export const START_PATH = '/oauth/start';

/** Whose vault: an end user's (OAuth), or the tenant's (client credentials, `user` absent). */
export interface VaultOwner {
  tenant: string;
  user?: string | undefined;
}

/** What a connect link or an authorization's `state` stands for, sealed (AES-GCM) so nobody can forge or alter it. */
export interface AuthorizationTicket {
  tenant: string;
  user: string;
  server: string;
  /** Single use: the vault remembers the nonces it saw. */
  nonce: string;
  expiresAt: number;
}

const TICKET_PURPOSE = 'connect-ticket';
const STATE_PURPOSE = 'oauth-state';

const rings = new Map<string, Promise<KeyRing>>();

/** The key ring of OAUTH_TOKEN_KEYS (imported once per isolate). */
export function keyRing(setup: Pick<OAuthSetup, 'keySpec'>): Promise<KeyRing> {
  let ring = rings.get(setup.keySpec);
  if (!ring) {
    ring = KeyRing.from(setup.keySpec);
    ring.catch(() => rings.delete(setup.keySpec));
    rings.set(setup.keySpec, ring);
  }
  return ring;
}

export const newNonce = () => encodeBase64Url(crypto.getRandomValues(new Uint8Array(32)));

/** The connect link's URL, which the frontend opens (in a popup) to connect `server`: this Worker's start route with a sealed, short-lived, single-use ticket. */
export async function connectUrl(
  setup: OAuthSetup,
  owner: { tenant: string; user: string },
  server: string,
): Promise<{ url: string; expiresAt: number }> {
  const ticket: AuthorizationTicket = { ...owner, server, nonce: newNonce(), expiresAt: Date.now() + TICKET_TTL_MS };
  const sealed = await (await keyRing(setup)).seal(JSON.stringify(ticket), TICKET_PURPOSE);
  return { url: `${setup.publicUrl.origin}${START_PATH}#${sealed}`, expiresAt: ticket.expiresAt };
}

export const openTicket = (setup: OAuthSetup, sealed: string) => openSealed(setup, sealed, TICKET_PURPOSE);
export const openState = (setup: OAuthSetup, sealed: string) => openSealed(setup, sealed, STATE_PURPOSE);

/** The `state` parameter of one authorization request. */
export async function sealState(setup: OAuthSetup, ticket: AuthorizationTicket): Promise<string> {
  return (await keyRing(setup)).seal(JSON.stringify(ticket), STATE_PURPOSE);
}

/** The ticket, or undefined when it was forged, altered, sealed for another use, or has expired. */
async function openSealed(
  setup: OAuthSetup,
  sealed: string,
  purpose: string,
): Promise<AuthorizationTicket | undefined> {
  if (sealed.length > 2_000) return undefined;
  const text = await (await keyRing(setup)).open(sealed, purpose);
  if (!text) return undefined;
  const ticket = JSON.parse(text) as AuthorizationTicket;
  return ticket.expiresAt > Date.now() ? ticket : undefined;
}
