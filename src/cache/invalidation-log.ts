import { ensureTables } from '../sql-schema';

export const INVALIDATION_LOG_TABLES = [
  `CREATE TABLE IF NOT EXISTS cache_invalidations (key TEXT PRIMARY KEY, at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS cache_clock (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
].join(';\n');

/**
 * When each cached resource was last invalidated, kept in the Durable
 * Object's SQLite storage so it survives restarts. A KV copy fetched before
 * that time is never served again by this conversation, even though KV
 * (eventually consistent) may still return it for a while.
 *
 * The times are this conversation's clock, so they are only compared with
 * stamps of the same clock: `writer` names it (a random id kept in the same
 * storage), and cache entries carry the writer that stamped them.
 *
 * Bounded: records older than `retainMs` are useless (KV copies that old are
 * rejected anyway), and past `maxKeys` the oldest are forgotten — on the
 * safe side: a key without a record counts as invalidated at `floor`, the
 * latest time forgotten.
 *
 * Reads come from an in-memory map loaded once; writes go to both.
 */
export class InvalidationLog {
  private readonly times = new Map<string, number>();
  private recorded = 0;
  /** The latest invalidation time forgotten for want of room (0: none within `retainMs`). */
  private floor = 0;
  /** Names this conversation's clock: copies it stamped carry it. */
  readonly writer: string;

  constructor(
    private readonly sql: SqlStorage,
    /** Records older than this are useless: KV copies that old are rejected anyway. */
    private readonly retainMs: number,
    /** Most keys kept (CACHE_TRACKED_URIS). */
    private readonly maxKeys = 10_000,
  ) {
    ensureTables(sql, INVALIDATION_LOG_TABLES);
    const clock = new Map(
      sql
        .exec<{ name: string; value: string }>(`SELECT name, value FROM cache_clock`)
        .toArray()
        .map((r) => [r.name, r.value]),
    );
    this.writer = clock.get('writer') ?? crypto.randomUUID();
    if (!clock.has('writer')) sql.exec(`INSERT INTO cache_clock (name, value) VALUES ('writer', ?)`, this.writer);
    this.floor = Number(clock.get('floor') ?? 0);
    this.prune();
    for (const row of sql.exec<{ key: string; at: number }>(`SELECT key, at FROM cache_invalidations ORDER BY at`))
      this.times.set(row.key, row.at);
  }

  /** Last invalidation of `key`, or the floor if it may have been forgotten, or 0. */
  at(key: string): number {
    return this.times.get(key) ?? this.floor;
  }

  record(key: string, at = Date.now()): void {
    // Keeps a long-lived conversation's log bounded by what is still useful.
    if (++this.recorded % 1_000 === 0) this.prune();
    this.times.delete(key); // re-inserted last: the map's order is the records' age
    this.times.set(key, at);
    this.sql.exec(
      `INSERT INTO cache_invalidations (key, at) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET at = excluded.at`,
      key,
      at,
    );
    if (this.times.size > this.maxKeys) this.forgetOldest(this.times.size - this.maxKeys);
  }

  private forgetOldest(count: number): void {
    const oldest: Array<[string, number]> = [];
    for (const entry of this.times) {
      if (oldest.length >= count) break;
      oldest.push(entry);
    }
    for (const [key, at] of oldest) {
      this.times.delete(key);
      this.floor = Math.max(this.floor, at);
      this.sql.exec(`DELETE FROM cache_invalidations WHERE key = ?`, key);
    }
    this.sql.exec(
      `INSERT INTO cache_clock (name, value) VALUES ('floor', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value`,
      String(this.floor),
    );
  }

  private prune(): void {
    const cutoff = Date.now() - this.retainMs;
    this.sql.exec(`DELETE FROM cache_invalidations WHERE at < ?`, cutoff);
    for (const [key, at] of this.times) if (at < cutoff) this.times.delete(key);
    if (this.floor && this.floor < cutoff) {
      this.floor = 0;
      this.sql.exec(`DELETE FROM cache_clock WHERE name = 'floor'`);
    }
  }
}
