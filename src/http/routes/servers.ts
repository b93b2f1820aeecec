import { Hono } from 'hono';
import { loadConfig, serversOf } from '../../config';
import { probeServers } from '../../mcp/probe';
import type { AppBindings } from '../types';

/** `GET /v1/servers`: the caller's tenant's MCP servers (never their headers), with live status and capabilities. */
export const servers = new Hono<AppBindings>().get('/', async (c) => {
  const config = loadConfig(c.env);
  const servers = serversOf(config, c.get('principal').tenant);
  return c.json({ servers: await probeServers(servers, c.env as unknown as Env & Record<string, unknown>, config.settings) });
});
