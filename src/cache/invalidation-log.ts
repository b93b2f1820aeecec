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
  private recorded = 0;

  constructor(
    private readonly sql: SqlStorage,
    /** Records older than this are useless: KV copies that old are rejected anyway. */
    private readonly retainMs: number,
  ) {
    sql.exec(`CREATE TABLE IF NOT EXISTS cache_invalidations (key TEXT PRIMARY KEY, at INTEGER NOT NULL)`);
    this.prune();
    for (const row of sql.exec<{ key: string; at: number }>(`SELECT key, at FROM cache_invalidations`)) this.times.set(row.key, row.at);
  }

  /** Last invalidation of `key`, or 0. */
  at(key: string): number {
    return this.times.get(key) ?? 0;
  }

  record(key: string, at = Date.now()): void {
    // Keeps a long-lived conversation's log bounded by what is still useful.
    if (++this.recorded % 1_000 === 0) this.prune();
    this.times.set(key, at);
    this.sql.exec(`INSERT INTO cache_invalidations (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at`, key, at);
  }

  private prune(): void {
    const cutoff = Date.now() - this.retainMs;
    this.sql.exec(`DELETE FROM cache_invalidations WHERE at < ?`, cutoff);
    for (const [key, at] of this.times) if (at < cutoff) this.times.delete(key);
  }
}
