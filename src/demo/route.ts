import { Hono } from 'hono';
import type { AppBindings } from '../http/types';

/**
 * `/demo/mcp`: the demo MCP server's Streamable HTTP endpoint. Every request
 * goes to the one `DemoMcpServer` instance, which owns the sessions.
 */
export const demoMcpRoute = new Hono<AppBindings>().all('/mcp', (c) => c.env.DEMO_MCP.getByName('demo').fetch(c.req.raw));
