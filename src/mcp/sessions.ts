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
import type { StoredContents } from '../cache/types';
import { type DocumentReading, documentReading } from '../documents/document-converter';
import { ServerLink, type ServerLinkOptions } from './server-link';
import type { McpConnection, Progress } from './connection/connection';
import {
  callTool as callToolOrTask,
  cancelTask,
  getTask,
  isStartedTask,
  pollDelay,
  type StartedTask,
  type TaskEra,
  taskEnded,
  taskResult,
  type TaskSnapshot,
  updateTask,
} from './extensions';

export type { ResourceRead } from './resource-read';
export { isStartedTask, type StartedTask, type TaskEra, type TaskSnapshot } from './extensions';
export type { Progress } from './connection/connection';

/**
 * A task request the server answered "not found" (-32602: it forgot the
 * task, or its ttl ran out): never retried, never waited on.
 */
export class TaskGoneError extends Error {
  constructor(
    readonly server: string,
    readonly taskId: string,
    cause: string,
  ) {
    super(`MCP server "${server}" no longer knows task ${taskId}: ${cause}`);
    this.name = 'TaskGoneError';
  }
}

function taskRequestError(server: string, taskId: string, error: unknown): Error {
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams)
    return new TaskGoneError(server, taskId, error.message);
  return upstreamError(server, error);
}

/** `resource_link` URIs remembered per conversation (oldest forgotten first). */
const MAX_RESOURCE_LINKS = 1_000;

/** What every server's link gets (ServerLinkOptions), for all of a conversation's servers at once. */
export interface McpSessionsOptions extends Omit<ServerLinkOptions, 'config' | 'auth'> {
  servers: McpServerConfig[];
  /** The token source of each server with `auth` (src/auth/vault-auth.ts). */
  authFor?: ((server: McpServerConfig) => VaultAuth | undefined) | undefined;
  /** How requests reach a server whose URL is not the way (a built-in server's entrypoint: uploads/loopback.ts). */
  fetchFor?: ((server: McpServerConfig) => typeof fetch | undefined) | undefined;
}

/**
 * The MCP sessions of one conversation, one per server, each kept by the
 * server's `ServerLink` (connection, notification channel, catalogs, reads):
 * connected on first use, released when the conversation goes idle. One
 * server failing never fails the others.
 */
export class McpSessions {
  private readonly links = new Map<string, ServerLink>();
  private readonly completions = new CompletionCache();
  /** URIs from `resource_link` tool results, by server (they need not be in any listing). */
  private readonly resourceLinkServers = new Map<string, string>();

  /** What a 2025 task is asked to live for (TASK_MAX_MS: we follow it no longer). */
  private readonly taskTtlMs: number;

  /**
   * How documents become text (DOCUMENT_CONVERTER, DOCUMENT_MAX_*), once for the conversation: its servers' reads
   * (ServerLink) and documents embedded in a tool result or a prompt message (prompt/embedded-documents.ts) use the
   * same converter and limits. Undefined when none are converted (off): a document is then a binary like any other.
   */
  readonly documents: DocumentReading | undefined;

  constructor(private readonly options: McpSessionsOptions) {
    this.taskTtlMs = options.settings.TASK_MAX_MS;
    this.documents = documentReading(options.env, options.settings);
    for (const config of options.servers) this.addServer(config);
  }

  /**
   * A server joins the conversation (the built-in `uploads`, once it has a file). A server whose copies stay in the
   * conversation (`cacheScope: "conversation"`) takes no list from, and gives none to, the tenant's shared catalogs.
   */
  addServer(config: McpServerConfig): void {
    if (this.links.has(config.id)) return;
    const options = this.options;
    const sharedCatalogs = config.cacheScope === 'conversation' ? undefined : options.sharedCatalogs;
    const link = new ServerLink({
      ...options,
      config,
      sharedCatalogs,
      auth: options.authFor?.(config),
      fetch: options.fetchFor?.(config),
      documents: this.documents,
    });
    this.links.set(config.id, link);
  }

