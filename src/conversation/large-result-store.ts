import { ensureTables } from '../sql-schema';
import { toolResultUri, type LargeResultStore } from '../tools/large-results';

/** Characters per row: at most 1.5 MB in UTF-8, under Durable Object SQLite's 2 MB per value. */
export const ROW_CHARS = 500_000;

/** Splits text into row-sized pieces (never between the halves of a surrogate pair). */
export function rowPieces(text: string, size = ROW_CHARS): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + size);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--; // keep a surrogate pair together
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces.length ? pieces : [''];
}

export const LARGE_RESULT_TABLES = `CREATE TABLE IF NOT EXISTS large_results (uri TEXT NOT NULL, n INTEGER NOT NULL, server TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (uri, n))`;

/** Long tool results of this conversation, in row-sized pieces in its SQLite (see tools/large-results.ts). */
export class SqlLargeResultStore implements LargeResultStore {
  constructor(private readonly storage: DurableObjectStorage) {
    ensureTables(storage.sql, LARGE_RESULT_TABLES);
  }

  put(uri: string, server: string, text: string): void {
    this.storage.transactionSync(() => {
      this.storage.sql.exec(`DELETE FROM large_results WHERE uri = ?`, uri);
      rowPieces(text).forEach((piece, n) => {
        this.storage.sql.exec(
          `INSERT INTO large_results (uri, n, server, text) VALUES (?, ?, ?, ?)`,
          uri,
          n,
          server,
          piece,
        );
      });
    });
  }

  get(uri: string): { server: string; text: string } | undefined {
    const rows = this.storage.sql
      .exec<{ server: string; text: string }>(`SELECT server, text FROM large_results WHERE uri = ? ORDER BY n`, uri)
      .toArray();
    return rows.length ? { server: rows[0]!.server, text: rows.map((r) => r.text).join('') } : undefined;
  }

  keepOnly(toolCallIds: ReadonlySet<string>): number {
    const keep = new Set([...toolCallIds].map(toolResultUri));
    const gone = this.storage.sql
      .exec<{ uri: string }>(`SELECT DISTINCT uri FROM large_results`)
      .toArray()
      .filter((row) => !keep.has(row.uri));
    if (gone.length)
      this.storage.transactionSync(() => {
        for (const { uri } of gone) this.storage.sql.exec(`DELETE FROM large_results WHERE uri = ?`, uri);
      });
    return gone.length;
  }

  clear(): void {
    this.storage.sql.exec(`DELETE FROM large_results`);
  }
}
