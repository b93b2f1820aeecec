import { z } from 'zod';

const int = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);

/**
 * Every limit and timing of the service, one Worker var each, with defaults.
 * (Vars are strings; `coerce` turns them into numbers and rejects garbage.)
 */
export const SettingsSchema = z.object({
  /**
   * Lifetime of a cached resource that no live notification channel covers
   * and whose server gave no `ttlMs` (2025 servers that cannot notify: no
   * session, no GET stream, subscription refused). See the freshness
   * contract in docs/ARCHITECTURE.md.
   */
  RESOURCE_TTL_MS: int(1_000, 60_000),
  /**
   * Oldest cached copy (memory or KV) ever served, whatever notifications or
   * hints say; also the cap on a server's `ttlMs`. A conversation hears of
   * changes only from its own channel, and a server may notify some
   * sessions and not others (one process per session behind a gateway), so
   * this bounds staleness for every kind of server. `KV_MAX_AGE_MS` is read
   * as an older name of it.
   */
  CACHE_MAX_AGE_MS: int(1_000, 5 * 60_000),
  /** Resources bigger than this are cached in memory only (KV values are limited to 25 MiB). */
  KV_MAX_ENTRY_BYTES: int(1_024, 5 * 1024 * 1024),
  /** Bytes of resource contents each conversation keeps in memory (least recently used go first). */
  MEMORY_CACHE_BYTES: int(0, 16 * 1024 * 1024),
  /**
   * A conversation unused this long releases its MCP sessions: listen
   * streams closed, 2025 sessions ended (`DELETE`). The next use opens fresh
   * ones (and distrusts what was cached meanwhile).
   */
  MCP_IDLE_MS: int(1_000, 10 * 60_000),
  /**
   * How long a "this server speaks only 2025" verdict is reused before the
   * server is probed again with `server/discover` (servers get upgraded).
   */
  ERA_VERDICT_MAX_AGE_MS: int(0, 24 * 3_600_000),
  /** Resource URIs one conversation follows per server (2026 listen filter or 2025 subscriptions); past it, reads rely on TTLs. */
  MAX_SUBSCRIBED_URIS: int(0, 256),
  /** Timeout of one MCP request (initialize, list, read…); it stops counting while the user answers the server's question. */
  MCP_REQUEST_TIMEOUT_MS: int(100, 30_000),
  /** How long a server's question to the user (elicitation) waits for an answer; then it is cancelled. */
  ELICITATION_TIMEOUT_MS: int(1_000, 10 * 60_000),
  /**
   * Largest single message (JSON body or SSE event) accepted from an MCP
   * server; past it the request fails with a 502 naming the limit. Bounds the
   * memory one read can take in the 128 MB isolate (see docs/RELIABILITY.md).
   */
  MCP_MAX_RESPONSE_BYTES: int(1_024, 16 * 1024 * 1024),
  /** Deepest nesting accepted in a server's result (deeper is refused with a 502: it would overflow the stack later). */
  MCP_MAX_RESULT_DEPTH: int(8, 100),
  /** Notifications arriving within this window lead to one catalog refresh. */
  NOTIFICATION_DEBOUNCE_MS: int(0, 250),
  /** Upper bound on pages followed for one list call (tools, resources, templates, prompts) (a server that never ends its cursor chain). */
  MCP_MAX_LIST_PAGES: int(1, 100),
  /** Characters of resource text per `read_resource` window; longer text continues in further windows. */
  READ_WINDOW_CHARS: int(1_000, 24_000),
  /**
   * Characters of resources read in earlier turns that are sent to the model
   * again (newest first); the others are replaced by a note naming them (the
   * history keeps them whole; reading again is a cache hit). 0: always a
   * note — measured cheaper than keeping them (BENCHMARKS.md). See
   * loop/read-elision.ts.
   */
  EARLIER_READS_BUDGET_CHARS: int(0, 0),
  /**
   * Characters of this turn's reads, besides its newest one, that are sent
   * again at each later step of the turn; older ones become a note. The
   * older windows of a resource read part by part are never re-sent.
   */
  TURN_READS_BUDGET_CHARS: int(0, 24_000),
  /**
   * Streamed deltas of the model arriving within this many ms are sent on as
   * one chunk (CPU per turn follows time, not tokens). 0 turns it off.
   */
  STREAM_COALESCE_MS: int(0, 30),
  /** Images up to this size go to models that accept images as image parts; larger ones are described. */
  INLINE_IMAGE_MAX_BYTES: int(0, 1024 * 1024),
  /** Token budget of the catalog in the system prompt (estimated at 3.3 characters a token). */
  CATALOG_TOKEN_BUDGET: int(100, 1_500),
  /** Characters of one server's `instructions` in the system prompt (cut with a note past that). */
  INSTRUCTIONS_MAX_CHARS: int(100, 4_000),
  /**
   * When every text resource of the conversation's servers fits in this many
   * characters together (and their sizes are listed), they are put in the
   * system prompt (read through the cache, so always current) instead of a
   * catalog the model must read from. Measured (BENCHMARKS.md, context
   * bytes): inlining wins while the corpus is smaller than about two model
   * calls' fixed prompt plus one document; a 10 KB corpus already costs less
   * through the catalog over six turns. 0 turns it off. See loop/pinned.ts.
   */
  INLINE_CORPUS_CHARS: int(0, 8_000),
  /**
   * Estimated tokens of MCP tool definitions offered to the model per step;
   * past it, the tools most relevant to the conversation are offered and
   * `search_tools` finds the others.
   */
  MCP_TOOLS_TOKEN_BUDGET: int(200, 6_000),
  /** Estimated tokens of pinned resource content in the system prompt; a pin past it stays in the catalog only. */
  PINNED_TOKEN_BUDGET: int(0, 1_000),
  /**
   * A server's own annotations pin a resource when its audience includes
   * "assistant" and its priority is at least this (0–1; the default, 1, only
   * pins what a server marks top priority).
   */
  PIN_PRIORITY_THRESHOLD: z.coerce.number().min(0).max(1).default(1),
  /** Resources one message may attach (413 past it). */
  MAX_ATTACHMENTS: int(0, 8),
  /** Characters of attached text one message may carry in all (413 past it). */
  MAX_ATTACHMENT_CHARS: int(1_000, 200_000),
  /** Bytes of resource content the model may read in one turn (read_resource); past it the tool answers with an error. */
  MAX_RESOURCE_BYTES_PER_TURN: int(1_024, 10 * 1024 * 1024),
  /** Turns one end user may start per minute (429 past it). */
  TURNS_PER_MINUTE_PER_USER: int(1, 30),
  /** Conversations one end user may create per minute (429 past it). */
  CONVERSATIONS_PER_MINUTE_PER_USER: int(1, 20),
  /**
   * Conversations of one end user that may hold live MCP sessions at once.
   * Past it the least recently used idle one is released; when none is idle,
   * 429 with Retry-After.
   */
  LIVE_CONVERSATIONS_PER_USER: int(1, 10),
  /** Turns one tenant may start per minute, all users together (429 past it). */
  TURNS_PER_MINUTE_PER_TENANT: int(1, 600),
  /** Model steps (calls) per turn; the turn ends with finish reason "step-limit" past that. */
  MAX_STEPS: int(1, 8),
});

export type Settings = z.infer<typeof SettingsSchema>;
export const SETTING_NAMES = Object.keys(SettingsSchema.shape) as Array<keyof Settings>;
