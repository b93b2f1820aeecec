/**
 * When each cached resource was last invalidated, kept in the Durable
 * Object's SQLite storage so it survives restarts. A KV copy fetched before
 * that time is never served again by this conversation, even though KV
 * (eventually consistent) may still return it for a while.
 *
 * Reads come from an in-memory map loaded once; writes go to both.
 */
export class InvalidationLog {
  private readonly times = new Map<string, number>();

  constructor(
    private readonly sql: SqlStorage,
    /** Records older than this are useless: KV copies that old are rejected anyway. */
    private readonly retainMs: number,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS cache_invalidations (key TEXT PRIMARY KEY, at INTEGER NOT NULL)`);
    sql.exec(`DELETE FROM cache_invalidations WHERE at < ?`, Date.now() - retainMs);
    for (const row of sql.exec<{ key: string; at: number }>(`SELECT key, at FROM cache_invalidations`)) this.times.set(row.key, row.at);
  }

  /** Last invalidation of `key`, or 0. */
  at(key: string): number {
    return this.times.get(key) ?? 0;
  }

  record(key: string, at = Date.now()): void {
    this.times.set(key, at);
    this.sql.exec(
      `INSERT INTO cache_invalidations (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at`,
      key,
      at,
    );
  }
}
