import { createRoute } from '@hono/zod-openapi';
import { ServerList } from '../../../shared/api/catalog';
import { withConnectUrls } from '../../auth/connect-urls';
import { vaultSource } from '../../auth/vault';
import { VaultAuth } from '../../auth/vault-auth';
import { loadConfig, serversOf } from '../../config';
import { definitionPinsOf } from '../../mcp/catalog/definition-pins';
import { probeServers } from '../../mcp/probe';
import { errors, json, routes, V1_ERRORS } from '../openapi';

const list = createRoute({
  method: 'get',
  path: '/',
  tags: ['servers'],
  summary: "The tenant's MCP servers, live",
  description:
    'Status, capabilities and protocol of each server (never its headers); an OAuth server the caller has not connected says `auth_required` with their `connectUrl`. ' +
    'Browser tokens do not see the URLs.',
  responses: { 200: json(ServerList, 'Every server the caller may use.'), ...errors(...V1_ERRORS) },
});

/**
 * `GET /v1/servers`: the caller's tenant's MCP servers (never their headers),
 * with live status and capabilities. An OAuth server is probed with the
 * caller's own token; one they have not connected says `auth_required`,
 * with the `connectUrl` to open. Browser-token callers do not see the
 * servers' URLs (API-key callers, the tenant's backend, do).
 */
export const servers = routes().openapi(list, async (c) => {
  const config = loadConfig(c.env);
  const principal = c.get('principal');
  const { tenant, user } = principal;
  const servers = serversOf(config, tenant).filter((s) => !principal.servers || principal.servers.includes(s.id));
  const probes = await probeServers(
    servers,
    c.env,
    config.settings,
    (server) => {
      if (server.auth.type === 'none') return undefined;
      const owner = server.auth.type === 'oauth' ? { tenant, user } : { tenant };
      return {
        key: `${tenant}:${server.auth.type === 'oauth' ? user : ''}`,
        auth: new VaultAuth(vaultSource(c.env, owner, server.id), server.id),
      };
    },
    { tenant, client: definitionPinsOf(c.env, tenant) },
  );
  const listed = await withConnectUrls(c.env, { tenant, user }, probes);
  // Where the tenant's servers live is the tenant's business: an end user's browser gets ids, titles and status only.
  return c.json({ servers: principal.browser ? listed.map(({ url: _url, ...rest }) => rest) : listed }, 200);
});
