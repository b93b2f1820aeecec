/** The statuses this service answers errors with (a leaf type: no layer's framework in it). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504;

/** Objects of plain fields beside an error's code and message (`budget: { limit, spent, resetsAt, … }`). */
export type ErrorDetails = Record<string, Record<string, string | number>>;

/**
 * An error meant for the client: every layer throws it, the HTTP error
 * handler turns it into `{ error: { code, message } }` with `status`.
 * Anything else that escapes becomes a generic 500 (details only in logs).
 */
export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    /** Headers the response must carry (e.g. Retry-After on 429). */
    readonly headers: Record<string, string> = {},
    /** Fields beside `code` and `message` a client may act on (a budget's limit and reset time). */
    readonly details: ErrorDetails = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** This error as an HTTP response (for places that build Responses themselves, like the Durable Object). */
  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status, headers: this.headers });
  }

  toJSON() {
    return { error: { ...this.details, code: this.code, message: this.message } };
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const badRequest = (message: string, code = 'bad_request') => new ApiError(400, code, message);
