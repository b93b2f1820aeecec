import type {
  AuthProvider,
  ClientCapabilities,
  ElicitRequestFormParams,
  ElicitResult,
  PriorDiscovery,
  Transport,
} from '@modelcontextprotocol/client';
import type { McpServerConfig, Settings } from '../../config';
import type { EraVerdict } from './era';
import type { Mended } from './lenient-results';
import type { TransportEnv } from './transport';

/*
 * What a connection (connection.ts) is given and what it tells its owner: its options, its events, the calls it
 * makes, what it declares of the extensions — the contract, apart from how a connection keeps it.
 */

/** The change notifications a connection passes on. */
export const NOTIFICATION_METHODS = [
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
] as const;

export type NotificationMethod = (typeof NOTIFICATION_METHODS)[number];

/** What a connection reports to its owner. */
export interface ConnectionEvents {
  /** Change notifications: 2026 listen streams, 2025 GET streams and POST response streams alike. */
  onNotification(method: NotificationMethod, params: { uri?: string }): void;
  /** The 2025 GET stream (that era's notification channel) ended or broke: notifications may be missed. */
  onStreamLost(): void;
  /**
   * The server asks the user something (a form): 2025 `elicitation/create`,
   * or a 2026 `input_required` result the SDK hands to the same handler.
   * `relatedTask`: the question belongs to a 2025 task (it came on the task's
   * `tasks/result` stream), not to a request of a turn.
   * Without it, the capability is not declared and servers cannot ask.
   */
  onElicitation?:
    | ((
        params: ElicitRequestFormParams,
        signal: AbortSignal | undefined,
        relatedTask?: string | undefined,
      ) => Promise<ElicitResult>)
    | undefined;
  /** What was mended in a result before the SDK validated it (lenient-results.ts), for the server's `warnings`. */
  onMended?: ((mended: Mended) => void) | undefined;
}

/** Where the era verdict of this server is kept (DO storage), and its open 2025 session. */
export interface VerdictStore {
  prior(): PriorDiscovery | undefined;
  save(verdict: EraVerdict | undefined): void;
  /**
   * The 2025 session on record (opened by an earlier instance, never ended:
   * it was evicted first), and what to record as sessions open and end.
   * Absent: nothing is recorded (a probe, whose session lives a moment).
   */
  sessions?: {
    recorded(): { session: string; protocol: string | undefined } | undefined;
    opened(session: string, protocol: string | undefined): void;
    ended(session: string): void;
  };
}

/** A server's progress report on a request (`notifications/progress`). */
export interface Progress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface CallOptions {
  /** May be sent again after a lost connection (false for tool calls: they may have run). */
  idempotent?: boolean;
  signal?: AbortSignal | undefined;
  /** Names the request in its span and log line. */
  method: string;
  /** Asks the server for progress (`_meta.progressToken`): each report restarts the time limit, up to TOOL_CALL_MAX_MS. */
  onProgress?: ((progress: Progress) => void) | undefined;
  /** In place of MCP_REQUEST_TIMEOUT_MS, for a request the server may rightly hold (a 2025 task's `tasks/result`). */
  timeoutMs?: number | undefined;
}

export interface McpConnectionOptions {
  config: McpServerConfig;
  env: TransportEnv;
  settings: Pick<
    Settings,
    | 'MCP_REQUEST_TIMEOUT_MS'
    | 'ELICITATION_TIMEOUT_MS'
    | 'TOOL_CALL_MAX_MS'
    | 'MCP_MAX_RESPONSE_BYTES'
    | 'MCP_MAX_RESULT_DEPTH'
    | 'MCP_MAX_LIST_PAGES'
  >;
  /** What the connection tells its owner: notifications, a lost stream, a server's question, what was mended. */
  events: ConnectionEvents;
  /** The era verdicts (and 2025 sessions) kept for this server. */
  verdicts: VerdictStore;
  /** The bearer token of a server with `auth` (src/auth/vault-auth.ts). */
  auth?: AuthProvider | undefined;
  /** The MCP extensions declared to this server, and their transport wrappers (mcp/extensions/: the registry's answer). */
  extensions: ClientExtensions;
  /** How requests reach the server, if not as its URL says (transport.ts). */
  fetch?: typeof fetch | undefined;
}

/** What a client declares under `capabilities.extensions`, by extension id. */
export type ExtensionCapabilities = NonNullable<ClientCapabilities['extensions']>;

/** What the connection applies of the MCP extensions we consume; it names none of them (mcp/extensions/registry.ts). */
export interface ClientExtensions {
  /** Declared under `capabilities.extensions`, by id. */
  capabilities: ExtensionCapabilities;
  /** Wraps the transport (for results of an extension's own the SDK would refuse). */
  wrapTransport<T extends Transport>(transport: T): T;
}
