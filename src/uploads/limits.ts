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
 * Every file of a request checked against UPLOAD_MAX_BYTES before anything is held or stored: one too large is
 * `413 file_too_large`, naming the limit. The other two limits are counted where requests at once meet, each in one
 * step: the conversation's files in its Durable Object (`conversationFull`, uploads/slots.ts), the tenant's bytes at
 * its ledger (`dailyQuotaExceeded`, usage/ledger.ts `reserveUpload`).
 */
export function checkSizes(files: Array<{ title: string; size: number }>, limits: UploadLimits): void {
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
}

/** The conversation would hold more files than it may (its Durable Object refused): `429 upload_quota`. */
export function conversationFull(refused: { held: number; limit: number }, files: number): ApiError {
  return new ApiError(
    429,
    'upload_quota',
    `This conversation holds ${refused.held} file(s), uploads under way included; ${files} more would pass its limit of ${refused.limit} (UPLOADS_PER_CONVERSATION). Delete some first. Nothing was stored`,
    {},
    { limit: { name: 'UPLOADS_PER_CONVERSATION', value: refused.limit } },
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
