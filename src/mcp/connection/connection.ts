import {
  type Client,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type AuthProvider,
  type RequestOptions,
  type Transport,
} from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../../config';
import { isWrongEra, negotiationMode, refusesStreamableHttp, verdictOf } from './era';
import { newClient } from './new-client';
import type {
  CallOptions,
  ClientExtensions,
  ConnectionEvents,
  McpConnectionOptions,
  Progress,
  VerdictStore,
} from './connection-contract';
import { anySignal, PausableDeadline, withRequestSignal } from './deadline';
import { httpStatusOf, isConnectionLost, isSessionExpired, upstreamFailure } from './errors';
import { GetStreamState } from './get-stream';
import { logEvent, throttledLog } from '../../observability/log';
import { observed } from '../../observability/tracing';
import { acceptLeniently } from './lenient-results';
import { assertDepthAtMost } from './result-depth';
import { endSession, endSessionById } from './session-end';
import { createTransport, secretValuesOf, type TransportEnv, type TransportKind } from './transport';
import { maskEchoedSecrets } from './secret-echo';

/** How often a connect is opened again when its pooled connection turned out closed ("Network connection lost"). */
const CONNECT_LOST_RETRIES = 2;

export type {
  CallOptions,
  ClientExtensions,
  ConnectionEvents,
  ExtensionCapabilities,
  McpConnectionOptions,
  NotificationMethod,
  Progress,
  VerdictStore,
} from './connection-contract';

/**
 * One connection to one MCP server, over the official SDK v2 client:
 * 2026-07-28 when the server speaks it (`server/discover`, or a stored
 * discover result: no round trip), 2025-11-25 `initialize` otherwise, and the
 * old HTTP+SSE transport only for a server that refuses Streamable HTTP
 * outright. Requests are retried where that is safe (see `call`).
 */
