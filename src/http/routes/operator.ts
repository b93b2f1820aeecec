import { createRoute } from '@hono/zod-openapi';
import { OperatorOverview, OperatorServers, OperatorServersQuery } from '../../../shared/api/operator';
import { vaultSource } from '../../auth/vault';
import { VaultAuth } from '../../auth/vault-auth';
import { loadConfig, serversOf } from '../../config';
import { probeServers } from '../../mcp/probe';
import { operatorOverview, tenantIdsOf } from '../../usage/operator-overview';
import { errors, json, routes } from '../openapi';

const OPERATOR = [{ operator: [] }];

const overview = createRoute({
  method: 'get',
  path: '/overview',
  tags: ['operator'],
  summary: 'Every tenant’s spend, budgets, days and live work',
  description:
    'For the operator’s page (`/admin`), with the operator key (not a tenant key). Counters are those of `GET /v1/usage`, from the same ledgers.',
  security: OPERATOR,
  responses: { 200: json(OperatorOverview, 'Every tenant.'), ...errors(401) },
});

const servers = createRoute({
  method: 'get',
  path: '/servers',
  tags: ['operator'],
  summary: 'Every tenant’s MCP servers, live',
  description:
    'Status, protocol and warnings of each tenant’s servers, probed as `GET /v1/servers` does (reused for 30 s); servers with per-user OAuth say `auth_required` (no user here), tenant-wide credentials are used.',
  security: OPERATOR,
  request: { query: OperatorServersQuery },
  responses: { 200: json(OperatorServers, 'Each tenant’s servers.'), ...errors(400, 401) },
});

/** `/admin/api/*`: what the operator's page reads (behind http/middleware/operator-auth.ts). */
export const operator = routes()
  .openapi(overview, async (c) => {
    c.header('cache-control', 'no-store');
    return c.json(await operatorOverview(c.env, loadConfig(c.env)), 200);
  })
  .openapi(servers, async (c) => {
    const config = loadConfig(c.env);
    const only = c.req.valid('query').tenant;
    const tenants = tenantIdsOf(config).filter((id) => only === undefined || id === only);
    const probed = await Promise.all(
      tenants.map(async (tenant) => {
        const probes = await probeServers(serversOf(config, tenant), c.env, config.settings, (server) =>
          server.auth.type === 'client_credentials'
            ? { key: `${tenant}:`, auth: new VaultAuth(vaultSource(c.env, { tenant }, server.id), server.id) }
            : undefined,
        );
        return probes.map((probe) => ({ tenant, ...probe }));
      }),
    );
    c.header('cache-control', 'no-store');
    return c.json({ servers: probed.flat() }, 200);
  });
