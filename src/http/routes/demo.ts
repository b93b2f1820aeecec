import { Hono } from 'hono';
import { demoMcpEnabled } from '../../config';
import type { AppBindings } from '../types';

/**
 * `/demo/mcp`: the demo MCP server's Streamable HTTP endpoint. Every request
 * goes to the one `DemoMcpServer` instance, which owns the sessions. It
 * answers anyone and its data is shared and writable, so with `TENANTS` set
 * it exists only when `DEMO_MCP_ENABLED=true` (otherwise: the 404 of any
 * unknown path).
 */
export const demoMcpRoute = new Hono<AppBindings>().all('/mcp', (c) =>
  demoMcpEnabled(c.env as { TENANTS?: string; DEMO_MCP_ENABLED?: string }) ? c.env.DEMO_MCP.getByName('demo').fetch(c.req.raw) : c.notFound(),
);
