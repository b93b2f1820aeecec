import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import {
  CompleteConnectionBody,
  Connected,
  ConnectionList,
  ConnectLink,
  Disconnected,
} from '../../../shared/api/connections';
import { connectUrl, openState } from '../../auth/tickets';
import { vaultOf } from '../../auth/vault';
import { loadConfig, serversOf } from '../../config';
import { oauthSetup } from '../../config/oauth';
import { ApiError, badRequest, notFound } from '../../errors';
import { errorFields, logEvent } from '../../observability/log';
import { unwrap } from '../../rpc';
import { announceAuthorizationChange } from '../reauthorize';
import { errors, json, jsonBody, jsonRequest, routes, V1_ERRORS } from '../openapi';
import type { Principal } from '../types';

const tags = ['connections'];
const ServerParams = z.object({ server: z.string().meta({ description: "An OAuth server's id.", example: 'github' }) });

const list = createRoute({
  method: 'get',
  path: '/',
  tags,
  summary: "The caller's connections to OAuth servers",
  responses: {
    200: json(
      ConnectionList,
      'Each OAuth server of the tenant, with a `connectUrl` where the caller is not connected. Never a token.',
    ),
    ...errors(...V1_ERRORS),
  },
});
const mint = createRoute({
  method: 'post',
  path: '/{server}',
  tags,
  summary: 'A connect link',
  description: 'Open it in a browser (a popup): single use, 10 minutes, the caller’s own.',
  request: { params: ServerParams },
  responses: { 200: json(ConnectLink, 'The link.'), ...errors(404, ...V1_ERRORS) },
});
const complete = createRoute({
  method: 'post',
  path: '/{server}/complete',
  tags,
  summary: 'Complete a connect',
  description:
    'What the callback page handed to the window that opened the connect link (`mcp-ondemand:oauth-code`), sent by the person the link was made for: only they can complete it, so a link someone else opens and approves never lands in its owner’s account.',
  middleware: [jsonRequest] as const,
  request: { params: ServerParams, body: jsonBody(CompleteConnectionBody) },
  responses: { 200: json(Connected, 'Connected.'), ...errors(400, 403, 404, 415, 502, ...V1_ERRORS) },
});
const disconnect = createRoute({
  method: 'delete',
  path: '/{server}',
  tags,
  summary: 'Disconnect',
  description:
    'Revoked at the server where it can be (RFC 7009), then forgotten; open conversations drop the connection.',
  request: { params: ServerParams },
  responses: { 200: json(Disconnected, 'Disconnected.'), ...errors(404, ...V1_ERRORS) },
});

/**
 * `/v1/connections`: the caller's own connections to the tenant's OAuth
 * servers (docs/API.md). Lists them (never a token), mints a connect link
 * (`POST /:server`), completes a connect with what the callback page handed
 * to the window that opened it (`POST /:server/complete`: the caller must be
 * the link's owner), and disconnects (`DELETE /:server`: revoked at the
 * server where it can, then forgotten; open conversations drop the connection).
 */
export const connections = routes()
  .openapi(list, async (c) => {
    const principal = c.get('principal');
    const owner = { tenant: principal.tenant, user: principal.user };
    // Most tenants have no OAuth server: no vault call for them (the widget asks once per conversation).
    if (!serversOf(loadConfig(c.env), principal.tenant).some((s) => s.auth.type === 'oauth'))
      return c.json({ connections: [] }, 200);
    const listed = unwrap(await vaultOf(c.env, owner).statuses(owner)).filter((entry) =>
      allowed(principal, entry.server),
    );
    const setup = listed.some((e) => e.status !== 'connected') ? oauthSetup(c.env) : undefined;
    const withUrls = await Promise.all(
      listed.map(async (entry) =>
        entry.status === 'connected' || !setup
          ? entry
          : { ...entry, connectUrl: (await connectUrl(setup, owner, entry.server)).url },
      ),
    );
    return c.json({ connections: withUrls }, 200);
  })
  .openapi(mint, async (c) => {
    const principal = c.get('principal');
    const server = oauthServer(c.env, principal, c.req.param('server'));
    const minted = await connectUrl(oauthSetup(c.env), { tenant: principal.tenant, user: principal.user }, server);
    return c.json({ server, url: minted.url, expiresAt: new Date(minted.expiresAt).toISOString() }, 200);
  })
  .openapi(complete, async (c) => {
    const principal = c.get('principal');
    const server = oauthServer(c.env, principal, c.req.param('server'));
    const { state, code, iss } = c.req.valid('json');
    const ticket = await openState(oauthSetup(c.env), state);
    if (!ticket || ticket.server !== server)
      throw badRequest(
        'This authorization is not valid: it has expired, was altered, or is for another server. Connect again',
        'invalid_state',
      );
    const owner = { tenant: ticket.tenant, user: ticket.user };
    if (owner.tenant !== principal.tenant || owner.user !== principal.user) {
      // Someone approved a link made for another account (the attack this step exists for): it is dropped, unused.
      await vaultOf(c.env, owner).abandon(ticket.nonce);
      logEvent('auth.connect', { server, outcome: 'wrong_account' }, 'warn');
      throw new ApiError(
        403,
        'wrong_account',
        'This connect link was made for another account: only the person who asked for it can complete it',
      );
    }
    const grant = unwrap(await vaultOf(c.env, owner).finish(owner, server, ticket.nonce, { code, iss }));
    // Before the answer: a conversation the user goes back to has already dropped the old connection.
    await announceAuthorizationChange(c.env, owner, server, grant).catch((e) =>
      logEvent('auth.changed', { server, ...errorFields(e) }, 'warn'),
    );
    return c.json({ server, status: 'connected' as const }, 200);
  })
  .openapi(disconnect, async (c) => {
    const principal = c.get('principal');
    const server = oauthServer(c.env, principal, c.req.param('server'));
    const owner = { tenant: principal.tenant, user: principal.user };
    const { revoked } = unwrap(await vaultOf(c.env, owner).disconnect(owner, server));
    await announceAuthorizationChange(c.env, owner, server);
    return c.json({ server, status: 'not_connected' as const, revoked }, 200);
  });

/** One of the caller's tenant's servers with auth "oauth", and one the caller may use; else 404. */
function oauthServer(env: Env, principal: Principal, id: string): string {
  const server = serversOf(loadConfig(env), principal.tenant).find((s) => s.id === id);
  if (server?.auth.type !== 'oauth' || !allowed(principal, id)) throw notFound(`OAuth server "${id}"`);
  return id;
}

const allowed = (principal: Principal, server: string) => !principal.servers || principal.servers.includes(server);
