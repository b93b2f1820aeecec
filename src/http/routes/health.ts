import { Hono } from 'hono';
import { cors } from 'hono/cors';
import pkg from '../../../package.json' with { type: 'json' };

/**
 * `GET /health`: liveness and version, no dependencies touched. Readable from
 * any origin (it holds nothing private): the chat widget uses it to tell "the
 * service is down" from "the service refuses this page's origin", which a
 * failed cross-origin fetch cannot say by itself.
 */
export const health = new Hono().get('/health', cors({ origin: '*', allowMethods: ['GET'] }), (c) =>
  c.json({ status: 'ok', name: pkg.name, version: pkg.version }),
);
