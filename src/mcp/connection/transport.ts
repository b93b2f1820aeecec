import { exports } from 'cloudflare:workers';
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type Transport,
} from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../config';
import { secretNamed } from '../../config/secrets';
import { ApiError } from '../../errors';
import { currentRequest } from '../../observability/current-request';
import { credentialsOf, rememberSecret } from '../../observability/redact';
import { bindRequestSignals } from './deadline';
import { isConnectionLost } from './errors';
import { limitResponses } from './response-limit';
import { watchGetStream, type GetStreamWatcher } from './get-stream';

/** Where this Worker's own routes appear to live, for `url: "/demo/mcp"` entries. */
const SELF_ORIGIN = 'http://self.internal';

export type TransportKind = 'streamable-http' | 'sse';

export interface TransportOptions {
  /** Learns whether a 2025 server's standalone GET stream (its notification channel) is open. */
  getStream?: GetStreamWatcher | undefined;
  /** Servers with `auth`: gives the bearer token; a 403 `insufficient_scope` is thrown to us (the user, not the transport, decides whether to grant more). */
  authProvider?: AuthProvider | undefined;
  /** A 2025 session that exists already (Streamable HTTP): to end one whose connect failed. */
  sessionId?: string | undefined;
  /** How requests reach the server, in place of the network or `exports.default` (a built-in server's own entrypoint: uploads/loopback.ts). */
  fetch?: typeof fetch | undefined;
}

/** The Worker's env: `secret:NAME` header values are read from it. */
export type TransportEnv = Env;

/**
 * Resolves `secret:NAME` header values to the Worker secret `NAME`. The
 * resolved values live only in the transport's memory: never in config,
 * storage, logs or anything sent to a model.
 */
export function resolveHeaders(server: McpServerConfig, env: TransportEnv): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server.headers)) {
    if (!value.startsWith('secret:')) {
      headers[name] = value;
      continue;
    }
    const secretName = value.slice('secret:'.length);
    const secret = secretNamed(env, value);
    if (!secret) {
      throw new ApiError(
        500,
        'invalid_config',
        `MCP server "${server.id}": header ${name} names the secret ${secretName}, which is not set`,
      );
    }
    headers[name] = secret;
    // Masked in any upstream text we pass on and in every log line (observability/redact.ts).
    rememberSecret(secret);
  }
  return headers;
}

/** The values of a server's `secret:` headers, as they must never be shown (observability/redact.ts `credentialsOf`). */
export function secretValuesOf(server: McpServerConfig, env: TransportEnv): string[] {
  return Object.values(server.headers).flatMap((value) =>
    value.startsWith('secret:') ? credentialsOf(secretNamed(env, value) ?? '') : [],
  );
}

/**
 * Every request to a server carries the id of the request it works for
 * (`X-Request-Id`, observability/current-request.ts), so a server's logs and ours
 * line up. A stream opened by one request (a listen or GET stream) keeps
 * that request's id.
 */
function withRequestId(fetchImpl: typeof fetch): typeof fetch {
  return (input, init) => {
    const requestId = currentRequest()?.requestId;
    if (!requestId) return fetchImpl(input, init);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('X-Request-Id', requestId);
    return fetchImpl(input, { ...init, headers });
  };
}

/**
 * A POST of notifications only (no JSON-RPC id: nothing is answered but the
 * 202) that met a pooled keep-alive connection the server had just closed is
 * sent again, once. It had not reached the server, and a notification is
 * harmless twice. Why here and not in McpConnection: the one that matters is
 * `notifications/initialized`, sent inside the SDK's connect after the
 * server created the session — failing it failed the connect, and the retry
 * opened a second session (up to 520 for 500 conversations under load).
 * Requests are retried by McpConnection, which knows which are safe.
 */
function resendLostNotifications(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await fetchImpl(input, init);
    } catch (error) {
      if (
        !isConnectionLost(error) ||
        init?.method !== 'POST' ||
        typeof init.body !== 'string' ||
        !notificationsOnly(init.body)
      )
        throw error;
      return fetchImpl(input, init);
    }
  };
}

function notificationsOnly(body: string): boolean {
  try {
    const parsed: unknown = JSON.parse(body);
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return (
      messages.length > 0 &&
      messages.every(
        (m) =>
          typeof m === 'object' && m !== null && typeof (m as { method?: unknown }).method === 'string' && !('id' in m),
      )
    );
  } catch {
    return false;
  }
}

/**
 * Builds the client transport of one server (SDK v2). Paths of this Worker
 * go to its default export through the runtime's loopback binding,
 * `exports.default` (what `ctx.exports.default` is; no network hop, nothing
 * to configure, the same in a Durable Object and in a request). No message
 * from the server may exceed `maxResponseBytes`.
 */
export function createTransport(
  server: McpServerConfig,
  env: TransportEnv,
  kind: TransportKind,
  maxResponseBytes: number,
  { getStream, authProvider, sessionId, fetch: own }: TransportOptions = {},
): Transport {
  const isSelf = server.url.startsWith('/');
  const url = new URL(server.url, SELF_ORIGIN);
  const direct: typeof fetch =
    own ?? (isSelf ? (input, init) => exports.default.fetch(input, init) : (input, init) => fetch(input, init));
  const limited = limitResponses(withRequestId(resendLostNotifications(direct)), maxResponseBytes);
  const fetchImpl = getStream ? watchGetStream(limited, getStream) : limited;
  const requestInit: RequestInit = { headers: resolveHeaders(server, env) };
  const auth = authProvider ? { authProvider } : {};
  return kind === 'sse'
    ? new SSEClientTransport(url, { fetch: fetchImpl, requestInit, ...auth })
    : // The old SSE transport answers on its GET stream: a request there has no HTTP exchange of its own to abort.
      bindRequestSignals(
        new StreamableHTTPClientTransport(url, {
          fetch: fetchImpl,
          requestInit,
          ...auth,
          ...(sessionId ? { sessionId } : {}),
          onInsufficientScope: 'throw',
          reconnectionOptions: {
            maxRetries: 2,
            initialReconnectionDelay: 500,
            maxReconnectionDelay: 5_000,
            reconnectionDelayGrowFactor: 2,
          },
        }),
      );
}
