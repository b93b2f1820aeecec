import { ensureTables } from '../sql-schema';

/** How long a view link (`/views/<conversation>/<nonce>`) opens its document. */
export const VIEW_NONCE_TTL_MS = 10 * 60_000;

/** What a view link opens: one `ui://` resource of one server of this conversation. */
export interface ViewTarget {
  server: string;
  uri: string;
}

export const VIEW_NONCE_TABLES = `CREATE TABLE IF NOT EXISTS view_links (nonce TEXT PRIMARY KEY, server TEXT NOT NULL, uri TEXT NOT NULL, expires_at INTEGER NOT NULL)`;

/**
 * The nonces of one conversation's view links (the API's ViewLink), in its SQLite: a random 128-bit nonce
 * (the capability an iframe's `src` carries, which cannot carry the API
 * token) bound to one (server, uri) until it is used or expires. Outlives
 * an eviction of the object, dies with the conversation.
 */
export class SqlViewNonces {
  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly ttlMs = VIEW_NONCE_TTL_MS,
  ) {
    ensureTables(storage.sql, VIEW_NONCE_TABLES);
  }

  /** A new nonce for `target`; expired ones are dropped on the way. */
  mint(target: ViewTarget, now = Date.now()): { nonce: string; expiresAt: number } {
    const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const expiresAt = now + this.ttlMs;
    this.storage.sql.exec(`DELETE FROM view_links WHERE expires_at <= ?`, now);
    this.storage.sql.exec(
      `INSERT INTO view_links (nonce, server, uri, expires_at) VALUES (?, ?, ?, ?)`,
      nonce,
      target.server,
      target.uri,
      expiresAt,
    );
    return { nonce, expiresAt };
  }

  /**
   * What `nonce` opens, once: the link is used up by the frame's first load
   * (undefined: never minted here, expired, or used). Its URL travels in a
   * path, which platform request logs print; single use leaves a reader of
   * those logs a link that no longer opens anything (docs/SECURITY.md).
   */
  /** What `nonce` opens, leaving the link as it is (a HEAD: no document is sent, so the link is not used up). */
  peek(nonce: string, now = Date.now()): ViewTarget | undefined {
    return this.storage.sql
      .exec<{ server: string; uri: string }>(
        `SELECT server, uri FROM view_links WHERE nonce = ? AND expires_at > ?`,
        nonce,
        now,
      )
      .toArray()
      .map(({ server, uri }) => ({ server, uri }))[0];
  }

  take(nonce: string, now = Date.now()): ViewTarget | undefined {
    return this.storage.sql
      .exec<{ server: string; uri: string }>(
        `DELETE FROM view_links WHERE nonce = ? AND expires_at > ? RETURNING server, uri`,
        nonce,
        now,
      )
      .toArray()
      .map(({ server, uri }) => ({ server, uri }))[0];
  }
}
