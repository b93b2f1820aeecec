import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import {
  ViewLink,
  ViewLinkBody,
  ViewToolCallApprovalRequired,
  ViewToolCallBody,
  ViewToolCallResult,
} from '../../../shared/api/views';
import { allowedOriginsOf, loadConfig } from '../../config';
import { notFound } from '../../errors';
import { unwrap } from '../../rpc';
import { asDeclared, conversationStub, ownedStub } from '../conversation-stub';
import { errors, json, jsonBody, jsonRequest, routes, V1_ERRORS } from '../openapi';
import type { AppBindings } from '../types';
import { VIEW_DOCUMENT_HEADERS, viewCsp, viewSecurity } from '../view-csp';
import { signedViewSegment, verifiedViewNonce } from '../view-url-signature';

const IdParams = z.object({ id: z.string().meta({ description: 'A conversation id.' }) });
const tags = ['conversations'];

const link = createRoute({
  method: 'post',
  path: '/{id}/views',
  tags,
  summary: 'A link to an MCP Apps view',
  description:
    'For a `ui://` view of one of the conversation’s servers’ tools (`_meta.ui.resourceUri`, or a resource listed as `text/html;profile=mcp-app`): ' +
    'a capability URL of its document (10 minutes) and the sandbox the service applies (the declared CSP domains that passed its checks).',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(ViewLinkBody) },
  responses: { 200: json(ViewLink, 'The link.'), ...errors(400, 404, 415, 502, ...V1_ERRORS) },
});
const call = createRoute({
  method: 'post',
  path: '/{id}/views/call',
  tags,
  summary: "A view's tool call",
  description:
    'A tool of the view’s own server whose `_meta.ui.visibility` includes `app` (else 403 `tool_not_for_app`), under the approval rule of the model’s calls: ' +
    'where a model’s call would ask the user, 409 `approval_required` (or 202, see `onApprovalRequired`) until the widget sends `approved: true`. The model never sees these calls. ' +
    'A tool’s `isError` result is a 200; a failed call, 502.',
  middleware: [jsonRequest] as const,
  request: { params: IdParams, body: jsonBody(ViewToolCallBody) },
  responses: {
    200: json(ViewToolCallResult, 'The MCP `CallToolResult`.'),
    202: json(ViewToolCallApprovalRequired, 'The call waits for the user’s approval: nothing ran.'),
    ...errors(400, 403, 404, 409, 415, 502, ...V1_ERRORS),
  },
});
const document = createRoute({
  method: 'get',
  path: '/views/{conversationId}/{nonce}',
  tags,
  security: [],
  summary: "An MCP Apps view's document",
  description:
    'The `src` of the widget’s sandboxed iframe (an iframe sends no token: the nonce of `POST …/views` is the capability). ' +
    'The `ui://` resource read through the conversation’s cache, fresh after `resources/updated`, served with a CSP that sandboxes it ' +
    '(opaque origin), allows the declared domains only, and lets only the tenant’s origins and this service frame it. One load: 404 for an unknown, expired or used link; ' +
    '`HEAD` leaves it unused, and a prefetch (`Sec-Purpose: prefetch`) is refused with 503 so that it cannot use it up.',
  request: {
    params: z.object({
      conversationId: z.string(),
      nonce: z.string().meta({
        description: 'The nonce, and (with `TENANTS`) `.` and its signature: a link only this service can make.',
      }),
    }),
  },
  responses: {
    200: {
      description: 'The HTML, with `Content-Security-Policy` and `Cache-Control: no-store`.',
      content: { 'text/html': { schema: z.string() } },
    },
    ...errors(400, 404, 502, 503),
  },
});

/** This service's own origins (the request's, PUBLIC_URL's): never a view's source, always allowed to frame one. */
function ownOrigins(c: Context<AppBindings>): string[] {
  const origins = [new URL(c.req.url).origin];
  const configured = c.env.PUBLIC_URL?.trim();
  if (configured && URL.canParse(configured)) origins.push(new URL(configured).origin);
  return [...new Set(origins)];
}

/** `/v1/conversations/{id}/views…`: links to views and views' tool calls (authenticated, owned). */
export const conversationViews = routes()
  .openapi(link, async (c) => {
    const id = c.req.param('id');
    const stub = asDeclared(await ownedStub(c), 'view');
    const { nonce, expiresAt, ui } = unwrap(await stub.view({ kind: 'link', body: c.req.valid('json') }));
    const segment = await signedViewSegment(c.env, id, nonce);
    return c.json(
      {
        url: `/views/${id}/${segment}`,
        expiresAt: new Date(expiresAt).toISOString(),
        security: viewSecurity(ui, ownOrigins(c)),
      },
      200,
    );
  })
  .openapi(call, async (c) => {
    const { onApprovalRequired, ...body } = c.req.valid('json');
    const stub = asDeclared(await ownedStub(c), 'view');
    const answer = await stub.view({ kind: 'call', body });
    // A call that waits for the user is the normal course of a view that changes data, not a failure: a client that
    // asks gets it as a 202, which a browser does not log as a failed request (the 409 stays the default).
    if (!answer.ok && answer.error.code === 'approval_required' && onApprovalRequired === '202')
      return c.json({ approvalRequired: { server: body.server, name: body.name, message: answer.error.message } }, 202);
    const { result } = unwrap(answer);
    return c.json({ result }, 200);
  });

/**
 * `/views/{conversationId}/{nonce}`: a view's document, outside `/v1` (no
 * token, no CORS: an iframe loads it). Its CSP is its sandbox (view-csp.ts);
 * the API's security headers are not set on it (app.ts).
 */
export const viewDocuments = routes().openapi(document, async (c) => {
  const { conversationId, nonce: segment } = c.req.valid('param');
  // A speculative load (a browser's prefetch or prerender of a URL it saw) would use up the single-use link before the
  // frame asks for it: refused, uncached, so that the real load opens it.
  if (/\bprefetch\b/i.test(c.req.header('sec-purpose') ?? c.req.header('purpose') ?? ''))
    return c.json(
      {
        error: {
          code: 'prefetch_refused',
          message: 'A view link opens once, for the frame that shows it; not for a prefetch',
        },
      },
      503,
      { 'Cache-Control': 'no-store' },
    );
  // Checked before any Durable Object is addressed: an unauthenticated path must not create one.
  const nonce = await verifiedViewNonce(c.env, conversationId, segment);
  if (!nonce) throw notFound('View link');
  const stub = asDeclared(await conversationStub(c.env, conversationId), 'view');
  // HEAD (Hono answers it with the GET route, without the body): the same headers, and the link left for the load.
  const { html, ui, tenant } = unwrap(await stub.view({ kind: 'document', nonce, peek: c.req.method === 'HEAD' }));
  const own = ownOrigins(c);
  const allowed = allowedOriginsOf(loadConfig(c.env), tenant);
  return c.body(html, 200, {
    ...VIEW_DOCUMENT_HEADERS,
    'Content-Security-Policy': viewCsp(viewSecurity(ui, own), [...new Set([...allowed, ...own])]),
  });
});
