import { createRoute } from '@hono/zod-openapi';
import {
  ConfirmDefinitionBody,
  ConfirmedDefinition,
  OperatorOverview,
  OperatorServers,
  OperatorServersQuery,
} from '../../../shared/api/operator';
import { notFound } from '../../errors';
import { definitionPinsOf } from '../../mcp/catalog/definition-pins';
import { quotedName } from '../../mcp/catalog/server-warnings';
import { logEvent } from '../../observability/log';
import { vaultSource } from '../../auth/vault';
import { VaultAuth } from '../../auth/vault-auth';
import { loadConfig, serversOf } from '../../config';
import { forgetProbes, probeServers } from '../../mcp/probe';
import { operatorOverview, tenantIdsOf } from '../../usage/operator-overview';
import { errors, json, jsonBody, jsonRequest, routes } from '../openapi';

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

const confirm = createRoute({
  method: 'post',
  path: '/definitions/confirm',
  tags: ['operator'],
  summary: 'Approve a tool’s (or the instructions’) new definition',
  description:
    'A tool whose definition changed since it was approved loses `autoApprove` and `trustAnnotations` (every call asks the person again) until the operator approves the new definition: send the warning’s `change` (its `current` digest as `sha256`) with the tenant and server. Calls of that definition run without asking again from the next turn; another definition still asks. For instructions, it only ends the warning.',
  security: OPERATOR,
  middleware: [jsonRequest] as const,
  request: { body: jsonBody(ConfirmDefinitionBody) },
  responses: { 200: json(ConfirmedDefinition, 'Approved.'), ...errors(400, 401, 404, 415) },
});

/** `/admin/api/*`: what the operator's page reads, and the definitions it re-confirms (behind http/middleware/operator-auth.ts). */
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
        const probes = await probeServers(
          serversOf(config, tenant),
          c.env,
          config.settings,
          (server) =>
            server.auth.type === 'client_credentials'
              ? { key: `${tenant}:`, auth: new VaultAuth(vaultSource(c.env, { tenant }, server.id), server.id) }
              : undefined,
          { tenant, client: definitionPinsOf(c.env, tenant) },
        );
        return probes.map((probe) => ({ tenant, ...probe }));
      }),
    );
    c.header('cache-control', 'no-store');
    return c.json({ servers: probed.flat() }, 200);
  })
  .openapi(confirm, async (c) => {
    const body = c.req.valid('json');
    const config = loadConfig(c.env);
    if (!tenantIdsOf(config).includes(body.tenant)) throw notFound(`Tenant "${body.tenant}"`);
    const server = serversOf(config, body.tenant).find((s) => s.id === body.server);
    if (!server) throw notFound(`MCP server "${body.server}" of tenant "${body.tenant}"`);
    const replaced = await definitionPinsOf(c.env, body.tenant).confirm(
      server.id,
      server.url,
      body.kind,
      body.name ?? '',
      body.sha256,
    );
    logEvent('mcp.definition_confirmed', {
      tenant: body.tenant,
      server: server.id,
      kind: body.kind,
      tool: body.name === undefined ? undefined : quotedName(body.name),
      approvedSha256: body.sha256,
      replacedSha256: replaced,
    });
    // The status this isolate kept would still show the warning for up to 30 s.
    forgetProbes();
    c.header('cache-control', 'no-store');
    return c.json({ ...body, ...(replaced ? { replaced } : {}) }, 200);
  });
