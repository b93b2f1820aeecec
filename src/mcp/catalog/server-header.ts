import type { Client, DiscoverResult } from '@modelcontextprotocol/client';
import { hintOf, isServable, type ServerCachePolicy } from '../../cache/policy';
import type { SharedCatalogs, SharedCopies } from '../../cache/shared-catalogs';
import type { CacheHint } from '../../cache/types';
import type { ServerState } from './catalog';
import type { ServerStateStore } from './state-store';

/** The header's kind among a server's shared copies (cache/shared-catalogs.ts). */
export const HEADER_KIND = 'server';

/** What a server says of itself, shared by a tenant's conversations (kind `server` in shared-catalogs.ts) so a new one need not connect to learn it. */
interface ServerHeader {
  serverInfo?: ServerState['serverInfo'];
  capabilities: NonNullable<ServerState['capabilities']>;
  instructions?: string | undefined;
  protocolVersion?: string | undefined;
  /** 2026-07-28: the `server/discover` result (a later connection adopts it without a round trip). */
  discover?: DiscoverResult;
}

export interface ServerHeaderOptions {
  id: string;
  url: string;
  state: ServerState;
  store: ServerStateStore;
  /** The tenant's shared catalogs (KV); absent: nothing is shared. */
  shared?: SharedCatalogs | undefined;
  /** Whether copies are kept per user (never shared in the tenant) — the server's `cacheScope`, or OAuth. */
  perUser: boolean;
  /** The freshness contract for catalogs and headers: no `RESOURCE_TTL_MS`, so without a hint they are kept up to CACHE_MAX_AGE_MS. */
  policy: ServerCachePolicy;
}

/**
 * The header of one server for one conversation — info, capabilities,
 * instructions, protocol version — and whether it may still be used without
 * connecting: from this conversation's storage, or the copy another
 * conversation of the tenant shared. Split from ServerLink, which decides
 * when to connect; this only knows how old a header is and where it came from.
 */
export class ServerHeaderCopy {
  /** When a 2025 server's header was learnt (its `initialize`, or a shared copy); a 2026 server's is its era verdict's. */
  private legacyAt: number | undefined;
  /** The header came from the tenant's shared copy: connecting does not share it again. */
  private fromShared = false;

  constructor(private readonly options: ServerHeaderOptions) {}

  /** The header this conversation holds, or else the tenant's shared one, as the contract serves it without a channel. */
  async servable(reuseSince: number, copies?: SharedCopies): Promise<boolean> {
    return this.heldServable(reuseSince) || (await this.takeShared(reuseSince, copies));
  }

  /**
   * After a set-up that learnt the header from the server itself: dated (a
   * 2025 server's by its `initialize`) and, when `share`, shared with the
   * tenant's other conversations (as its lists are).
   */
  learnt(client: Client, share: boolean): void {
    const { state, store, shared, id } = this.options;
    if (client.getProtocolEra() === 'legacy') this.legacyAt = state.connectedAt;
    if (!shared || !share || this.fromShared || !state.capabilities) return;
    const verdict = store.verdict(id);
    const discover = verdict?.kind === 'modern' ? verdict.discover : undefined;
    const header: ServerHeader = {
      serverInfo: state.serverInfo,
      capabilities: state.capabilities,
      instructions: state.instructions,
      protocolVersion: state.protocolVersion,
      ...(discover ? { discover } : {}),
    };
    const hint: CacheHint | undefined = discover
      ? hintOf(discover as { ttlMs?: unknown; cacheScope?: unknown }, 'modern')
      : undefined;
    shared.put(
      this.ref(),
      { items: [header], fetchedAt: verdict?.kind === 'modern' ? verdict.at : (state.connectedAt ?? Date.now()), hint },
      this.options.perUser,
    );
  }

  /** Its discover hint (2026), or CACHE_MAX_AGE_MS since it was learnt. */
  private heldServable(reuseSince: number): boolean {
    const { state, store, id, policy } = this.options;
    if (!state.capabilities) return false;
    const verdict = store.verdict(id);
    const learnt =
      verdict?.kind === 'modern'
        ? {
            fetchedAt: verdict.at,
            hint: hintOf(verdict.discover as { ttlMs?: unknown; cacheScope?: unknown }, 'modern'),
          }
        : this.legacyAt !== undefined
          ? { fetchedAt: this.legacyAt }
          : undefined;
    return learnt !== undefined && isServable(learnt, { now: Date.now(), coveredSince: undefined, reuseSince }, policy);
  }

  /** The header another conversation of the tenant learnt, if the contract still serves it; a 2026 discover result also becomes this conversation's era verdict. */
  private async takeShared(reuseSince: number, copies: SharedCopies | undefined): Promise<boolean> {
    const { shared, state, store, id, policy, perUser } = this.options;
    if (!shared) return false;
    const copy = await (copies ? copies(HEADER_KIND) : shared.get(this.ref(), perUser));
    const header = copy?.items[0] as ServerHeader | undefined;
    if (!copy || typeof header?.capabilities !== 'object' || header.capabilities === null) return false;
    const entry = { fetchedAt: copy.fetchedAt, ...(copy.hint ? { hint: copy.hint } : {}) };
    if (!isServable(entry, { now: Date.now(), coveredSince: undefined, reuseSince }, policy)) return false;
    Object.assign(state, {
      serverInfo: header.serverInfo,
      capabilities: header.capabilities,
      instructions: header.instructions,
      protocolVersion: header.protocolVersion,
    });
    if (header.discover) store.saveVerdict(id, { kind: 'modern', discover: header.discover, at: copy.fetchedAt });
    else this.legacyAt = copy.fetchedAt;
    this.fromShared = true;
    return true;
  }

  private ref() {
    return { server: this.options.id, url: this.options.url, kind: HEADER_KIND };
  }
}
