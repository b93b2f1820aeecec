import { Hono } from 'hono';
import { vaultSource } from '../../auth/vault';
import { VaultAuth } from '../../auth/vault-auth';
import { loadConfig, serversOf } from '../../config';
import { probeServers } from '../../mcp/probe';
import { connectLinks } from '../../auth/connect-links';
import type { AppBindings } from '../types';

/**
 * `GET /v1/servers`: the caller's tenant's MCP servers (never their headers),
 * with live status and capabilities. An OAuth server is probed with the
 * caller's own token; one they have not connected says `auth_required`,
 * with the `connectUrl` to open. Browser-token callers do not see the
 * servers' URLs (API-key callers, the tenant's backend, do).
 */
export const servers = new Hono<AppBindings>().get('/', async (c) => {
  const config = loadConfig(c.env);
  const principal = c.get('principal');
  const { tenant, user } = principal;
  const servers = serversOf(config, tenant).filter((s) => !principal.servers || principal.servers.includes(s.id));
  const probes = await probeServers(servers, c.env as unknown as Env & Record<string, unknown>, config.settings, (server) => {
    if (server.auth.type === 'none') return undefined;
    const owner = server.auth.type === 'oauth' ? { tenant, user } : { tenant };
    return { key: `${tenant}:${server.auth.type === 'oauth' ? user : ''}`, auth: new VaultAuth(vaultSource(c.env, owner, server.id), server.id) };
  });
  const listed = await connectLinks(c.env, { tenant, user }, probes);
  // Where the tenant's servers live is the tenant's business: an end user's browser gets ids, titles and status only.
  return c.json({ servers: principal.browser ? listed.map(({ url: _url, ...rest }) => rest) : listed });
});
