import { emptyServerState, type CatalogKind, type ServerState } from './catalog';
import type { EraVerdict } from '../connection/era';
import { ensureTables } from '../../sql-schema';

type ServerRow = { id: string; state: string };
type CatalogRow = { server: string; kind: CatalogKind; items: string; fetched_at: number };

export const MCP_STATE_TABLES = [
  `CREATE TABLE IF NOT EXISTS mcp_servers (id TEXT PRIMARY KEY, state TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS mcp_catalogs (server TEXT NOT NULL, kind TEXT NOT NULL, items TEXT NOT NULL, fetched_at INTEGER NOT NULL, PRIMARY KEY (server, kind))`,
  // (mcp_subscriptions, of earlier versions, is no longer read: it had no time to order by.)
  `CREATE TABLE IF NOT EXISTS mcp_followed (server TEXT NOT NULL, uri TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (server, uri))`,
  `CREATE TABLE IF NOT EXISTS mcp_eras (server TEXT PRIMARY KEY, verdict TEXT NOT NULL)`,
  // 2025 sessions this conversation opened and has not ended: an instance evicted before it could end them leaves
  // them here, and the next instance sends their DELETE (orphaned-sessions.ts).
  `CREATE TABLE IF NOT EXISTS mcp_open_sessions (server TEXT PRIMARY KEY, session TEXT NOT NULL, protocol TEXT)`,
].join(';\n');

/**
 * Persists what a conversation knows of its MCP servers in DO SQLite:
 * status, server info, capabilities, instructions, each catalog with the
 * time it was fetched, the URIs it follows (notification filters), and each
 * server's protocol era verdict. Nothing from config (URLs, headers) is
 * stored here, so no credential ever reaches storage.
 */
export class ServerStateStore {
  /** Era verdicts as last read or written (read at every turn to know if a server's header is still fresh; only this store writes them). */
  private readonly verdicts = new Map<string, EraVerdict | undefined>();

  constructor(private readonly sql: SqlStorage) {
    ensureTables(sql, MCP_STATE_TABLES);
  }

  /** A 2025 session was opened with `server` (replacing the record of an earlier one, which the connection ended first). */
  sessionOpened(server: string, session: string, protocol: string | undefined): void {
    this.sql.exec(
      `INSERT INTO mcp_open_sessions (server, session, protocol) VALUES (?, ?, ?) ON CONFLICT(server) DO UPDATE SET session = excluded.session, protocol = excluded.protocol`,
      server,
      session,
      protocol ?? null,
    );
  }

  /** That session was ended (DELETE sent, or the server forgot it). */
  sessionEnded(server: string, session: string): void {
    this.sql.exec(`DELETE FROM mcp_open_sessions WHERE server = ? AND session = ?`, server, session);
  }

  /** The 2025 sessions on record: open on their servers, as far as this conversation knows. */
  openSessions(): Array<{ server: string; session: string; protocol: string | undefined }> {
    return this.sql
      .exec<{ server: string; session: string; protocol: string | null }>(
        `SELECT server, session, protocol FROM mcp_open_sessions`,
      )
      .toArray()
      .map((r) => ({ server: r.server, session: r.session, protocol: r.protocol ?? undefined }));
  }

  verdict(id: string): EraVerdict | undefined {
    if (this.verdicts.has(id)) return this.verdicts.get(id);
    const row = this.sql.exec<{ verdict: string }>(`SELECT verdict FROM mcp_eras WHERE server = ?`, id).toArray()[0];
    const verdict = row ? (JSON.parse(row.verdict) as EraVerdict) : undefined;
    this.verdicts.set(id, verdict);
    return verdict;
  }

  saveVerdict(id: string, verdict: EraVerdict | undefined): void {
    this.verdicts.set(id, verdict);
    if (!verdict) this.sql.exec(`DELETE FROM mcp_eras WHERE server = ?`, id);
    else
      this.sql.exec(
        `INSERT INTO mcp_eras (server, verdict) VALUES (?, ?) ON CONFLICT(server) DO UPDATE SET verdict = excluded.verdict`,
        id,
        JSON.stringify(verdict),
      );
  }

  load(id: string): ServerState {
    const state = emptyServerState(id);
    const row = this.sql.exec<ServerRow>(`SELECT id, state FROM mcp_servers WHERE id = ?`, id).toArray()[0];
    if (row) Object.assign(state, JSON.parse(row.state));
    for (const catalog of this.sql.exec<CatalogRow>(`SELECT * FROM mcp_catalogs WHERE server = ?`, id)) {
      (state[catalog.kind] as unknown[]) = JSON.parse(catalog.items);
      state.fetchedAt[catalog.kind] = catalog.fetched_at;
    }
    return state;
  }

  /** Saves everything but the catalogs (see `saveCatalog`). */
  saveHeader(state: ServerState): void {
    const {
      tools: _t,
      resources: _r,
      resourceTemplates: _rt,
      prompts: _p,
      skills: _s,
      fetchedAt: _f,
      ...header
    } = state;
    this.sql.exec(
      `INSERT INTO mcp_servers (id, state) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET state = excluded.state`,
      state.id,
      JSON.stringify(header),
    );
  }

  saveCatalog(id: string, kind: CatalogKind, items: unknown[], fetchedAt: number): void {
    this.sql.exec(
      `INSERT INTO mcp_catalogs (server, kind, items, fetched_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(server, kind) DO UPDATE SET items = excluded.items, fetched_at = excluded.fetched_at`,
      id,
      kind,
      JSON.stringify(items),
      fetchedAt,
    );
  }

  /** A stored list is stale from now (fetched "at 0"): whoever loads it lists it again (a change this service made). */
  expireCatalog(id: string, kind: CatalogKind): void {
    this.sql.exec(`UPDATE mcp_catalogs SET fetched_at = 0 WHERE server = ? AND kind = ?`, id, kind);
  }

  /** The URIs this conversation follows on a server (asked for again on a new channel), most recently followed first. */
  followed(id: string, limit: number): string[] {
    return this.sql
      .exec<{ uri: string }>(`SELECT uri FROM mcp_followed WHERE server = ? ORDER BY at DESC LIMIT ?`, id, limit)
      .toArray()
      .map((r) => r.uri);
  }

  follow(id: string, uri: string): void {
    this.sql.exec(
      `INSERT INTO mcp_followed (server, uri, at) VALUES (?, ?, ?) ON CONFLICT(server, uri) DO UPDATE SET at = excluded.at`,
      id,
      uri,
      Date.now(),
    );
  }

  unfollow(id: string, uris: string[]): void {
    for (const uri of uris) this.sql.exec(`DELETE FROM mcp_followed WHERE server = ? AND uri = ?`, id, uri);
  }
}
