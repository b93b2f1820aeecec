import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../errors';

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

export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

/** A short, credential-free description of what went wrong talking to a server. */
export function describeUpstreamError(error: unknown): string {
  if (error instanceof McpError) return error.message.replace(/^(MCP error -?\d+: )+/, ''); // the SDK prefixes on both ends
  if (error instanceof StreamableHTTPError && error.code !== undefined) return `HTTP ${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The client-facing error for a failed MCP call: 504 on timeout, else 502, naming the server. */
export function upstreamError(server: string, error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const cause = describeUpstreamError(error);
  if (isTimeout(error)) return new ApiError(504, 'upstream_timeout', `MCP server "${server}" did not answer in time: ${cause}`);
  return new ApiError(502, 'upstream_error', `MCP server "${server}" failed: ${cause}`);
}
