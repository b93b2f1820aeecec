import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { demoMcpEnabled } from '../../config';
import { routes } from '../openapi';

const mcpEndpoint = (method: 'get' | 'post' | 'delete') =>
  createRoute({
    method,
    path: '/mcp',
    tags: ['service'],
    security: [],
    summary: `The demo MCP server (Streamable HTTP, ${method.toUpperCase()})`,
    description:
      'A team task tracker that ships in this Worker (the default `MCP_SERVERS`). Shared and writable: with `TENANTS` set it exists only when `DEMO_MCP_ENABLED=true`.',
    responses: {
      200: {
        description: 'MCP over Streamable HTTP (JSON-RPC; SSE for streams).',
        content: { 'application/json': { schema: z.unknown() }, 'text/event-stream': { schema: z.string() } },
      },
      404: { description: 'Not enabled.' },
    },
  });

/**
 * `/demo/mcp`: the demo MCP server's Streamable HTTP endpoint. Every request
 * goes to the one `DemoMcpServer` instance, which owns the sessions. It
 * answers anyone and its data is shared and writable, so with `TENANTS` set
 * it exists only when `DEMO_MCP_ENABLED=true` (otherwise: the 404 of any
 * unknown path).
 */
const app = routes();
for (const method of ['get', 'post', 'delete'] as const) {
  app.openapi(mcpEndpoint(method), async (c) =>
    demoMcpEnabled(c.env) ? c.env.DEMO_MCP.getByName('demo').fetch(c.req.raw) : c.notFound(),
  );
}
export const demoMcpRoute = app;
