import {
  Client,
  type ElicitRequestFormParams,
  RELATED_TASK_META_KEY,
  type CacheKey,
  type NotificationMethod as SdkNotificationMethod,
  type ResponseCacheStore,
  type VersionNegotiationMode,
} from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import pkg from '../../../package.json' with { type: 'json' };
import { asNewRequest } from '../../observability/current-request';
import type { throttledLog } from '../../observability/log';
import {
  type ConnectionEvents,
  type ClientExtensions,
  type McpConnectionOptions,
  NOTIFICATION_METHODS,
} from './connection-contract';
import type { PausableDeadline } from './deadline';

/*
 * A new SDK client for a connection: what it declares (form elicitation when someone can be asked, the extensions the
 * registry declares), and its handlers — a server's question (the connection's deadlines paused while a person
 * answers), change notifications, a GET stream that gave up, a close. The connection (connection.ts) owns the client;
 * this says how one is made.
 */

/** What a new client needs of the connection that owns it. */
export interface ClientOwner {
  server: string;
  events: ConnectionEvents;
  extensions: ClientExtensions;
  settings: Pick<McpConnectionOptions['settings'], 'MCP_MAX_LIST_PAGES'>;
  /** The requests' deadlines running now (paused while a person answers a server's question). */
  deadlines: ReadonlySet<PausableDeadline>;
  notificationLog: ReturnType<typeof throttledLog>;
  /** The connection's client now: a handler of an older one does nothing. */
  current(): Client | undefined;
  reset(client: Client): Promise<void>;
  /** The client closed. */
  closed(client: Client): void;
}

/**
 * The SDK's own response cache would sit unseen in front of ours (it caches
 * by the server's self-reported identity, in memory, with its own TTL rules):
 * a store that keeps nothing switches it off. Our cache (src/cache) decides
 * freshness; tool definitions for `callTool` come from our catalog.
 */
const NO_RESPONSE_CACHE: ResponseCacheStore = {
  get: () => undefined,
  set: () => 0,
  delete: (_key: CacheKey) => {},
  evict: () => {},
  clear: () => {},
};

export function newClient(mode: VersionNegotiationMode, owner: ClientOwner): Client {
  const client = new Client(
    { name: pkg.name, version: pkg.version },
    {
      // Form elicitation only when there is someone to ask (a conversation's turn); never sampling or roots.
      // The extensions we consume, as the registry declares them to this server (mcp/extensions/).
      capabilities: {
        ...(owner.events.onElicitation ? { elicitation: { form: {} } } : {}),
        extensions: owner.extensions.capabilities,
      },
      // ajv compiles validators with `new Function`, which workerd forbids.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      versionNegotiation: { mode },
      responseCacheStore: NO_RESPONSE_CACHE,
      // Past this many pages the SDK's walk throws; list-all.ts then keeps what fits and says so.
      listMaxPages: owner.settings.MCP_MAX_LIST_PAGES,
      // 2026 `input_required` results are fulfilled through the same handler as 2025 requests (below), then retried.
      inputRequired: { autoFulfill: true, maxRounds: 5 },
    },
  );
  const elicit = owner.events.onElicitation;
  if (elicit) {
    client.setRequestHandler('elicitation/create', async (request, ctx) => {
      // URL mode (open a page) is not declared; a server that asks anyway is declined.
      if (request.params.mode === 'url') return { action: 'decline' };
      // A 2025 task's question (delivered on its tasks/result stream): nothing of a turn waits on it, so no deadline
      // pauses; the answer carries the task's id, as every message about a task must.
      const relatedTask = relatedTaskOf(request.params);
      if (relatedTask !== undefined) {
        const answer = await elicit(
          request.params as ElicitRequestFormParams,
          (ctx as { mcpReq?: { signal?: AbortSignal } }).mcpReq?.signal,
          relatedTask,
        );
        return { ...answer, _meta: { ...answer._meta, [RELATED_TASK_META_KEY]: { taskId: relatedTask } } };
      }
      // Exactly the deadlines paused here resume: a request that starts meanwhile counts its own time.
      const paused = [...owner.deadlines];
      for (const deadline of paused) deadline.pause();
      try {
        return await elicit(
          request.params as ElicitRequestFormParams,
          (ctx as { mcpReq?: { signal?: AbortSignal } }).mcpReq?.signal,
        );
      } finally {
        for (const deadline of paused) deadline.resume();
      }
    });
  }
  for (const method of NOTIFICATION_METHODS) {
    client.setNotificationHandler(method as SdkNotificationMethod, (notification: { params?: object }) => {
      if (owner.current() !== client) return;
      const params = (notification.params ?? {}) as { uri?: string };
      // Work of its own (and so is the refresh it leads to): a request id of its own, in the tenant and conversation of the stream's opener.
      asNewRequest(() => {
        owner.notificationLog(method, 'mcp.notification', { server: owner.server, method, uri: params.uri });
        owner.events.onNotification(method, params);
      });
    });
  }
  client.onerror = (error) => {
    // Responses for unknown or duplicate ids, empty SSE events and a GET
    // stream's reconnect attempts land here: harmless to the requests.
    if (/Maximum reconnection attempts/i.test(error.message) && owner.current() === client) {
      void owner.reset(client);
      owner.events.onStreamLost();
    }
  };
  client.onclose = () => owner.closed(client);
  return client;
}

/** The task a server's request belongs to (`_meta["io.modelcontextprotocol/related-task"]`, MCP 2025-11-25), if any. */
function relatedTaskOf(params: { _meta?: Record<string, unknown> | undefined }): string | undefined {
  const related = params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}
