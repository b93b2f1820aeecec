import { Hono } from 'hono';
import { connectLink } from '../../auth/tickets';
import { vaultOf } from '../../auth/vault';
import { loadConfig, serversOf } from '../../config';
import { oauthSetup } from '../../config/oauth';
import { notFound } from '../../errors';
import { unwrap } from '../../rpc';
import { announceAuthorizationChange } from '../reauthorize';
import type { AppBindings, Principal } from '../types';

/**
 * `/v1/connections`: the caller's own connections to the tenant's OAuth
 * servers (docs/API.md). Lists them (never a token), mints a connect link
 * (`POST /:server`), and disconnects (`DELETE /:server`: revoked at the
 * server where it can, then forgotten; open conversations drop the connection).
 */
export const connections = new Hono<AppBindings>()
  .get('/', async (c) => {
    const principal = c.get('principal');
    const owner = { tenant: principal.tenant, user: principal.user };
    // Most tenants have no OAuth server: no vault call for them (the widget asks once per conversation).
    if (!serversOf(loadConfig(c.env), principal.tenant).some((s) => s.auth.type === 'oauth')) return c.json({ connections: [] });
    const listed = unwrap(await vaultOf(c.env, owner).connections(owner)).filter((entry) => allowed(principal, entry.server));
    const setup = listed.some((e) => e.status !== 'connected') ? oauthSetup(c.env as unknown as Record<string, string>) : undefined;
    const withLinks = await Promise.all(
      listed.map(async (entry) =>
        entry.status === 'connected' || !setup ? entry : { ...entry, connectUrl: (await connectLink(setup, owner, entry.server)).url },
      ),
    );
    return c.json({ connections: withLinks });
  })
  .post('/:server', async (c) => {
    const principal = c.get('principal');
    const server = oauthServer(c.env, principal, c.req.param('server'));
    const link = await connectLink(oauthSetup(c.env as unknown as Record<string, string>), { tenant: principal.tenant, user: principal.user }, server);
    return c.json({ server, url: link.url, expiresAt: new Date(link.expiresAt).toISOString() });
  })
  .delete('/:server', async (c) => {
    const principal = c.get('principal');
    const server = oauthServer(c.env, principal, c.req.param('server'));
    const owner = { tenant: principal.tenant, user: principal.user };
    const { revoked } = unwrap(await vaultOf(c.env, owner).disconnect(owner, server));
    await announceAuthorizationChange(c.env, owner, server);
    return c.json({ server, status: 'not_connected', revoked });
  });

/** One of the caller's tenant's servers with auth "oauth", and one the caller may use; else 404. */
function oauthServer(env: Env, principal: Principal, id: string): string {
  const server = serversOf(loadConfig(env), principal.tenant).find((s) => s.id === id);
  if (server?.auth.type !== 'oauth' || !allowed(principal, id)) throw notFound(`OAuth server "${id}"`);
  return id;
}

const allowed = (principal: Principal, server: string) => !principal.servers || principal.servers.includes(server);