  /**
   * We changed what `id` lists ourselves (an upload or a deletion, uploads/): its copies of `uris` go, and its
   * resource list is listed again on the next use — no notification needed, the change was ours.
   */
  changedByUs(id: string, uris: string[]): void {
    const link = this.links.get(id);
    if (!link) return;
    for (const uri of uris) this.options.cache.invalidate({ server: id, uri });
    link.catalogs.expire(['resources']);
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
          .catch((error) =>
            logEvent('catalog.refresh', { server: link.id, kind: 'stale', ...upstreamFailure(error) }, 'warn'),
          );
      }),
    );
    // Each tool's definition against the approved one (definition-check.ts): what changed warns, and a re-confirmed one counts from here.
    await Promise.all([...this.links.values()].map((link) => link.definitions.settle()));
    return [...this.links.values()].map((link) => link.state);
  }

  /** Connects (if needed) and returns the server's state; throws a 502/504 naming the server. */
  ensureServer(id: string): Promise<ServerState> {
    return this.link(id).ensure();
  }

  /** As `ensureServer`, with its definitions checked against the approved ones: for deciding a call's approval (a view's). */
  async serverForCall(id: string): Promise<ServerState> {
    const link = this.link(id);
    await link.ensure();
    await link.definitions.settle();
    return link.state;
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
  readResource(
    id: string,
    uri: string,
    { reuseSince, connect = true }: { reuseSince: number; connect?: boolean },
  ): Promise<ResourceRead> {
    return this.link(id).read(uri, reuseSince, { connect });
  }

  /** A resource as the server sends it now, unconverted and uncached (ServerLink.readOriginal: a page image's bytes). */
  readOriginal(id: string, uri: string): Promise<StoredContents[]> {
    return this.link(id).readOriginal(uri);
  }

  /**
   * Calls one MCP tool of one server: its result as the server sent it, or
   * the task the call became (MCP Tasks: tasks/tool-tasks.ts). `onProgress`
   * asks the server for progress, which also keeps a long call alive.
   */
  async callTool(
    id: string,
    name: string,
    args: Record<string, unknown>,
    {
      signal,
      onProgress,
    }: { signal?: AbortSignal | undefined; onProgress?: ((progress: Progress) => void) | undefined } = {},
  ): Promise<CallToolResult | StartedTask> {
    const link = this.link(id);
    const state = await link.ensure();
    if (!state.capabilities?.tools) throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer tools`);
    // Our catalog's definition: the SDK validates the output and mirrors declared headers with it.
    const definition = state.tools.find((tool) => tool.name === name);
    try {
      return await callToolOrTask(link.connection, state.capabilities, {
        name,
        arguments: args,
        definition,
        signal,
        onProgress,
        ttlMs: this.taskTtlMs,
      });
    } catch (error) {
      if (error instanceof InsufficientScopeError) throw await link.stepUp(error);
      throw (await link.authFailure(error)) ?? upstreamError(id, error);
    }
  }

  /**
   * A tool call whose caller waits for its result (an MCP Apps view's call):
   * a task it becomes is polled here, up to `maxMs` — a turn's calls are
   * followed from the conversation's alarm instead (src/turn/tasks/).
   */
  async callToolToEnd(
    id: string,
    name: string,
    args: Record<string, unknown>,
    { signal, maxMs = 60_000 }: { signal?: AbortSignal; maxMs?: number } = {},
  ): Promise<CallToolResult> {
    const outcome = await this.callTool(id, name, args, { signal });
    if (!isStartedTask(outcome)) return outcome;
    const until = Date.now() + maxMs;
    for (let snapshot = outcome.snapshot; ; ) {
      if (snapshot.status === 'completed') return snapshot.result as CallToolResult;
      // A caller that waits cannot answer the task's questions: input_required ends it too.
      if (taskEnded(snapshot.status) || snapshot.status === 'input_required' || Date.now() > until) {
        if (snapshot.status === 'working' || snapshot.status === 'input_required')
          await this.cancelTask(id, outcome.taskId).catch(() => undefined);
        const why = snapshot.error?.message ?? snapshot.statusMessage ?? snapshot.status;
        throw upstreamError(
          id,
          new Error(
            snapshot.status === 'working'
              ? `the task took longer than ${maxMs} ms`
              : `the task ended ${snapshot.status}: ${why}`,
          ),
        );
      }
      await new Promise((resolve) =>
        setTimeout(resolve, pollDelay(snapshot.pollIntervalMs, { min: 100, max: 5_000, fallback: 1_000 })),
      );
      signal?.throwIfAborted();
      snapshot = await this.getTask(id, outcome, signal);
    }
  }

  /** Where a task of `id` is now (`tasks/get`; a finished 2025 task's result from `tasks/result`). */
  getTask(id: string, task: { taskId: string; era: TaskEra }, signal?: AbortSignal): Promise<TaskSnapshot> {
    return this.taskRequest(id, task.taskId, (connection) => getTask(connection, task, signal));
  }

  /**
   * A 2025 task that waits for input: `tasks/result`, held by the server until the task ends (up to `timeoutMs`), on
   * whose stream its questions arrive (to the `elicit` of the conversation, with the task's id).
   */
  awaitTaskResult(id: string, taskId: string, timeoutMs: number): Promise<CallToolResult> {
    return this.taskRequest(id, taskId, (connection) => taskResult(connection, taskId, { timeoutMs }));
  }

  /** The user's answers to a task's questions (`tasks/update`). */
  updateTask(id: string, taskId: string, inputResponses: Record<string, unknown>): Promise<void> {
    return this.taskRequest(id, taskId, (connection) => updateTask(connection, taskId, inputResponses));
  }

  /** Asks the server to cancel a task (`tasks/cancel`; cooperative). */
  cancelTask(id: string, taskId: string): Promise<void> {
    return this.taskRequest(id, taskId, (connection) => cancelTask(connection, taskId));
  }

  /** One request about a task of `id`, on its connection: an auth failure as the link words it, "not found" as TaskGoneError. */
  private async taskRequest<T>(
    id: string,
    taskId: string,
    work: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    const link = this.link(id);
    await link.ensure();
    try {
      return await work(link.connection);
    } catch (error) {
      throw (await link.authFailure(error)) ?? taskRequestError(id, taskId, error);
    }
  }

  /** The user connected or disconnected `id` (src/auth): its connection and cached copies under the old authorization go. */
  async reauthorized(id: string, grant?: string): Promise<void> {
    await this.links.get(id)?.reauthorized(grant);
  }

  /** `prompts/get`, after checking the arguments against the prompt's declaration (400 naming the argument). */
  async getPrompt(
    id: string,
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<GetPromptResult> {
    const link = this.link(id);
    const state = await link.ensure();
    if (!state.capabilities?.prompts)
      throw new ApiError(400, 'unsupported', `MCP server "${id}" does not offer prompts`);
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
      return await link.connection.call((client, options) => client.getPrompt({ name, arguments: valid }, options), {
        signal,
        method: 'prompts/get',
      });
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
        throw new ApiError(
          400,
          'invalid_argument',
          `Prompt "${name}" on server "${id}": ${describeUpstreamError(error)}`,
        );
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
        return (
          await link.connection.call((client, options) => client.complete(request, options), {
            method: 'completion/complete',
          })
        ).completion;
      } catch (error) {
        if (error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams) {
          throw new ApiError(
            400,
            'invalid_argument',
            `MCP server "${id}" refused the completion: ${describeUpstreamError(error)}`,
          );
        }
        throw upstreamError(id, error);
      }
    });
  }

  /**
   * A `resource_link` a tool returned: its URI resolves to that server from
   * now on (the last MAX_RESOURCE_LINKS of them) — unless another server lists
   * or templates it (resolve-server.ts).
   */
  registerResourceLink(id: string, uri: string): void {
    this.resourceLinkServers.delete(uri);
    this.resourceLinkServers.set(uri, id);
    if (this.resourceLinkServers.size > MAX_RESOURCE_LINKS)
      this.resourceLinkServers.delete(this.resourceLinkServers.keys().next().value!);
  }

  /** The server a URI belongs to (see resolve-server.ts), from the catalogs as they are (connecting none that a copy serves). */
  async resolveServer(uri: string): Promise<string> {
    // A turn made the catalogs current at its start; a server not known at all yet is asked for them (lazily too).
    const now = Date.now();
    await Promise.allSettled(
      [...this.links.values()].map((link) => (link.state.capabilities ? undefined : link.available(now))),
    );
    return resolveServer(
      uri,
      [...this.links.values()].map((link) => link.state),
      this.resourceLinkServers.get(uri),
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
