import { DatabaseSync, type SQLInputValue } from 'node:sqlite';

/**
 * A Durable Object's `SqlStorage` over Node's SQLite, for the MCP client under test: the server state store and the
 * invalidation log run their own SQL on it, as on a conversation's storage. `exec` takes several statements at once
 * (no bindings) as the runtime's does, returns a cursor (`toArray`, `one`, iteration) and counts rows written.
 */
export function sqliteStorage(): SqlStorage {
  const db = new DatabaseSync(':memory:');
  const exec = (query: string, ...bindings: unknown[]) => {
    let rows: Record<string, unknown>[] = [];
    let rowsWritten = 0;
    if (bindings.length === 0 && /;\s*\S/.test(query.trim().replace(/;\s*$/, ''))) db.exec(query);
    else {
      const values = bindings.map((b) =>
        b === undefined ? null : typeof b === 'boolean' ? (b ? 1 : 0) : (b as SQLInputValue),
      );
      const statement = db.prepare(query);
      if (/^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i.test(query) && !/\bRETURNING\b/i.test(query))
        rowsWritten = Number(statement.run(...values).changes);
      else rows = statement.all(...values) as Record<string, unknown>[];
    }
    return {
      rowsWritten,
      rowsRead: rows.length,
      columnNames: rows[0] ? Object.keys(rows[0]) : [],
      toArray: () => rows.map((row) => ({ ...row })),
      one: () => {
        if (rows.length !== 1) throw new Error(`Expected exactly one result from SQL query, but got ${rows.length}.`);
        return { ...rows[0] };
      },
      raw: () => rows.map((row) => Object.values(row))[Symbol.iterator](),
      next: () => ({ done: true, value: undefined }),
      [Symbol.iterator]: () => rows.map((row) => ({ ...row }))[Symbol.iterator](),
    };
  };
  return { exec, databaseSize: 0, Cursor: undefined, Statement: undefined } as unknown as SqlStorage;
}
