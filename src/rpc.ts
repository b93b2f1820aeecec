import { ApiError, type ErrorDetails } from './errors';

/**
 * Errors do not cross a Durable Object RPC boundary intact (custom fields
 * such as `status` are lost), so DO methods return this instead of throwing
 * an ApiError, and the route turns it back into one with `unwrap`.
 */
export type RpcResult<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      error: {
        status: number;
        code: string;
        message: string;
        headers?: Record<string, string>;
        details?: ErrorDetails;
      };
    };

export async function toRpcResult<T>(run: () => Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ApiError)
      return {
        ok: false,
        error: {
          status: error.status,
          code: error.code,
          message: error.message,
          headers: error.headers,
          details: error.details,
        },
      };
    throw error;
  }
}

/** The value of an `RpcResult` (as a stub's method returns it), or its error thrown as the ApiError it was. */
export function unwrap<R extends RpcResult<unknown>>(result: R): Extract<R, { ok: true }>['value'] {
  if (result.ok) return result.value as Extract<R, { ok: true }>['value'];
  throw new ApiError(
    result.error.status as ApiError['status'],
    result.error.code,
    result.error.message,
    result.error.headers,
    result.error.details,
  );
}
