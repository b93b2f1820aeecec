import { ChatError } from './api';

/** What went wrong, in words for the person chatting, and whether trying again can help. */
export interface PlainError {
  title: string;
  detail: string;
  retryable: boolean;
  /** The host page must act (a new token): the widget emits `mcp-ondemand-token-expired`. */
  authExpired?: boolean;
}

export function plainError(error: unknown): PlainError {
  if (!(error instanceof ChatError)) {
    // A stream that broke mid-answer: the network, not the service, most of the time.
    return { title: 'The connection dropped.', detail: String((error as Error)?.message ?? error), retryable: true };
  }
  const detail = error.message;
  switch (error.code) {
    case 'unreachable':
      return {
        title: 'The chat service cannot be reached.',
        detail: 'Check your connection; the service may also be down.',
        retryable: true,
      };
    case 'origin_refused':
      // Most likely CORS; a network blip between the two requests looks the same, so trying again is offered.
      return {
        title: 'This site is not allowed to use this chat service.',
        detail: `${detail} The site's administrator must add it to the service's allowed origins.`,
        retryable: true,
      };
    case 'origin_not_allowed':
      return {
        title: 'This site is not allowed to use this chat service.',
        detail: `${detail}. The site's administrator must add it to the service's allowed origins.`,
        retryable: false,
      };
    case 'token_expired':
      return {
        title: 'Your chat session has expired.',
        detail: 'Reload the page or sign in again to continue.',
        retryable: false,
        authExpired: true,
      };
    case 'unauthorized':
      return {
        title: 'This chat could not sign you in.',
        detail: `${detail}. Reload the page or sign in again.`,
        retryable: false,
        authExpired: true,
      };
    case 'rate_limited': {
      const wait = error.retryAfterSeconds ? ` Try again in ${error.retryAfterSeconds} s.` : ' Try again in a moment.';
      return {
        title: 'Too many messages at once.',
        detail: `You have reached the message limit.${wait}`,
        retryable: true,
      };
    }
    case 'budget_exceeded':
      // The service's sentence says whose budget, how much, what was spent and when it resets.
      return { title: 'The usage budget is used up.', detail, retryable: false };
    case 'upstream_error':
    case 'upstream_timeout':
    case 'pinned_resource_unavailable':
      return { title: 'A connected tool server is not responding.', detail, retryable: true };
    case 'turn_in_progress':
      return {
        title: 'An answer is still being written.',
        detail: 'Wait for it to finish, then send again.',
        retryable: true,
      };
    case 'approval_pending':
      return {
        title: 'A tool is waiting for your approval.',
        detail: 'Approve or deny it before sending a new message.',
        retryable: false,
      };
    case 'file_too_large':
    case 'upload_quota':
    case 'unsupported_media_type':
      // The service's sentence names the file and the limit it passed.
      return { title: 'The file was not attached.', detail, retryable: false };
    case 'model_not_configured':
    case 'invalid_config':
      return { title: 'The chat service is not set up correctly.', detail, retryable: false };
    case 'not_found':
      return { title: 'This conversation no longer exists.', detail: 'Try again to start a new one.', retryable: true };
    default:
      if (error.status === 413) return { title: 'That is too much to send at once.', detail, retryable: false };
      if (error.status >= 500) return { title: 'The chat service ran into a problem.', detail, retryable: true };
      return { title: 'The request was refused.', detail, retryable: false };
  }
}
