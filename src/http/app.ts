import { cors } from 'hono/cors';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import { ApiError } from '../errors';
import { accessLog } from './middleware/access-log';
import { apiSecurityHeaders, securityHeaders, viewSecurityHeaders } from './middleware/security-headers';
import { demoMcpRoute } from './routes/demo';
import { authenticate } from './middleware/auth';
import { operatorAuth } from './middleware/operator-auth';
import { corsPerTenant, originAllowed } from './middleware/origins';
import { mayCarryFiles } from './middleware/upload-body-limit';
import { errorResponse, onError, onNotFound } from './errors';
import { chat } from './routes/chat';
import { connections } from './routes/connections';
import { oauth } from './routes/oauth';
import { conversations } from './routes/conversations';
import { conversationFeedback, feedbackListing } from './routes/feedback';
import { fileRoutes } from './routes/files';
import { healthRoute } from './routes/health';
import { DOCUMENT, registerSecurity, routes } from './openapi';
import { operator } from './routes/operator';
import { servers } from './routes/servers';
import { usage } from './routes/usage';
import { conversationViews, viewDocuments } from './routes/views';

/** API request bodies above this are refused before they are read (413). */
export const MAX_BODY_BYTES = 256 * 1024;

const apiBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) =>
    errorResponse(c, new ApiError(413, 'payload_too_large', `Request body exceeds ${MAX_BODY_BYTES} bytes`)),
});

/**
 * The Worker's HTTP surface: cross-cutting concerns are middleware layers
 * (`app.use`, middleware/), in the order they apply; routes are small
 * sub-apps mounted by path (routes/).
 */
export function createApp() {
  const app = routes();
  registerSecurity(app);
  // The API's description is built on its first request (it walks every route's schemas), then kept.
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  return (
    app
      .use(requestId())
      .use(accessLog)
      // API responses are data, never pages: no framing, no sniffing, no referrer, no scripts.
      // (Not on an accepted WebSocket, whose 101 response cannot carry them.)
      .use('/v1/*', securityHeaders)
      .use('/v1/*', (c, next) =>
        // An upload, or a chat message that may carry files, has its own limit (UPLOAD_REQUEST_MAX_BYTES,
        // middleware/upload-body-limit.ts), checked once the caller is known.
        mayCarryFiles(c.req.method, c.req.path) ? next() : apiBodyLimit(c, next),
      )
      // The API's description, before authentication: public, like /health (it names routes and shapes, nothing of any tenant).
      .get('/v1/openapi.json', cors({ origin: '*', allowMethods: ['GET'] }), (c) =>
        c.json((document ??= app.getOpenAPI31Document(DOCUMENT))),
      )
      .use('/v1/*', corsPerTenant)
      .use('/v1/*', authenticate)
      .use('/v1/*', originAllowed)
      .route('/', healthRoute)
      .route('/v1/servers', servers)
      .route('/v1/usage', usage)
      .route('/v1/feedback', feedbackListing)
      .route('/v1/conversations', conversations)
      .route('/v1/conversations', conversationViews)
      .route('/v1/conversations', conversationFeedback)
      // Built here, with the app, rather than at module load (routes/files.ts says why).
      .route('/v1/conversations', fileRoutes())
      .route('/v1/chat', chat)
      .route('/v1/connections', connections)
      .route('/oauth', oauth)
      // The operator's page reads these (the page itself is a static asset, public/admin/): the operator key, not a tenant's.
      .use('/admin/api/*', securityHeaders)
      .use('/admin/api/*', operatorAuth)
      .route('/admin/api', operator)
      .use('/views/*', viewSecurityHeaders)
      .route('/', viewDocuments)
      // The demo MCP server's answers too (JSON and SSE to MCP clients: none of these headers changes what a
      // client does with them; CORP does not apply to CORS requests), and the 404 of any unknown path.
      .use('/demo/*', securityHeaders)
      .route('/demo', demoMcpRoute)
      .notFound(async (c) => {
        c.res = await onNotFound(c);
        await apiSecurityHeaders(c, async () => {});
        return c.res;
      })
      .onError(onError)
  );
}
