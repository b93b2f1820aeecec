import type { IncomingFile } from '../../shared/api/files';
import type { AppConfig } from '../config';
import { errorFields, logEvent } from '../observability/log';
import { uploadType } from './content-type';
import { checkBatch, dailyQuotaExceeded, uploadLimitsOf } from './limits';
import { safeFileName, uniqueName } from './names';
import { type NewUpload, type StoredUpload, UploadStore } from './store';

export interface IntakeScope {
  env: Pick<Env, 'UPLOADS' | 'USAGE_LEDGER'>;
  config: AppConfig;
  tenant: string;
  user: string;
  conversation: string;
}

/**
 * Stores a request's files as the conversation's uploads — the one way in,
 * for the files route and for `useChat` file parts alike. Every file is
 * checked before any is written (size, the conversation's count, then the
 * tenant's daily bytes at its ledger); `announce` tells the conversation
 * (its `uploads` server lists them anew). A refusal or a failure anywhere
 * leaves nothing stored and gives the tenant's bytes back; so does `undo`, for a
 * request that fails later (a chat message's turn refused after its file parts were stored).
 */
export async function storeUploads(
  scope: IntakeScope,
  files: IncomingFile[],
  announce: (names: string[]) => Promise<void>,
): Promise<{ stored: StoredUpload[]; undo: () => Promise<void> }> {
  const { env, tenant, user, conversation } = scope;
  const limits = uploadLimitsOf(scope.config, tenant);
  const store = new UploadStore(env.UPLOADS, { tenant, conversation });
  const held = await store.list();
  checkBatch(
    files.map((file) => ({ title: file.title, size: file.body.size })),
    held.length,
    limits,
  );
  const taken = new Set(held.map((u) => u.name));
  const planned: NewUpload[] = [];
  for (const file of files) {
    const name = uniqueName(safeFileName(file.title), taken);
    taken.add(name);
    const head = new Uint8Array(await file.body.slice(0, 4096).arrayBuffer());
    planned.push({ name, title: file.title || name, mimeType: uploadType(file.type, name, head), body: file.body });
  }
  const bytes = files.reduce((sum, file) => sum + file.body.size, 0);
  const ledger = env.USAGE_LEDGER.getByName(tenant);
  const verdict = await ledger.reserveUpload(bytes, limits.bytesPerDay);
  if ('refused' in verdict) throw dailyQuotaExceeded(verdict.refused, bytes);
  const undo = () =>
    discard(
      scope,
      planned.map((file) => file.name),
      bytes,
      verdict.day,
    );
  // A millisecond apart, so that the list keeps the order they were sent in.
  const now = Date.now();
  const writes = await Promise.allSettled(planned.map((file, i) => store.put(file, user, now + i)));
  try {
    const failed = writes.find((w): w is PromiseRejectedResult => w.status === 'rejected');
    if (failed) throw failed.reason;
    await announce(planned.map((file) => file.name));
  } catch (error) {
    await undo();
    throw error;
  }
  return { stored: writes.map((w) => (w as PromiseFulfilledResult<StoredUpload>).value), undo };
}

/** Stored files taken back: deleted, and their bytes returned to the tenant's day. Never throws: a failure is logged. */
async function discard(scope: IntakeScope, names: string[], bytes: number, day: string): Promise<void> {
  const { env, tenant, conversation } = scope;
  await Promise.all([
    new UploadStore(env.UPLOADS, { tenant, conversation }).delete(names),
    env.USAGE_LEDGER.getByName(tenant).releaseUpload(day, bytes),
  ]).catch((cleanup) =>
    logEvent('uploads', { what: 'rollback_failed', conversation, ...errorFields(cleanup) }, 'error'),
  );
}
