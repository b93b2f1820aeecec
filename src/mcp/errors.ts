import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors';
import { redactSecrets } from './transport';

/** "Resource not found": -32002 in older revisions, -32602 (invalid params) in newer ones. */
export function isResourceNotFound(error: unknown): error is McpError {
  return error instanceof McpError && (error.code === -32002 || error.code === ErrorCode.InvalidParams);
}

/**
 * The server forgot our session: 404 is the spec's answer; some servers
 * (server-everything among them) answer 400 for an unknown session id.
 */
export function isSessionExpired(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError)) return false;
  return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
}

/**
 * The connection dropped before an answer came: typically a pooled
 * keep-alive connection that the server closed as idle just as the request
 * went out (Node servers close idle sockets after 5 s). workerd's fetch says
 * "Network connection lost".
 */
export function isConnectionLost(error: unknown): boolean {
  return error instanceof Error && /network connection lost/i.test(error.message);
}

export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** Longest upstream error text passed on (servers may echo whole bodies). */
const MAX_ERROR_CHARS = 300;

/**
 * A short, credential-free description of what went wrong talking to a
 * server. Upstream text may echo what we sent, so every secret value that
 * `secret:` headers resolved to is masked, and the text is bounded.
 */
export function describeUpstreamError(error: unknown): string {
  let text: string;
  if (error instanceof McpError) text = error.message.replace(/^(MCP error -?\d+: )+/, ''); // the SDK prefixes on both ends
  else if (error instanceof StreamableHTTPError && error.code !== undefined) text = `HTTP ${error.code}: ${error.message}`;
  else if (error instanceof Error) text = error.message;
  else text = String(error);
  text = redactSecrets(text);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}… [${text.length - MAX_ERROR_CHARS} more characters]` : text;
}

/**
 * The client-facing error for a failed MCP call: 504 on timeout, else 502,
 * naming the server. `connecting`: the failure was reaching the server at
 * all (refused, reset, DNS…), which workerd reports only as "Network
 * connection lost" — the message says which step failed.
 */
export function upstreamError(server: string, error: unknown, connecting = false): ApiError {
  if (error instanceof ApiError) return error;
  const cause = describeUpstreamError(error);
  if (isTimeout(error)) return new ApiError(504, 'upstream_timeout', `MCP server "${server}" did not answer in time: ${cause}`);
  return new ApiError(502, 'upstream_error', `MCP server "${server}" ${connecting ? 'could not be connected to' : 'failed'}: ${cause}`);
}
