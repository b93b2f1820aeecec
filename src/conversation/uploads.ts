import { UPLOADS_SERVER, uploadUri } from '../../shared/api/files';
import { ServerStateStore } from '../mcp/catalog/state-store';
import { errorFields, logEvent } from '../observability/log';
import { type RpcResult, toRpcResult, unwrap } from '../rpc';
import { ensureTables } from '../sql-schema';
import { UploadStore } from '../uploads/store';
import { hasFileParts, messageFiles } from '../chat/file-parts';
import type { TurnCommand } from '../turn/commands';
import { storeUploads, type UploadingConversation } from '../uploads/intake';
import { type SlotVerdict, UploadSlots } from '../uploads/slots';
import type { ConversationTerms } from './terms';
import type { LiveSessions } from './live-sessions';

/** Whether the conversation has ever had a file: one row, written by the first upload. No file's bytes, ever. */
export const UPLOADS_TABLES = `CREATE TABLE IF NOT EXISTS uploads_seen (one INTEGER PRIMARY KEY CHECK (one = 1), since INTEGER NOT NULL)`;

/**
 * Whether this conversation connects to the built-in `uploads` server: only
 * once it has had a file, so a conversation without uploads (nearly every
 * one) lists and connects to nothing more than before.
 */
export class UploadsFlag {
  private known: boolean | undefined;

  constructor(private readonly sql: SqlStorage) {
    ensureTables(sql, UPLOADS_TABLES);
  }

  get on(): boolean {
    this.known ??= this.sql.exec(`SELECT 1 FROM uploads_seen`).toArray().length > 0;
    return this.known;
  }

  set(): void {
    if (this.on) return;
    this.sql.exec(`INSERT OR IGNORE INTO uploads_seen (one, since) VALUES (1, ?)`, Date.now());
    this.known = true;
  }
}

export interface UploadsHost {
  terms: ConversationTerms;
  storage: DurableObjectStorage;
  live: LiveSessions;
  flag: UploadsFlag;
}

/**
 * The conversation's side of its files (their bytes and list are R2's:
 * uploads/store.ts): every upload to it, from the files route or a message's
 * file parts, holds its names here first (the count and the names, one step
 * in this Durable Object: uploads/slots.ts) and settles them here after R2
 * answered; after every upload or deletion it turns the `uploads` server on,
 * drops its copies of those files and makes its list stale, so the next turn
 * or catalog lists the files anew; and when the conversation is deleted, its
 * files go with it.
 */
export class ConversationUploads {
  /** Made at the first upload: a conversation that never has one never creates its table. */
  private slotsOnce: UploadSlots | undefined;

  constructor(private readonly host: UploadsHost) {}

  /** Names held for an upload under way (routes/files.ts, or `fileParts` below), or the count that refused it. */
  reserve(wanted: string[], limit: number): Promise<RpcResult<SlotVerdict>> {
    return toRpcResult(async () => {
      this.host.terms.existing();
      return this.slots().reserve(wanted, limit);
    });
  }

  /** An upload under way ended: `stored`, and the conversation lists its files anew (404 once it is gone); or `discarded`. */
  settle(names: string[], outcome: 'stored' | 'discarded'): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      if (outcome === 'stored') unwrap(await this.changed(names));
      await this.slots().release(names);
    });
  }

  /** Files named `names` were stored or deleted (the route's word, after R2 answered). 404 once the conversation is gone. */
  changed(names: string[]): Promise<RpcResult<void>> {
    return toRpcResult(async () => {
      const { terms, storage, live, flag } = this.host;
      terms.existing();
      flag.set();
      new ServerStateStore(storage.sql).expireCatalog(UPLOADS_SERVER, 'resources');
      live.uploadsChanged(names.map((name) => uploadUri(terms.name, name)));
    });
  }

  /**
   * A message's file parts (`useChat`'s `FileUIPart`s, over HTTP or the WebSocket) stored as this conversation's
   * uploads, exactly as the files route stores a form's files (uploads/intake.ts: the same limits, checked before
   * anything is stored), and attached to the message by reference; undefined when it has none.
   */
  async fileParts(
    command: Extract<TurnCommand, { kind: 'message' }>,
  ): Promise<{ command: typeof command; undo(): Promise<void> } | undefined> {
    if (!hasFileParts(command.message)) return undefined;
    const { terms } = this.host;
    const { files, existing, message } = messageFiles(command.message, terms.name);
    const { tenant, user } = terms.owner();
    const here: UploadingConversation = {
      reserve: async (wanted, limit) => unwrap(await this.reserve(wanted, limit)),
      settle: async (names, outcome) => unwrap(await this.settle(names, outcome)),
    };
    const { stored, undo } = files.length
      ? await storeUploads(
          { env: terms.env, config: terms.config(), tenant, user, conversation: terms.name },
          files,
          here,
        )
      : { stored: [], undo: async () => {} };
    const attachments = [
      ...command.attachments,
      ...existing,
      ...stored.map((upload) => ({ server: UPLOADS_SERVER, uri: uploadUri(terms.name, upload.name) })),
    ];
    return {
      command: { ...command, message, attachments },
      undo: async () => {
        await undo();
        if (stored.length) await this.changed(stored.map((upload) => upload.name)).catch(() => {});
      },
    };
  }

  private slots(): UploadSlots {
    const { terms, storage } = this.host;
    this.slotsOnce ??= new UploadSlots(storage.sql, async () => {
      const store = new UploadStore(terms.env.UPLOADS, {
        tenant: terms.owner().tenant,
        conversation: terms.name,
      });
      return (await store.list()).map((upload) => upload.name);
    });
    return this.slotsOnce;
  }

  /** Every file of the conversation, deleted from R2 (its deletion: removal.ts). */
  async removeAll(tenant: string): Promise<void> {
    const { terms } = this.host;
    const count = await new UploadStore(terms.env.UPLOADS, { tenant, conversation: terms.name })
      .deleteAll()
      .catch((error: unknown) => {
        logEvent('uploads', { what: 'remove_failed', conversation: terms.name, ...errorFields(error) }, 'error');
        throw error;
      });
    if (count) logEvent('uploads', { what: 'removed', conversation: terms.name, files: count });
  }
}
