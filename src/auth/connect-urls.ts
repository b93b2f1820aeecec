import { connectUrl } from './tickets';
import { oauthSetup } from '../config/oauth';

/**
 * Adds `connectUrl` — the caller's own, single use, 10 minutes — to each
 * entry that needs the caller to connect (or grant more access).
 */
export async function withConnectUrls<
  T extends { id: string; status: string; authorization?: { reason: string } | undefined },
>(env: Env, owner: { tenant: string; user: string }, entries: T[]): Promise<(T & { connectUrl?: string })[]> {
  const needing = entries.filter(
    (e) => e.status === 'auth_required' || e.authorization?.reason === 'insufficient_scope',
  );
  if (!needing.length) return entries;
  const setup = oauthSetup(env);
  return Promise.all(
    entries.map(async (entry) =>
      needing.includes(entry) ? { ...entry, connectUrl: (await connectUrl(setup, owner, entry.id)).url } : entry,
    ),
  );
}
