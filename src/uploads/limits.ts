import type { AppConfig } from '../config';
import { ApiError } from '../errors';
import { humanSize } from '../../shared/human-size';

/** A tenant's upload limits: its own (`limits.upload…` in TENANTS), else the settings. */
export interface UploadLimits {
  /** UPLOAD_MAX_BYTES, or the tenant's `uploadMaxBytes`. */
  maxBytes: number;
  /** UPLOADS_PER_CONVERSATION, or the tenant's `uploadsPerConversation`. */
  perConversation: number;
  /** UPLOAD_BYTES_PER_TENANT_PER_DAY, or the tenant's `uploadBytesPerDay`. */
  bytesPerDay: number;
}

export function uploadLimitsOf(config: AppConfig, tenant: string): UploadLimits {
  const own = config.tenants?.find((t) => t.id === tenant)?.limits;
  const { settings } = config;
  return {
    maxBytes: own?.uploadMaxBytes ?? settings.UPLOAD_MAX_BYTES,
    perConversation: own?.uploadsPerConversation ?? settings.UPLOADS_PER_CONVERSATION,
    bytesPerDay: own?.uploadBytesPerDay ?? settings.UPLOAD_BYTES_PER_TENANT_PER_DAY,
  };
}

/**
 * Every file of a request checked before any is stored: one too large is `413 file_too_large`, more files than the
 * conversation may hold `429 upload_quota` — each naming its limit (the tenant's daily bytes are the ledger's to
 * check, atomically: usage/ledger.ts `reserveUpload`).
 */
export function checkBatch(files: Array<{ title: string; size: number }>, held: number, limits: UploadLimits): void {
  for (const file of files) {
    if (file.size > limits.maxBytes)
      throw new ApiError(
        413,
        'file_too_large',
        `"${file.title}" is ${humanSize(file.size)}; a file may be at most ${humanSize(limits.maxBytes)} (UPLOAD_MAX_BYTES). Nothing was stored`,
        {},
        { limit: { name: 'UPLOAD_MAX_BYTES', value: limits.maxBytes } },
      );
  }
  if (held + files.length > limits.perConversation)
    throw new ApiError(
      429,
      'upload_quota',
      `This conversation holds ${held} file(s); ${files.length} more would pass its limit of ${limits.perConversation} (UPLOADS_PER_CONVERSATION). Delete some first. Nothing was stored`,
      {},
      { limit: { name: 'UPLOADS_PER_CONVERSATION', value: limits.perConversation } },
    );
}

/** The tenant's daily bytes are used up (the ledger refused): `429 upload_quota`, with when the day ends. */
export function dailyQuotaExceeded(
  refused: { used: number; limit: number },
  bytes: number,
  now = Date.now(),
): ApiError {
  const tomorrow = Math.ceil((now + 1) / 86_400_000) * 86_400_000;
  return new ApiError(
    429,
    'upload_quota',
    `Uploading ${humanSize(bytes)} would pass this tenant's ${humanSize(refused.limit)} a day (UPLOAD_BYTES_PER_TENANT_PER_DAY; ${humanSize(refused.used)} used today, UTC). Nothing was stored`,
    { 'Retry-After': String(Math.ceil((tomorrow - now) / 1000)) },
    {
      limit: {
        name: 'UPLOAD_BYTES_PER_TENANT_PER_DAY',
        value: refused.limit,
        used: refused.used,
        resetsAt: new Date(tomorrow).toISOString(),
      },
    },
  );
}
