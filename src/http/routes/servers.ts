import { Hono } from 'hono';
import { loadConfig, publicServerInfo } from '../../config';
import type { AppBindings } from '../types';

/** `GET /v1/servers`: the configured MCP servers (never their headers). */
export const servers = new Hono<AppBindings>().get('/', (c) =>
  c.json({ servers: loadConfig(c.env).mcpServers.map(publicServerInfo) }),
);
