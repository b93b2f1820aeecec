import {
  InsufficientScopeError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type CompleteRequest,
  type CompleteResult,
  type GetPromptResult,
} from '@modelcontextprotocol/client';
import type { VaultAuth } from '../auth/vault-auth';
import type { McpServerConfig } from '../config';
import { ApiError, notFound } from '../errors';
import { logEvent } from '../observability/log';
import type { ServerState } from './catalog/catalog';
import { CompletionCache } from './catalog/completions';
import { describeUpstreamError, upstreamError, upstreamFailure } from './connection/errors';
import { validatePromptArguments } from './catalog/prompt-arguments';
import { resolveServer } from './catalog/resolve-server';
import type { ResourceRead } from './resource-read';
import { ServerLink, type ServerLinkOptions } from './server-link';

export type { ResourceRead } from './resource-read';

/** `resource_link` URIs remembered per conversation (oldest forgotten first). */
const MAX_LINKED_URIS = 1_000;

/** What every server's link gets (ServerLinkOptions), for all of a conversation's servers at once. */
export interface McpSessionsOptions extends Omit<ServerLinkOptions, 'config' | 'auth'> {
  servers: McpServerConfig[];
  /** The token source of each server with `auth` (src/auth/vault-auth.ts). */
  authFor?: ((server: McpServerConfig) => VaultAuth | undefined) | undefined;
}

/**
 * The MCP servers of one conversation, one `ServerLink` each (connection,
 * notification channel, catalogs, reads): connected on first use, released
 * when the conversation goes idle. One server failing never fails the others.
 */
export class McpSessions {
  private readonly links = new Map<string, ServerLink>();
  private readonly completions = new CompletionCache();
  /** URIs from `resource_link` tool results, by server (they need not be in any listing). */
  private readonly linkedUris = new Map<string, string>();

  constructor(options: McpSessionsOptions) {
    for (const config of options.servers) this.links.set(config.id, new ServerLink({ ...options, config, auth: options.authFor?.(config) }));
  }

  get servers(): McpServerConfig[] {
    return [...this.links.values()].map((link) => link.config);
  }

  get serverIds(): string[] {
    return [...this.links.keys()];
  }

  /** Whether any server connection (and so, for 2025 servers, a server-side session) is open. */
  get live(): boolean {
    return [...this.links.values()].some((link) => link.live);
  }

  /** Catalog refreshes run after notifications (one per debounced burst); for tests and benchmarks. */
  get refreshCount(): number {
    return [...this.links.values()].reduce((sum, link) => sum + link.catalogs.count, 0);
  }

  /**
   * Every server's state, listing again what the freshness contract says is
   * stale (`reuseSince`: the start of the turn). `connect: true` (the API's
   * catalog) connects to every server not connected yet; `false` (a turn)
   * connects only to those whose header and catalogs no copy serves
   * (ServerLink.available). Failures are reported per server.
   */
  async catalog(reuseSince = Date.now(), { connect = true }: { connect?: boolean } = {}): Promise<ServerState[]> {
    await Promise.allSettled(
      [...this.links.values()].map(async (link) => {
        if (!connect) return link.available(reuseSince);
        await link.ensure();
        await link
          .refreshStale(reuseSince)
          .catch((error) => logEvent('catalog.refresh', { server: link.id, kind: 'stale', ...upstreamFailure(error) }, 'warn'));
      }),
    );
    return [...this.links.values()].map((link) => link.state);
  }

  /** Connects (if needed) and returns the server's state; throws a 502/504 naming the server. */
  ensureServer(id: string): Promise<ServerState> {
    return this.link(id).ensure();
  }

  /** The server's state as a turn may use it: connected only if no copy serves it (ServerLink.available). */
  availableServer(id: string, reuseSince: number): Promise<ServerState> {
    return this.link(id).available(reuseSince);
  }

  /**
   * Reads through the cache; `reuseSince`: the start of the turn (or request)
   * this read belongs to. `connect: false` (a turn's reads): served without
   * connecting when the contract allows it; a miss connects.
   */
  readResource(id: string, uri: string, { reuseSince, connect = true }: { reuseSince: number; connect?: boolean }): Promise<ResourceRead> {
    return this.link(id).read(uri, reuseSince, { connect });
  }

