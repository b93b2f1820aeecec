import type { IncomingFile } from '../../shared/api/files';
import type { AppConfig } from '../config';
import { errorFields, logEvent } from '../observability/log';
import { uploadType } from './content-type';
import { checkSizes, conversationFull, dailyQuotaExceeded, uploadLimitsOf } from './limits';
import { safeFileName } from './names';
import type { SlotVerdict } from './slots';
import { type StoredUpload, UploadStore } from './store';

export interface IntakeScope {
  env: Pick<Env, 'UPLOADS' | 'USAGE_LEDGER'>;
  config: AppConfig;
  tenant: string;
  user: string;
  conversation: string;
}

/**
 * The conversation's side of an upload (conversation/uploads.ts): through its stub for the files route, called
 * directly inside it for `useChat` file parts. Its Durable Object is where uploads to one conversation meet, so it
 * counts them and names them (uploads/slots.ts).
 */
export interface UploadingConversation {
  /** Names held for files wanting these safe names, or the count refused (checked and held in one step). */
  reserve(wanted: string[], limit: number): Promise<SlotVerdict>;
  /**
   * The upload of `names` ended and their names are no longer held: `stored` (in R2; the conversation lists its
   * files anew, 404 once it is gone) or `discarded` (their objects deleted).
   */
  settle(names: string[], outcome: 'stored' | 'discarded'): Promise<void>;
}

/**
 * Stores a request's files as the conversation's uploads — the one way in, for the files route and for `useChat`
 * file parts alike. Each limit is checked before a byte is written, and each count and its reservation are one step
 * where requests at once meet, so that together they cannot pass it: the sizes here, the conversation's count (and
 * the names) in its Durable Object, then the tenant's daily bytes at its ledger. A refusal or a failure anywhere
 * leaves nothing stored and gives back what was held; so does `undo`, for a request that fails later (a chat
 * message's turn refused after its file parts were stored).
 */
export async function storeUploads(
  scope: IntakeScope,
  files: IncomingFile[],
  conversation: UploadingConversation,
): Promise<{ stored: StoredUpload[]; undo: () => Promise<void> }> {
  const { env, tenant, user } = scope;
  const limits = uploadLimitsOf(scope.config, tenant);
  checkSizes(
    files.map((file) => ({ title: file.title, size: file.body.size })),
    limits,
  );
  const heads = await Promise.all(
    files.map(async (file) => new Uint8Array(await file.body.slice(0, 4096).arrayBuffer())),
  );
  const slots = await conversation.reserve(
    files.map((file) => safeFileName(file.title)),
    limits.perConversation,
  );
  if ('refused' in slots) throw conversationFull(slots.refused, files.length);
  const { names } = slots;
  const bytes = files.reduce((sum, file) => sum + file.body.size, 0);
  // Set once the ledger has counted the bytes: what a rollback gives back.
  let day: string | undefined;
  try {
    const verdict = await env.USAGE_LEDGER.getByName(tenant).reserveUpload(bytes, limits.bytesPerDay);
    if ('refused' in verdict) throw dailyQuotaExceeded(verdict.refused, bytes);
    day = verdict.day;
    const store = new UploadStore(env.UPLOADS, { tenant, conversation: scope.conversation });
    // A millisecond apart, so that the list keeps the order they were sent in.
    const now = Date.now();
    const writes = await Promise.allSettled(
      files.map((file, i) => {
        const name = names[i]!;
        const mimeType = uploadType(file.type, name, heads[i]!);
        return store.put({ name, title: file.title || name, mimeType, body: file.body }, user, now + i);
      }),
    );
    const failed = writes.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed) throw failed.reason;
    await conversation.settle(names, 'stored');
    return {
      stored: writes.map((w) => (w as PromiseFulfilledResult<StoredUpload>).value),
      undo: () => discard(scope, names, bytes, day),
    };
  } catch (error) {
    // Objects first, then the names: a name given up is never one R2 still holds for this request.
    await discard(scope, names, bytes, day);
    await conversation
      .settle(names, 'discarded')
      .catch((cleanup) =>
        logEvent(
          'uploads',
          { what: 'release_failed', conversation: scope.conversation, ...errorFields(cleanup) },
          'error',
        ),
      );
    throw error;
  }
}

/**
 * Stored files taken back: deleted (whichever of `names` were written), and their bytes returned to the tenant's
 * `day` when the ledger counted them (no `day`: it had not). Never throws: a failure is logged.
 */
async function discard(scope: IntakeScope, names: string[], bytes: number, day: string | undefined): Promise<void> {
  const { env, tenant, conversation } = scope;
  await Promise.all([
    new UploadStore(env.UPLOADS, { tenant, conversation }).delete(names),
    day === undefined ? undefined : env.USAGE_LEDGER.getByName(tenant).releaseUpload(day, bytes),
  ]).catch((cleanup) =>
    logEvent('uploads', { what: 'rollback_failed', conversation, ...errorFields(cleanup) }, 'error'),
  );
}
