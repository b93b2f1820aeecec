import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { demoMcpRoute } from '../demo/route';
import { onError, onNotFound } from './errors';
import { conversations } from './routes/conversations';
import { health } from './routes/health';
import { servers } from './routes/servers';
import type { AppBindings } from './types';

/**
 * The Worker's HTTP surface. Cross-cutting concerns are middleware layers
 * (`app.use`), routes are small sub-apps mounted by path.
 */
export function createApp() {
  return new Hono<AppBindings>()
    .use(requestId())
    .route('/', health)
    .route('/v1/servers', servers)
    .route('/v1/conversations', conversations)
    .route('/demo', demoMcpRoute)
    .notFound(onNotFound)
    .onError(onError);
}
