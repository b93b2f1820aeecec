import { ensureTables } from '../sql-schema';
import { type KeptDocument, ownerResultUri, toolResultUri, type LargeResultStore } from '../tools/large-results';

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

// A kept text that is a converted document (embedded in a tool result) has a row in large_result_documents: where it
// came from and what it was (pages), so reading on names its pages as a read does.
export const LARGE_RESULT_TABLES = `CREATE TABLE IF NOT EXISTS large_results (uri TEXT NOT NULL, n INTEGER NOT NULL, server TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (uri, n));
CREATE TABLE IF NOT EXISTS large_result_documents (uri TEXT PRIMARY KEY, source TEXT NOT NULL)`;

/** Long tool results of this conversation, in row-sized pieces in its SQLite (see tools/large-results.ts). */
export class SqlLargeResultStore implements LargeResultStore {
  constructor(private readonly storage: DurableObjectStorage) {
    ensureTables(storage.sql, LARGE_RESULT_TABLES);
  }

  put(uri: string, server: string, text: string, source?: KeptDocument): void {
    this.storage.transactionSync(() => {
      this.delete(uri);
      if (source)
        this.storage.sql.exec(
          `INSERT INTO large_result_documents (uri, source) VALUES (?, ?)`,
          uri,
          JSON.stringify(source),
        );
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

  get(uri: string): { server: string; text: string; source?: KeptDocument | undefined } | undefined {
    const rows = this.storage.sql
      .exec<{ server: string; text: string }>(`SELECT server, text FROM large_results WHERE uri = ? ORDER BY n`, uri)
      .toArray();
    if (!rows.length) return undefined;
    const [document] = this.storage.sql
      .exec<{ source: string }>(`SELECT source FROM large_result_documents WHERE uri = ?`, uri)
      .toArray();
    return {
      server: rows[0]!.server,
      text: rows.map((r) => r.text).join(''),
      ...(document ? { source: JSON.parse(document.source) as KeptDocument } : {}),
    };
  }

  private delete(uri: string): void {
    this.storage.sql.exec(`DELETE FROM large_results WHERE uri = ?`, uri);
    this.storage.sql.exec(`DELETE FROM large_result_documents WHERE uri = ?`, uri);
  }

  keepOnly(toolCallIds: ReadonlySet<string>): number {
    const keep = new Set([...toolCallIds].map(toolResultUri));
    const gone = this.storage.sql
      .exec<{ uri: string }>(`SELECT DISTINCT uri FROM large_results`)
      .toArray()
      .filter((row) => !keep.has(ownerResultUri(row.uri)));
    if (gone.length)
      this.storage.transactionSync(() => {
        for (const { uri } of gone) this.delete(uri);
      });
    return gone.length;
  }

  clear(): void {
    this.storage.sql.exec(`DELETE FROM large_results`);
    this.storage.sql.exec(`DELETE FROM large_result_documents`);
  }
}
