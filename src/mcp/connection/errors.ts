import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { authRequiredIn } from '../../auth/grant';
import { ApiError } from '../../errors';
import { errorFields, type LogFields } from '../../observability/log';
import { redactSecrets } from '../../observability/redact';

/** "Unsupported protocol version" (2026-07-28): `data.supported` lists what the server speaks. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/**
 * "Resource not found": -32002 in older revisions, -32602 (invalid params)
 * in newer ones — and an internal error (-32603) whose text says nothing
 * but that (server-everything's `Unknown resource: <uri>` for a template id
 * it refuses): servers whose handlers throw plain errors get -32603 from
 * their SDK. Any other -32603 stays a 502: the server failed.
 */
export function isResourceNotFound(error: unknown): error is ProtocolError {
  if (!(error instanceof ProtocolError)) return false;
  if (error.code === ProtocolErrorCode.ResourceNotFound || error.code === ProtocolErrorCode.InvalidParams) return true;
  return (
    error.code === ProtocolErrorCode.InternalError &&
    NOT_FOUND_TEXT.test(error.message.replace(/^(MCP error -?\d+: )+/, ''))
  );
}

/** The whole of an internal error's text, when it says only "not found" (with the URI or a name). */
const NOT_FOUND_TEXT =
  /^(?:(?:unknown|no such) resource\b|resource\b.{0,300}\b(?:not found|does not exist)\.?$|not found\b)/i;

export function isMethodNotFound(error: unknown): boolean {
  return error instanceof ProtocolError && error.code === ProtocolErrorCode.MethodNotFound;
}

/** The JSON-RPC error in an HTTP error's body, if the server sent one. */
export function rpcErrorOf(error: unknown): { code: number; message: string; data?: unknown } | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  const text = (error.data as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string') return undefined;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    if (typeof body.error?.code !== 'number') return undefined;
    return { code: body.error.code, message: String(body.error.message ?? ''), data: body.error.data };
  } catch {
    return undefined;
  }
}

export function httpStatusOf(error: unknown): number | undefined {
  return error instanceof SdkHttpError ? error.status : undefined;
}

/**
 * The server forgot our 2025 session: 404 is the spec's answer; some servers
 * (server-everything among them) answer 400 naming the session, or "Server
 * not initialized".
 */
export function isSessionExpired(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status === 404) return true;
  return status === 400 && /session|not initialized/i.test(rpcErrorOf(error)?.message ?? (error as Error).message);
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
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}

/** MissingRequiredClientCapability (2026-07-28): the server would ask for input (elicitation, sampling) we did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021;

/** A refusal to ask for input we cannot give (-32021: sampling, roots, URL elicitation): what the server wanted, in words (bounded, secrets masked). */
export function describeInputRequired(error: unknown): string | undefined {
  const wanted = inputRequiredText(error);
  return wanted === undefined ? undefined : bounded(wanted);
}

function inputRequiredText(error: unknown): string | undefined {
  if (error instanceof ProtocolError && error.code === MISSING_CLIENT_CAPABILITY) {
    const wanted = Object.keys(
      (error.data as { requiredCapabilities?: Record<string, unknown> } | undefined)?.requiredCapabilities ?? {},
    );
    return `${wanted.length ? wanted.join(', ') : 'a client capability'} (${error.message})`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.UnsupportedResultType) return 'input from the user';
  return undefined;
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
  const rpc = rpcErrorOf(error);
  if (rpc?.code === UNSUPPORTED_PROTOCOL_VERSION) text = unsupportedVersionText(rpc.data);
  else if (rpc) text = `HTTP ${httpStatusOf(error)}: ${rpc.message}`;
  else if (error instanceof ProtocolError && error.code === UNSUPPORTED_PROTOCOL_VERSION)
    text = unsupportedVersionText(error.data);
  else if (error instanceof SdkHttpError) {
    // The body, when there is one, often says why (a proxy's page, a gateway's message); secrets are masked below.
    const body = (error.data as { text?: unknown } | undefined)?.text;
    text = `HTTP ${error.status}${error.statusText ? ` ${error.statusText}` : ''}${typeof body === 'string' && body.trim() ? `: ${body.trim()}` : ''}`;
  }
  // "Version negotiation probe failed: <cause>": the cause is what the user needs (refused, reset, DNS…).
  else if (
    error instanceof SdkError &&
    error.code === SdkErrorCode.EraNegotiationFailed &&
    error.cause instanceof Error
  )
    return describeUpstreamError(error.cause);
  else if (error instanceof Error) text = error.message;
  else text = String(error);
  return bounded(text.replace(/^(MCP error -?\d+: )+/, '')); // v1-SDK servers prefix their messages
}

/** A failure talking to a server, as a log line says it: outcome and type (log.ts `errorFields`), and the text `describeUpstreamError` gives. */
export function upstreamFailure(error: unknown): LogFields {
  return { ...errorFields(error), error: describeUpstreamError(error) };
}

/** An http(s) URL in upstream error text (a redirect's target, an echoed endpoint). */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;

/**
 * Upstream text as we pass it on: secrets masked, URLs masked, at most
 * MAX_ERROR_CHARS. URLs are masked for every caller — these texts reach
 * browsers, the model and the stored history alike, and where a tenant's
 * servers live (or redirect to) is not theirs to learn; the server's id
 * says which server failed.
 */
function bounded(text: string): string {
  const masked = redactSecrets(text).replace(URL_IN_TEXT, '[URL]');
  return masked.length > MAX_ERROR_CHARS
    ? `${masked.slice(0, MAX_ERROR_CHARS)}… [${masked.length - MAX_ERROR_CHARS} more characters]`
    : masked;
}

function unsupportedVersionText(data: unknown): string {
  const { supported, requested } = (data ?? {}) as { supported?: unknown; requested?: unknown };
  const list = Array.isArray(supported) ? supported.map(String).join(', ') : 'not said';
  return `the server does not support MCP protocol version ${typeof requested === 'string' ? requested : 'we asked for'}; it supports: ${list}`;
}

/**
 * The client-facing error for a failed MCP call: 504 on timeout, 502
 * otherwise, naming the server. `connecting`: the failure was reaching the
 * server at all (refused, reset, DNS…), which workerd reports only as
 * "Network connection lost" — the message says which step failed.
 */
export function upstreamError(server: string, error: unknown, connecting = false): ApiError {
  if (error instanceof ApiError) return error;
  const authRequired = authRequiredIn(error);
  if (authRequired) return new ApiError(403, 'auth_required', authRequired.message);
  // Asked, answered (elicitation), and asked again past the SDK's round limit: a server that never settles.
  if (error instanceof SdkError && error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
    return new ApiError(
      502,
      'input_required',
      `MCP server "${server}" kept asking for input after it was answered: ${bounded(error.message)}`,
    );
  }
  const wanted = describeInputRequired(error);
  if (wanted) {
    return new ApiError(
      502,
      'input_required',
      `MCP server "${server}" needs ${wanted} before it can answer; this service cannot provide that yet`,
    );
  }
  const cause = describeUpstreamError(error);
  if (isTimeout(error))
    return new ApiError(504, 'upstream_timeout', `MCP server "${server}" did not answer in time: ${cause}`);
  return new ApiError(
    502,
    'upstream_error',
    `MCP server "${server}" ${connecting ? 'could not be connected to' : 'failed'}: ${cause}`,
  );
}
