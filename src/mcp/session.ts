import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import pkg from '../../package.json' with { type: 'json' };
import type { McpServerConfig, Settings } from '../config';
import { isConnectionLost, isSessionExpired } from './errors';
import { assertDepthAtMost } from './result-depth';
import { createTransport, type TransportEnv, type TransportKind } from './transport';

/** What a session reports to its owner. */
export interface SessionEvents {
  /** `notifications/resources/updated`, `…/list_changed`: from POST response streams and the GET stream alike. */
  onNotification(method: NotificationMethod, params: { uri?: string }): void;
  /** The notification stream is gone for good: notifications may have been missed. */
  onStreamLost(): void;
}

export type NotificationMethod =
  | 'notifications/resources/updated'
  | 'notifications/resources/list_changed'
  | 'notifications/tools/list_changed'
  | 'notifications/prompts/list_changed';

/**
 * One live MCP session with one server, over the official SDK client.
 *
 * We use the SDK client directly rather than `agents`' MCPClientManager: that
 * manager never subscribes to resources, resumes a stale session after an
 * eviction (no `initialize`, so no instructions, capabilities or
 * notification stream), does not refresh templates, and stores headers —
 * our bearer tokens — in plain text in DO storage.
 */
export class McpSession {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Client> | undefined;
  /** Transport that worked last time, so a reconnect does not probe again. */
  private kind: TransportKind | undefined;

  constructor(
    readonly config: McpServerConfig,
    private readonly env: TransportEnv,
    private readonly settings: Pick<Settings, 'MCP_REQUEST_TIMEOUT_MS' | 'MCP_MAX_RESPONSE_BYTES' | 'MCP_MAX_RESULT_DEPTH'>,
    private readonly events: SessionEvents,
  ) {}

  get connected(): boolean {
    return this.client !== undefined;
  }

  get requestOptions(): RequestOptions {
    return { timeout: this.settings.MCP_REQUEST_TIMEOUT_MS };
  }

  /** The live client, connecting first if needed (concurrent callers share one connect). */
  async ensure(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Runs one request. If the server no longer knows our session (it
   * restarted, or expired it), opens a fresh session and retries once. An
   * idempotent request (anything but a tool call: `idempotent: false`) whose
   * connection dropped is retried once on the same session.
   */
  async call<T>(request: (client: Client, options: RequestOptions) => Promise<T>, { idempotent = true } = {}): Promise<T> {
    let client = await this.ensure();
    let result: T | undefined;
    // At most one retry for each cause: a dropped connection (often a restarting server), then an expired session.
    for (let retriedLost = false, retriedExpired = false; ; ) {
      try {
        result = await request(client, this.requestOptions);
        break;
      } catch (error) {
        if (idempotent && !retriedLost && isConnectionLost(error)) {
          retriedLost = true;
        } else if (!retriedExpired && isSessionExpired(error)) {
          retriedExpired = true;
          await this.reset(client);
          client = await this.ensure();
        } else throw error;
      }
    }
    assertDepthAtMost(result, this.settings.MCP_MAX_RESULT_DEPTH);
    return result;
  }

  /**
   * Ends the current session — `DELETE` to the server (best effort, bounded
   * wait) so it can free it — and makes the next call initialise anew. With
   * `only`, does nothing if that client was already replaced (a concurrent
   * caller reconnected first).
   */
  async reset(only?: Client): Promise<void> {
    const client = this.client;
    // Another caller already replaced that client: the current session is the newer one; leave it be.
    if (only && client !== only) return;
    if (!client) {
      // A client that closed on its own may leave its transport behind: close that too.
      await this.transport?.close().catch(() => {});
      this.transport = undefined;
      return;
    }
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      await Promise.race([transport.terminateSession().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    }
    await client.close().catch(() => {});
  }

  private async open(): Promise<Client> {
    const kinds: TransportKind[] = this.kind ? [this.kind] : this.config.transport === 'auto' ? ['streamable-http', 'sse'] : [this.config.transport];
    let lastError: unknown;
    for (const kind of kinds) {
      const client = this.newClient();
      const transport = createTransport(this.config, this.env, kind, this.settings.MCP_MAX_RESPONSE_BYTES);
      try {
        await client.connect(transport, this.requestOptions);
        this.kind = kind;
        this.client = client;
        this.transport = transport;
        return client;
      } catch (error) {
        lastError = error;
        await client.close().catch(() => {});
        // Fall back to the old HTTP+SSE transport only when the server answered
        // but refused Streamable HTTP (the spec's 400/404/405); not when it is down.
        if (!(error instanceof StreamableHTTPError && [400, 404, 405].includes(error.code ?? 0))) break;
      }
    }
    throw lastError;
  }

  private newClient(): Client {
    const client = new Client(
      { name: pkg.name, version: pkg.version },
      // ajv compiles validators with `new Function`, which workerd forbids.
      { capabilities: {}, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
    );
    const forward = (method: NotificationMethod) => (notification: { params?: object }) => {
      if (this.client === client) this.events.onNotification(method, (notification.params ?? {}) as { uri?: string });
    };
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, forward('notifications/resources/updated'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, forward('notifications/resources/list_changed'));
    client.setNotificationHandler(ToolListChangedNotificationSchema, forward('notifications/tools/list_changed'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, forward('notifications/prompts/list_changed'));
    client.onerror = (error) => {
      // Responses for unknown or duplicate ids and empty SSE events land here:
      // harmless, the request they do not match is unaffected.
      if (/Maximum reconnection attempts/i.test(error.message) && this.client === client) {
        void this.reset(client);
        this.events.onStreamLost();
      }
    };
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    return client;
  }
}
