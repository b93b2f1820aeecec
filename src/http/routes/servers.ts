import { Hono } from 'hono';
import { loadConfig } from '../../config';
import { probeServers } from '../../mcp/probe';
import type { AppBindings } from '../types';

/** `GET /v1/servers`: the configured MCP servers (never their headers), with live status and capabilities. */
export const servers = new Hono<AppBindings>().get('/', async (c) => {
  const { mcpServers, settings } = loadConfig(c.env);
  return c.json({ servers: await probeServers(mcpServers, c.env as unknown as Env & Record<string, unknown>, settings) });
});
