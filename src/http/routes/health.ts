import { Hono } from 'hono';
import pkg from '../../../package.json' with { type: 'json' };

/** `GET /health`: liveness and version, no dependencies touched. */
export const health = new Hono().get('/health', (c) => c.json({ status: 'ok', name: pkg.name, version: pkg.version }));
