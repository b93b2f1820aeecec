import { OpenAPIHono, type Hook } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import pkg from '../../package.json' with { type: 'json' };
import { ErrorBody } from '../../shared/api/common';
import { formatIssues } from '../config';
import { ApiError, badRequest, type ErrorStatus } from '../errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json-depth';
import type { AppBindings } from './types';

/**
 * The API is declared before it is served: each route is a `createRoute`
 * (method, path, request schemas, responses) from shared/api's schemas, so
 * the validation, the handlers' types and `GET /v1/openapi.json` come from
 * one place. These are the pieces every route file uses.
 */

/** What failed validation, in our error shape: `invalid_body` / `invalid_query` / `invalid_params`, naming the field. */
const validationFailed: Hook<unknown, AppBindings, string, undefined> = (result) => {
  if (result.success) return;
  const [code, what] =
    result.target === 'json'
      ? ['invalid_body', 'request body']
      : result.target === 'query'
        ? ['invalid_query', 'query']
        : ['invalid_params', result.target];
  throw badRequest(`Invalid ${what}: ${formatIssues(result.error)}`, code);
};

/** A sub-app whose routes are declared with `.openapi(route, handler)`. */
export const routes = () => new OpenAPIHono<AppBindings>({ defaultHook: validationFailed });

/**
 * Runs before a route's body validator: a JSON content type (415), nesting
 * bounded before anything is built from the text (400), well-formed JSON
 * (400). The validator then reads the same text (Hono keeps the body).
 */
export const jsonRequest: MiddlewareHandler<AppBindings> = async (c, next) => {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ApiError(415, 'unsupported_media_type', 'Send the body as application/json');
  }
  const text = await c.req.text();
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw badRequest(`Request body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`, 'invalid_json');
  }
  try {
    JSON.parse(text);
  } catch {
    throw badRequest('Request body is not valid JSON', 'invalid_json');
  }
  await next();
};

/** A required JSON request body. */
export const jsonBody = <S extends z.ZodType>(schema: S, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { 'application/json': { schema } },
});

/** A JSON response. */
export const json = <S extends z.ZodType>(schema: S, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A turn's answer: the AI SDK UI message stream over SSE. */
export const uiMessageStream = (description: string) => ({
  description: `${description} The AI SDK UI message stream protocol over SSE (\`x-vercel-ai-ui-message-stream: v1\`): what \`useChat\` and \`readUIMessageStream\` read.`,
  content: { 'text/event-stream': { schema: z.string() } },
});

const ERROR_MEANINGS: Record<number, string> = {
  400: 'Invalid request (the message names the field).',
  401: 'No credential, or one that is not valid.',
  403: 'The caller may not do this (an origin not allowed, a server the token does not grant).',
  404: 'No such conversation (or one of another caller: the same answer).',
  409: 'In conflict with the conversation’s state (e.g. a turn is already running).',
  413: 'The body or the message is too large.',
  415: 'The body is not `application/json`.',
  429: 'A rate limit; `Retry-After` says when to try again.',
  502: 'An MCP server or the model failed.',
  503: 'Busy or starting; try again.',
};

/** The error answers a route can give, each `{error:{code,message}}`. */
export function errors(...statuses: ErrorStatus[]) {
  return Object.fromEntries(
    statuses.map((status) => [status, json(ErrorBody, ERROR_MEANINGS[status] ?? 'An error.')]),
  ) as Record<ErrorStatus, ReturnType<typeof json<typeof ErrorBody>>>;
}

/** The errors every `/v1` route can give before its handler runs: authentication, body size, rate limits, configuration. */
export const V1_ERRORS = [401, 403, 413, 429] as const;

/** `info`, servers and security of the document `GET /v1/openapi.json` serves. */
export const DOCUMENT: Parameters<OpenAPIHono['getOpenAPI31Document']>[0] = {
  openapi: '3.1.0',
  info: {
    title: 'mcp-ondemand',
    version: pkg.version,
    description:
      'A chat host at the edge whose model uses MCP servers fully: tools, resources and prompts. ' +
      'Turns answer with the AI SDK UI message stream (SSE); `/v1/chat` is the AI SDK chat protocol as `useChat` speaks it. ' +
      'Guides: docs/API.md, docs/FRONTENDS.md, docs/AUTH.md in the repository.',
    license: { name: 'MIT' },
  },
  tags: [
    { name: 'conversations', description: 'Conversations, their turns and what the model used.' },
    { name: 'chat', description: 'The AI SDK chat protocol (`useChat` with `DefaultChatTransport`).' },
    { name: 'servers', description: 'The MCP servers of the caller’s tenant.' },
    { name: 'connections', description: 'The caller’s connections to OAuth-protected MCP servers.' },
    { name: 'oauth', description: 'Pages of the browser’s OAuth flow (no API token).' },
    { name: 'service', description: 'Health, this document, the demo MCP server.' },
    { name: 'operator', description: 'What the operator’s page (`/admin`) reads: the operator key, not a tenant’s.' },
  ],
  security: [{ bearer: [] }],
};

/** Registers the security scheme the document's `security` names. */
export function registerSecurity(app: OpenAPIHono<AppBindings>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'A tenant API key (server to server; name the end user with `X-End-User`), or a browser token: an HS256 JWT with `tid`, `sub`, `exp`, `aud: "mcp-ondemand"` (docs/AUTH.md). ' +
      'On the WebSocket route a browser sends the token as the subprotocol `bearer.<token>` next to `mcp-ondemand`.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'operator', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator key (`OPERATOR_KEY_SHA256`, docs/AUTH.md): `/admin/api/*` only; no tenant key opens it.',
  });
}
