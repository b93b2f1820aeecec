import { ApiError } from './errors';

/**
 * Errors do not cross a Durable Object RPC boundary intact (custom fields
 * such as `status` are lost), so DO methods return this instead of throwing
 * an ApiError, and the route turns it back into one with `unwrap`.
 */
export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: { status: number; code: string; message: string; headers?: Record<string, string> } };

export async function toRpcResult<T>(run: () => Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: { status: error.status, code: error.code, message: error.message, headers: error.headers } };
    throw error;
  }
}

export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw new ApiError(result.error.status as ApiError['status'], result.error.code, result.error.message, result.error.headers);
}
