import { createRoute } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import pkg from '../../../package.json' with { type: 'json' };
import { Health } from '../../../shared/api/service';
import { json, routes } from '../openapi';

const health = createRoute({
  method: 'get',
  path: '/health',
  tags: ['service'],
  security: [],
  summary: 'Liveness and version',
  description: 'Touches no dependency. Readable from any origin.',
  middleware: [cors({ origin: '*', allowMethods: ['GET'] })] as const,
  responses: { 200: json(Health, 'Up.') },
});

/**
 * `GET /health`: liveness and version, no dependencies touched. Readable from
 * any origin (it holds nothing private): the chat widget uses it to tell "the
 * service is down" from "the service refuses this page's origin", which a
 * failed cross-origin fetch cannot say by itself.
 */
export const healthRoute = routes().openapi(health, (c) =>
  c.json({ status: 'ok' as const, name: pkg.name, version: pkg.version }, 200),
);
