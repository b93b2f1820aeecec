/**
 * The tables a store needs, created once per Durable Object instance. A
 * Durable Object that holds several stores creates all their tables in one
 * `exec` (several statements, separated by `;`): measured under wrangler dev,
 * thirteen `CREATE TABLE` calls one by one cost a new conversation ~2 ms of
 * CPU, the same statements in one call ~0.1 ms (BENCHMARKS.md, "CPU per turn").
 * A store's own constructor then finds its tables done and runs nothing.
 */
const created = new WeakMap<SqlStorage, Set<string>>();

export function ensureTables(sql: SqlStorage, ...schemas: string[]): void {
  let done = created.get(sql);
  if (!done) created.set(sql, (done = new Set()));
  const missing = schemas.filter((schema) => !done.has(schema));
  if (!missing.length) return;
  sql.exec(missing.join(';\n'));
  for (const schema of missing) done.add(schema);
}
