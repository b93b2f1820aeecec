import { Hono } from 'hono';
import { loadConfig, serversOf } from '../../config';
import { probeServers } from '../../mcp/probe';
import type { AppBindings } from '../types';

/** `GET /v1/servers`: the caller's tenant's MCP servers (never their headers), with live status and capabilities. */
export const servers = new Hono<AppBindings>().get('/', async (c) => {
  const config = loadConfig(c.env);
  const principal = c.get('principal');
  const servers = serversOf(config, principal.tenant).filter((s) => !principal.servers || principal.servers.includes(s.id));
  return c.json({ servers: await probeServers(servers, c.env as unknown as Env & Record<string, unknown>, config.settings) });
});
