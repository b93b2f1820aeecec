import { DurableObject } from 'cloudflare:workers';
import { sha256Hex } from './tool-digest';

/** What a definition is: a tool (by name) or the server's instructions. */
export type DefinitionKind = 'tool' | 'instructions';

/** What a conversation (or the status probe) listed of one server: each tool's digest, and its instructions'. */
export interface PinCheck {
  server: string;
  /** The server's URL in the tenant's config: an id pointed at another URL is another server, with pins of its own. */
  url: string;
  tools: Array<{ name: string; digest: string }>;
  instructions?: string | undefined;
}

/** Per definition: the digest pinned (the first one listed, or the operator's re-confirmed one), and `news` on the first sighting tenant-wide of a digest that differs. */
export interface PinAnswer {
  tools: Record<string, { pinned: string; news: boolean }>;
  instructions?: { pinned: string; news: boolean } | undefined;
}

/**
 * Pins kept per server at most: a pin is never dropped (a tool that leaves the list and comes back is compared with
 * it), so a server that lists ever new names could otherwise grow the store without end. Past it, a new tool gets no
 * pin, and its calls ask (`unchecked`, definition-check.ts).
 */
const MAX_PINS_PER_SERVER = 5_000;

/**
 * A server's URL as the pins are keyed by it: its SHA-256, never the URL — a URL may carry a credential in its query
 * (`?api_key=…`), and nothing from config is stored in clear (as the shared catalogs' keys: cache/shared-catalogs.ts).
 */
const urlKey = (url: string) => sha256Hex(`url:${url}`);

/** The one object per tenant that keeps the pins of every server of that tenant. */
export const definitionPinsOf = (env: Pick<Env, 'DEFINITION_PINS'>, tenant: string) =>
  env.DEFINITION_PINS.getByName(tenant);

/**
 * The tool definitions (and instructions) of a tenant's MCP servers as they
 * were first listed, or as the operator re-confirmed them: the digests that
 * `autoApprove` and `trustAnnotations` apply to (docs/SECURITY.md,
 * "Auto-approval and changed tools"). One Durable Object per tenant, in
 * SQLite: the first listing pins atomically (two conversations listing at
 * once agree on one pin), a pin survives restarts and deploys, and it is kept
 * when the tool leaves the list — a tool that comes back is compared with it.
 * Workers KV (where the tenant's shared lists are) was not used: it is
 * eventually consistent, so two places could each pin their own first
 * definition, and an operator's re-confirmation would take up to a minute to
 * be read everywhere.
 */
export class DefinitionPins extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS pins (server TEXT NOT NULL, url TEXT NOT NULL, kind TEXT NOT NULL,
      name TEXT NOT NULL, digest TEXT NOT NULL, seen TEXT, pinned_at INTEGER NOT NULL, confirmed_at INTEGER,
      PRIMARY KEY (server, url, kind, name))`);
  }

  /**
   * Pins what has no pin yet and answers every pin asked about. `news` is
   * true the first time a digest other than the pin is reported (so the
   * change is logged once for the tenant, not once per conversation).
   */
  async check(asked: PinCheck): Promise<PinAnswer> {
    const request = { ...asked, url: await urlKey(asked.url) };
    const tools: PinAnswer['tools'] = {};
    let room = MAX_PINS_PER_SERVER - this.count(request.server, request.url);
    for (const { name, digest } of request.tools) {
      const pin = this.pin(request, 'tool', name, digest, room > 0);
      if (!pin) continue;
      tools[name] = { pinned: pin.pinned, news: pin.news };
      if (pin.created) room--;
    }
    return {
      tools,
      ...(request.instructions === undefined
        ? {}
        : { instructions: this.pin(request, 'instructions', '', request.instructions) }),
    };
  }

  /** The operator re-confirms `digest` as the approved definition; answers the digest it replaces (undefined: none was pinned). */
  async confirm(
    server: string,
    url: string,
    kind: DefinitionKind,
    name: string,
    digest: string,
  ): Promise<string | undefined> {
    url = await urlKey(url);
    const sql = this.ctx.storage.sql;
    const before = this.row(server, url, kind, name)?.digest;
    sql.exec(
      `INSERT INTO pins (server, url, kind, name, digest, seen, pinned_at, confirmed_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)
       ON CONFLICT (server, url, kind, name) DO UPDATE SET digest = excluded.digest, seen = NULL, confirmed_at = excluded.confirmed_at`,
      server,
      url,
      kind,
      name,
      digest,
      Date.now(),
      Date.now(),
    );
    return before;
  }

  /** A pin (`created` when this call made it), or none when the server has used up its room for new ones. */
  private pin(at: { server: string; url: string }, kind: DefinitionKind, name: string, digest: string, room = true) {
    const sql = this.ctx.storage.sql;
    const row = this.row(at.server, at.url, kind, name);
    if (!row) {
      if (!room) return undefined;
      sql.exec(
        `INSERT INTO pins (server, url, kind, name, digest, pinned_at) VALUES (?, ?, ?, ?, ?, ?)`,
        at.server,
        at.url,
        kind,
        name,
        digest,
        Date.now(),
      );
      return { pinned: digest, news: false, created: true };
    }
    const news = digest !== row.digest && digest !== row.seen;
    if (news)
      sql.exec(
        `UPDATE pins SET seen = ? WHERE server = ? AND url = ? AND kind = ? AND name = ?`,
        digest,
        at.server,
        at.url,
        kind,
        name,
      );
    return { pinned: row.digest, news };
  }

  private count(server: string, url: string): number {
    return this.ctx.storage.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM pins WHERE server = ? AND url = ?`, server, url)
      .one().n;
  }

  private row(server: string, url: string, kind: DefinitionKind, name: string) {
    return this.ctx.storage.sql
      .exec<{ digest: string; seen: string | null }>(
        `SELECT digest, seen FROM pins WHERE server = ? AND url = ? AND kind = ? AND name = ?`,
        server,
        url,
        kind,
        name,
      )
      .toArray()[0];
  }
}
