import type { Transport } from '@modelcontextprotocol/client';
import type { CatalogKind, ServerCapabilities, ServerState } from '../../../shared/api/catalog';
import type { McpServerConfig } from '../../config';
import type { StoredContents } from '../../cache/types';
import type { ClientExtensions, ExtensionCapabilities } from '../connection/connection';

export type { ClientExtensions } from '../connection/connection';

/**
 * What an MCP extension we consume may add, declared in one object per
 * extension (its folder's `extension.ts`), so that the connection, the
 * catalog and the turn ask this registry instead of naming extensions:
 *
 * - the capability we declare for it (`capabilities.extensions[id]`), per server;
 * - a transport wrapper, for results of its own the SDK would refuse;
 * - catalog kinds it adds, with the server capability each needs;
 * - the catalog kinds a server's list-changed notification also changes (its notification handlers);
 * - what the model is not shown of a server's catalog because of it;
 * - the rules a resource read follows for its entries (a refusal, a check of every copy, no conversion).
 * Every field is read by the registry below (its synthetic tools and stream parts, once listed here by name, were read
 * by nobody, and went: what an extension gives the rest of the service is what extensions/index.ts exports).
 */
export interface McpExtension {
  /** The id servers and clients declare under `capabilities.extensions`. */
  readonly id: string;
  /** What we declare for it to `server` (undefined: not declared to this server). */
  clientCapability(server: Pick<McpServerConfig, 'skills'>): ExtensionCapabilities[string] | undefined;
  /** Wraps the transport of every connection (innermost first, in registry order). */
  wrapTransport?<T extends Transport>(transport: T): T;
  /** Catalog kinds it adds, with whether a server's capabilities offer each. */
  catalogKinds?: Partial<Record<CatalogKind, (capabilities: ServerCapabilities) => boolean>>;
  /** A server's catalog as the model is shown it (entries that are not the model's to read taken out). */
  forModel?(state: ServerState): ServerState;
  /** For a notification method, the catalog kinds of its own that the notification changes too. */
  readonly listChanged?: Readonly<Record<string, readonly CatalogKind[]>>;
  /** The rules of reading `uri` when it is one of its entries; throws (an ApiError) to refuse the read. */
  guardRead?(read: GuardedRead): ReadGuard | undefined;
}

/** What an extension's read rule knows of a read (ServerLink.read gives it). */
export interface GuardedRead {
  server: string;
  state: ServerState;
  uri: string;
  /** An entry of the extension's kind the operator does not offer here (the catalog keeps them apart). */
  withheld(uri: string): { frontmatter: { name: string } } | undefined;
  /** Says the server's catalog of `kinds` changed: it is listed again. */
  changed(kinds: CatalogKind[]): void;
}

/** How a read is made when an extension's rule applies to it. */
export interface ReadGuard {
  /** Checks every copy served (from the cache or the server); throws to refuse it. */
  verify?(contents: StoredContents[]): Promise<void>;
  /** Read as sent: never converted (a document's text would fail a byte check). */
  raw?: boolean;
  /** A failure of `verify`, as the reader is told; undefined for any other error. */
  failure?(error: unknown): Error | undefined;
}

/** The registry's answers over a list of extensions (extensions/index.ts makes the one the service uses). */
export class ExtensionRegistry {
  constructor(readonly extensions: readonly McpExtension[]) {}

  /** What a connection to `server` declares and wraps. */
  forConnection(server: Pick<McpServerConfig, 'skills'>): ClientExtensions {
    const capabilities: ExtensionCapabilities = {};
    for (const extension of this.extensions) {
      const capability = extension.clientCapability(server);
      if (capability) capabilities[extension.id] = capability;
    }
    const wrappers = this.extensions.flatMap((e) => (e.wrapTransport ? [e.wrapTransport.bind(e)] : []));
    return {
      capabilities,
      wrapTransport: <T extends Transport>(transport: T) => wrappers.reduce((t, wrap) => wrap(t), transport),
    };
  }

  /** The catalog kinds the extensions add, in registry order (mcp/catalog/catalog.ts lists catalogs by them). */
  catalogKinds(): CatalogKind[] {
    return this.extensions.flatMap((e) => Object.keys(e.catalogKinds ?? {}) as CatalogKind[]);
  }

  /** Whether an extension's catalog kind is offered by a server with `capabilities`; undefined for a core kind. */
  supports(capabilities: ServerCapabilities, kind: CatalogKind): boolean | undefined {
    for (const extension of this.extensions) {
      const check = extension.catalogKinds?.[kind];
      if (check) return check(capabilities);
    }
    return undefined;
  }

  /** The catalog kinds of the extensions that `method` (a list-changed notification) changes, besides the core ones. */
  changedBy(method: string): CatalogKind[] {
    return this.extensions.flatMap((e) => [...(e.listChanged?.[method] ?? [])]);
  }

  /** The rules of one read: the first extension whose entry `read.uri` is (throws when one refuses it). */
  guardRead(read: GuardedRead): ReadGuard | undefined {
    for (const extension of this.extensions) {
      const guard = extension.guardRead?.(read);
      if (guard) return guard;
    }
    return undefined;
  }

  /** The servers' catalogs as the model is shown them. */
  forModel(states: ServerState[]): ServerState[] {
    const views = this.extensions.flatMap((e) => (e.forModel ? [e.forModel.bind(e)] : []));
    return states.map((state) => views.reduce((s, view) => view(s), state));
  }
}