  /** Calls one MCP tool of one server and returns its result as the server sent it. */
  async callTool(id: string, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const link = this.link(id);
    const state = await link.ensure();
    if (!state.capabilities?.tools) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer tools`);
    // Our catalog's definition: the SDK validates the output and mirrors declared headers with it.
    const toolDefinition = state.tools.find((tool) => tool.name === name);
    try {
      return (await link.connection.call(
        (client, options) => client.callTool({ name, arguments: args }, { ...options, ...(toolDefinition ? { toolDefinition } : {}) }),
        { idempotent: false, signal, method: 'tools/call' },
      )) as CallToolResult;
    } catch (error) {
      if (error instanceof InsufficientScopeError) throw await link.stepUp(error);
      throw (await link.authFailure(error)) ?? upstreamError(id, error);
    }
  }

  /** The user connected or disconnected `id` (src/auth): its connection and cached copies under the old authorization go. */
  async reauthorized(id: string, grant?: string): Promise<void> {
    await this.links.get(id)?.reauthorized(grant);
  }

  /** `prompts/get`, after checking the arguments against the prompt's declaration (400 naming the argument). */
  async getPrompt(id: string, name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<GetPromptResult> {
    const link = this.link(id);
    const state = await link.ensure();
    if (!state.capabilities?.prompts) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer prompts`);
    const prompt = state.prompts.find((p) => p.name === name);
    if (!prompt) {
      throw new ApiError(
        404,
        'prompt_not_found',
        `MCP server "${id}" has no prompt "${name}" (it has: ${state.prompts.map((p) => p.name).join(', ') || 'none'})`,
      );
    }
    const valid = validatePromptArguments(prompt, args, id);
    try {
      return await link.connection.call((client, options) => client.getPrompt({ name, arguments: valid }, options), { signal, method: 'prompts/get' });
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
        throw new ApiError(400, 'invalid_argument', `Prompt "${name}" on server "${id}": ${describeUpstreamError(error)}`);
      }
      throw (await link.authFailure(error)) ?? upstreamError(id, error);
    }
  }

  /**
   * `completion/complete` for a prompt or template argument. A server without
   * the capability gives an empty list, not an error; a prompt or template
   * its catalog does not list is a 404.
   */
  async complete(id: string, request: CompleteRequest['params']): Promise<CompleteResult['completion']> {
    const link = this.link(id);
    const state = await link.ensure();
    if (!state.capabilities?.completions) return { values: [], hasMore: false };
    const { ref } = request;
    if (ref.type === 'ref/prompt') {
      if (state.capabilities.prompts && !state.prompts.some((p) => p.name === ref.name)) {
        throw new ApiError(404, 'prompt_not_found', `MCP server "${id}" has no prompt "${ref.name}"`);
      }
    } else if (state.capabilities.resources && !state.resourceTemplates.some((t) => t.uriTemplate === ref.uri)) {
      throw new ApiError(404, 'template_not_found', `MCP server "${id}" has no resource template "${ref.uri}"`);
    }
    return this.completions.get(id, request, async () => {
      try {
        return (await link.connection.call((client, options) => client.complete(request, options), { method: 'completion/complete' })).completion;
      } catch (error) {
        if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
          throw new ApiError(400, 'invalid_argument', `MCP server "${id}" refused the completion: ${describeUpstreamError(error)}`);
        }
        throw upstreamError(id, error);
      }
    });
  }

  /**
   * A `resource_link` a tool returned: its URI resolves to that server from
   * now on (the last MAX_LINKED_URIS of them) — unless another server lists
   * or templates it (resolve-server.ts).
   */
  registerLink(id: string, uri: string): void {
    this.linkedUris.delete(uri);
    this.linkedUris.set(uri, id);
    if (this.linkedUris.size > MAX_LINKED_URIS) this.linkedUris.delete(this.linkedUris.keys().next().value!);
  }

  /** The server a URI belongs to (see resolve-server.ts), from the catalogs as they are (connecting none that a copy serves). */
  async resolveServer(uri: string): Promise<string> {
    // A turn made the catalogs current at its start; a server not known at all yet is asked for them (lazily too).
    const now = Date.now();
    await Promise.allSettled([...this.links.values()].map((link) => (link.state.capabilities ? undefined : link.available(now))));
    return resolveServer(
      uri,
      [...this.links.values()].map((link) => link.state),
      this.linkedUris.get(uri),
    );
  }

  /**
   * Releases every server connection (listen streams closed, 2025 sessions
   * ended) but keeps what is known: the conversation went idle. The next use
   * connects anew.
   */
  async release(): Promise<void> {
    await Promise.allSettled([...this.links.values()].map((link) => link.release()));
    this.completions.clear();
  }

  /** Resolves when no catalog refresh is pending or running (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.links.values()].map((link) => link.catalogs.idle()));
  }

  private link(id: string): ServerLink {
    const link = this.links.get(id);
    if (!link) throw notFound(`MCP server "${id}"`);
    return link;
  }
}