export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Client> | undefined;
  /** Transport that worked last time, so a reconnect does not probe again. */
  private kind: TransportKind | undefined;
  /** This connection adopted a stored verdict instead of probing: if it turns out wrong, probe. */
  private fromPrior = false;
  /** The 2025 standalone GET stream of the current connection. */
  private stream = new GetStreamState(() => {});
  /** Time limits of the requests in flight: paused while the user answers a server's question. */
  private readonly deadlines = new Set<PausableDeadline>();
  /** A notification storm is a few log lines, not thousands. */
  private readonly notificationLog = throttledLog();
  /** Recorded sessions of an earlier instance being ended now. */
  private readonly ending = new Set<string>();

  readonly config: McpServerConfig;
  private readonly env: TransportEnv;
  private readonly settings: McpConnectionOptions['settings'];
  private readonly events: ConnectionEvents;
  private readonly verdicts: VerdictStore;
  private readonly authProvider: AuthProvider | undefined;
  private readonly extensions: ClientExtensions;
  private readonly fetch: typeof fetch | undefined;

  constructor(options: McpConnectionOptions) {
    this.config = options.config;
    this.env = options.env;
    this.settings = options.settings;
    this.events = options.events;
    this.verdicts = options.verdicts;
    this.authProvider = options.auth;
    this.extensions = options.extensions;
    this.fetch = options.fetch;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /** The live client, if connected. */
  get current(): Client | undefined {
    return this.client;
  }

  /** `modern` (2026-07-28) or `legacy` (2025-11-25 and older); undefined when not connected. */
  get era(): 'modern' | 'legacy' | undefined {
    return this.client?.getProtocolEra();
  }

  /** The current connection's 2025 GET stream: open since when, or refused. */
  get getStream(): GetStreamState {
    return this.stream;
  }

  /** The 2025 session id, if the server gave one (stateless servers do not). */
  get sessionId(): string | undefined {
    return this.transport instanceof StreamableHTTPClientTransport ? this.transport.sessionId : undefined;
  }

  get requestOptions(): RequestOptions {
    // A backstop only: `call` enforces MCP_REQUEST_TIMEOUT_MS itself, paused while the user answers a question.
    return { timeout: this.settings.MCP_REQUEST_TIMEOUT_MS + this.settings.ELICITATION_TIMEOUT_MS };
  }

  /** The live client, connecting first if needed (concurrent callers share one connect). */
  async ensure(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /**
   * Runs one request, retrying once for each cause where that is safe:
   * - a stored era verdict that is wrong (the server was replaced by an
   *   older or newer one): forget it, probe, retry;
   * - the server no longer knows our 2025 session (it restarted, or expired
   *   it): open a fresh session, retry;
   * - the connection dropped before an answer (a pooled keep-alive
   *   connection the server had just closed): retry on the same session —
   *   except tool calls (`idempotent: false`), which may have run;
   * - a concurrent request replaced the connection under this one: retry on
   *   the new one (idempotent requests only).
   * `method` names the request in its span and log line (`mcp.request`).
   */
  async call<T>(
    request: (client: Client, options: RequestOptions) => Promise<T>,
    { idempotent = true, signal, method, onProgress, timeoutMs }: CallOptions,
  ): Promise<T> {
    signal?.throwIfAborted();
    const client = await this.ensure();
    // Our own time limit (it pauses while the user answers the server); the SDK's is only a backstop.
    const timeout = timeoutMs ?? this.settings.MCP_REQUEST_TIMEOUT_MS;
    const timedOut = () => new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout });
    // A request that asks for progress: each report restarts the time limit, up to TOOL_CALL_MAX_MS in all.
    const maxTotal = this.settings.TOOL_CALL_MAX_MS;
    const tooLong = () =>
      new SdkError(SdkErrorCode.RequestTimeout, 'Maximum total timeout exceeded', { maxTotalTimeout: maxTotal });
    const deadline = new PausableDeadline(
      timeout,
      timedOut,
      onProgress ? { ms: maxTotal, reason: tooLong } : undefined,
    );
    this.deadlines.add(deadline);
    // The SDK cancels an aborted request on the server: notifications/cancelled (2025) or the aborted HTTP request (2026);
    // in 2025 its HTTP request is aborted too (callWith, deadline.ts bindRequestSignals).
    const options: RequestOptions = {
      ...this.requestOptions,
      ...(timeoutMs !== undefined ? { timeout: timeoutMs + this.settings.ELICITATION_TIMEOUT_MS } : {}),
      signal: anySignal(signal, deadline.signal),
      // `onprogress` makes the SDK send `_meta.progressToken` (the request id) and route the server's reports here.
      // (No notifications/progress handler of our own: it would replace the SDK's, which does this routing.)
      ...(onProgress
        ? {
            onprogress: (progress: Progress) => {
              deadline.restart();
              onProgress(progress);
            },
            resetTimeoutOnProgress: true,
            maxTotalTimeout: maxTotal + this.settings.ELICITATION_TIMEOUT_MS,
          }
        : {}),
    };
    try {
      // One span and one log line per request with its retries: which server and method, which era, whether it may be retried.
      const fields = { server: this.config.id, method, era: client.getProtocolEra(), idempotent };
      return await observed(
        'mcp.request',
        'mcp',
        fields,
        () => this.callWith(client, request, options, idempotent),
        upstreamFailure,
        // A task's polls, every second for hours, are routine: a debug line when they succeed (task.* says what matters;
        // measured in bench:tasks, the info line was a third of a poll's CPU).
        method === 'tasks/get' ? 'debug' : 'info',
      );
    } finally {
      deadline.clear();
      this.deadlines.delete(deadline);
    }
  }

  private async callWith<T>(
    client: Client,
    request: (client: Client, options: RequestOptions) => Promise<T>,
    options: RequestOptions,
    idempotent: boolean,
  ): Promise<T> {
    let result: T | undefined;
    for (let retriedLost = false, retriedExpired = false, retriedVerdict = false, retriedReplaced = false; ; ) {
      try {
        // Its HTTP requests end with its signal (deadline.ts bindRequestSignals): an answer out of time is not left open.
        const signal = options.signal;
        result = await (signal ? withRequestSignal(signal, () => request(client, options)) : request(client, options));
        break;
      } catch (error) {
        if (options.signal?.aborted) throw error; // stopped, or out of time: never retried
        if (idempotent && !retriedReplaced && client !== this.client) {
          // The connection was replaced (or closed) while this request was on it: once more on the current one.
          retriedReplaced = true;
          client = await this.ensure();
        } else if (!retriedVerdict && this.fromPrior && client === this.client && isWrongEra(error, client)) {
          retriedVerdict = true;
          this.verdicts.save(undefined);
          await this.reset(client);
          // The next request probes; a tool call is not sent twice (it was refused, but nobody can be sure).
          if (!idempotent) throw error;
          client = await this.ensure();
        } else if (idempotent && !retriedLost && isConnectionLost(error)) {
          retriedLost = true;
        } else if (!retriedExpired && client.getProtocolEra() === 'legacy' && isSessionExpired(error)) {
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
   * Ends the current connection — for a 2025 session, `DELETE` to the server
   * (best effort, bounded wait) so it can free it — and makes the next call
   * connect anew. With `only`, does nothing if that client was already
   * replaced (a concurrent caller reconnected first).
   */
  async reset(only?: Client): Promise<void> {
    const client = this.client;
    if (only && client !== only) return;
    const transport = this.transport;
    this.client = undefined;
    this.transport = undefined;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      const session = transport.sessionId;
      await endSession(transport);
      this.verdicts.sessions?.ended(session);
    }
    if (client) await client.close().catch(() => {});
    else await transport?.close().catch(() => {});
  }

  /**
   * A 2025 session an earlier instance of this conversation opened and
   * never ended (it was evicted first): ended now, before this one opens
   * its own, so the server holds one session per conversation, not one per
   * eviction. In the background: the connect does not wait for it.
   */
  private endRecordedSession(): void {
    const records = this.verdicts.sessions;
    const recorded = records?.recorded();
    if (!records || !recorded || this.ending.has(recorded.session)) return;
    this.ending.add(recorded.session);
    void endSessionById(this.config, this.env, this.settings.MCP_MAX_RESPONSE_BYTES, {
      ...recorded,
      authProvider: this.authProvider,
    })
      .catch(() => {})
      .finally(() => {
        records.ended(recorded.session);
        this.ending.delete(recorded.session);
      });
  }

  private async open(): Promise<Client> {
    if (!this.client && this.transport === undefined) this.endRecordedSession();
    const kinds: TransportKind[] = this.kind
      ? [this.kind]
      : this.config.transport === 'auto'
        ? ['streamable-http', 'sse']
        : [this.config.transport];
    let lastError: unknown;
    // A pooled keep-alive connection the server had just closed as idle ("Network connection lost": Node's servers
    // close them after 5 s) fails the first request on it: connecting again is safe, nothing was answered. Twice:
    // under load the next pooled connection may be as stale (9 connects in 3,000 turns failed after one retry).
    let lostRetries = 0;
    for (let k = 0; k < kinds.length; k++) {
      const kind = kinds[k]!;
      // A stored verdict applies to Streamable HTTP; the old SSE transport is 2024-era only.
      const prior = kind === 'streamable-http' && this.config.protocol === 'auto' ? this.verdicts.prior() : undefined;
      const client = newClient(kind === 'sse' ? 'legacy' : negotiationMode(this.config.protocol), {
        server: this.config.id,
        events: this.events,
        extensions: this.extensions,
        settings: this.settings,
        deadlines: this.deadlines,
        notificationLog: this.notificationLog,
        current: () => this.client,
        reset: (old) => this.reset(old),
        closed: (old) => {
          if (this.client === old) this.client = undefined;
        },
      });
      const stream = new GetStreamState(() => {
        if (this.client === client) this.events.onStreamLost();
      });
      // The extensions' wrappers (a 2026 tool call answered with a task: tasks/task-results.ts) see what
      // lenient-results.ts mended.
      const transport = maskEchoedSecrets(
        this.extensions.wrapTransport(
          acceptLeniently(
            createTransport(this.config, this.env, kind, this.settings.MCP_MAX_RESPONSE_BYTES, {
              getStream: kind === 'streamable-http' ? stream : undefined,
              authProvider: this.authProvider,
              fetch: this.fetch,
            }),
            (mended) => {
              if (this.client === client || this.client === undefined) this.events.onMended?.(mended);
            },
          ),
        ),
        // The server's own credentials, masked in all it sends back before anything reads it (secret-echo.ts).
        secretValuesOf(this.config, this.env),
      );
      const started = Date.now();
      try {
        await client.connect(transport, { ...this.requestOptions, ...(prior ? { prior } : {}) });
        logEvent('mcp.connect', {
          server: this.config.id,
          transport: kind,
          era: client.getProtocolEra(),
          durationMs: Date.now() - started,
          outcome: 'ok',
        });
        this.kind = kind;
        this.client = client;
        this.transport = transport;
        if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
          this.verdicts.sessions?.opened(transport.sessionId, transport.protocolVersion);
        }
        this.stream = stream;
        this.fromPrior = prior !== undefined;
        // Kept for the next connection (protocol "auto") and for the discover hint's expiry (any 2026 server).
        if (!prior && kind === 'streamable-http' && this.config.protocol !== '2025-11-25')
          this.verdicts.save(verdictOf(client, Date.now()));
        return client;
      } catch (error) {
        lastError = error;
        // Refused by a server that then gets the old SSE transport ("auto"): expected, not a warning.
        const fallback = kind !== kinds.at(-1) && refusesStreamableHttp(error);
        const retry = lostRetries < CONNECT_LOST_RETRIES && isConnectionLost(error);
        // `sessionOpened`: the server had created a 2025 session (its `initialize` answered) when the connect failed.
        const sessionOpened = transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined;
        const failure = {
          ...upstreamFailure(error),
          ...(sessionOpened ? { sessionOpened } : {}),
          ...(fallback ? { outcome: 'fallback' } : retry ? { outcome: 'retried' } : {}),
        };
        logEvent(
          'mcp.connect',
          { server: this.config.id, transport: kind, durationMs: Date.now() - started, ...failure },
          fallback || retry ? 'info' : 'warn',
        );
        await client.close().catch(() => {});
        // A connect that failed after the server created its session: ended, so a retry leaves one session, not two.
        // The SDK closed the failed transport (its DELETE would be aborted): a fresh one carrying the id sends it.
        if (sessionOpened) {
          const failed = transport as StreamableHTTPClientTransport;
          await endSessionById(this.config, this.env, this.settings.MCP_MAX_RESPONSE_BYTES, {
            session: failed.sessionId!,
            protocol: failed.protocolVersion,
            authProvider: this.authProvider,
          });
        }
        if (retry) {
          lostRetries++;
          k--;
          continue;
        }
        // A stored verdict the server now refuses (a 2025 verdict, and the server speaks only 2026): probe instead.
        if (prior && httpStatusOf(error) !== undefined) {
          this.verdicts.save(undefined);
          return this.open();
        }
        if (!refusesStreamableHttp(error)) break;
      }
    }
    throw lastError;
  }
}
