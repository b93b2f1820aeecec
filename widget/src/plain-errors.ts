import { ChatError } from './api';
import { ENGLISH, type Locale } from './i18n/locale';

/** What went wrong, in words for the person chatting, and whether trying again can help. */
export interface PlainError {
  title: string;
  detail: string;
  retryable: boolean;
  /** The host page must act (a new token): the widget emits `mcp-ondemand-token-expired`. */
  authExpired?: boolean;
}

export function plainError(error: unknown, locale: Locale = ENGLISH): PlainError {
  const t = locale.t.bind(locale);
  if (!(error instanceof ChatError)) {
    // A stream that broke mid-answer: the network, not the service, most of the time.
    return { title: t('errors.connection'), detail: String((error as Error)?.message ?? error), retryable: true };
  }
  const detail = error.message;
  switch (error.code) {
    case 'connection_lost':
      return { title: t('errors.connection'), detail: t('errors.reconnectFailed'), retryable: true };
    case 'unreachable':
      return {
        title: t('errors.unreachable'),
        detail: t('errors.unreachableDetail'),
        retryable: true,
      };
    case 'origin_refused':
      // Most likely CORS; a network blip between the two requests looks the same, so trying again is offered.
      return {
        title: t('errors.origin'),
        detail: t('errors.originDetail', { detail }),
        retryable: true,
      };
    case 'origin_not_allowed':
      return {
        title: t('errors.origin'),
        detail: t('errors.originDetail', { detail: `${detail}.` }),
        retryable: false,
      };
    case 'token_expired':
      return {
        title: t('errors.expired'),
        detail: t('errors.expiredDetail'),
        retryable: false,
        authExpired: true,
      };
    case 'unauthorized':
      return {
        title: t('errors.unauthorized'),
        detail: t('errors.unauthorizedDetail', { detail }),
        retryable: false,
        authExpired: true,
      };
    case 'rate_limited': {
      const wait = error.retryAfterSeconds
        ? ` ${t('errors.retryIn', { seconds: locale.seconds(error.retryAfterSeconds) })}`
        : ` ${t('errors.retrySoon')}`;
      return {
        title: t('errors.rateLimited'),
        detail: `${t('errors.rateLimitedDetail')}${wait}`,
        retryable: true,
      };
    }
    case 'budget_exceeded':
      // The service's sentence says whose budget, how much, what was spent and when it resets.
      return { title: t('errors.budget'), detail, retryable: false };
    case 'upstream_error':
    case 'upstream_timeout':
    case 'pinned_resource_unavailable':
      return { title: t('errors.upstream'), detail, retryable: true };
    case 'turn_in_progress':
      return {
        title: t('errors.turnInProgress'),
        detail: t('errors.turnInProgressDetail'),
        retryable: true,
      };
    case 'approval_pending':
      return {
        title: t('errors.approvalPending'),
        detail: t('errors.approvalPendingDetail'),
        retryable: false,
      };
    case 'file_too_large':
    case 'upload_quota':
    case 'unsupported_media_type':
      // The service's sentence names the file and the limit it passed.
      return { title: t('errors.fileRefused'), detail, retryable: false };
    case 'model_not_configured':
    case 'invalid_config':
      return { title: t('errors.notSetUp'), detail, retryable: false };
    case 'not_found':
      return { title: t('errors.notFound'), detail: t('errors.notFoundDetail'), retryable: true };
    default:
      if (error.status === 413) return { title: t('errors.tooLarge'), detail, retryable: false };
      if (error.status >= 500) return { title: t('errors.serverProblem'), detail, retryable: true };
      return { title: t('errors.refused'), detail, retryable: false };
  }
}
