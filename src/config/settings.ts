import { z } from 'zod';

const int = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);

/**
 * Every limit and timing of the service, one Worker var each, with defaults.
 * (Vars are strings; `coerce` turns them into numbers and rejects garbage.)
 */
export const SettingsSchema = z.object({
  /** Cache lifetime of a resource from a server that cannot notify changes (no `subscribe`). */
  RESOURCE_TTL_MS: int(1_000, 5 * 60_000),
  /**
   * Oldest KV copy a conversation accepts. KV is shared and eventually
   * consistent, and a conversation only hears about changes while it is
   * subscribed, so this bounds how stale a copy written by another
   * conversation (or before a restart) can be.
   */
  KV_MAX_AGE_MS: int(1_000, 5 * 60_000),
  /** Resources bigger than this are cached in memory only (KV values are limited to 25 MiB). */
  KV_MAX_ENTRY_BYTES: int(1_024, 5 * 1024 * 1024),
  /** Bytes of resource contents each conversation keeps in memory (least recently used go first). */
  MEMORY_CACHE_BYTES: int(0, 16 * 1024 * 1024),
  /** Timeout of one MCP request (initialize, list, read…). */
  MCP_REQUEST_TIMEOUT_MS: int(100, 30_000),
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
   * again; older reads are replaced by a note naming them (the history keeps
   * them whole). See loop/earlier-reads.ts.
   */
  EARLIER_READS_BUDGET_CHARS: int(0, 24_000),
  /** Images up to this size go to models that accept images as image parts; larger ones are described. */
  INLINE_IMAGE_MAX_BYTES: int(0, 1024 * 1024),
  /** Token budget of the catalog in the system prompt (estimated at 3.3 characters a token). */
  CATALOG_TOKEN_BUDGET: int(100, 1_500),
  /** Characters of one server's `instructions` in the system prompt (cut with a note past that). */
  INSTRUCTIONS_MAX_CHARS: int(100, 4_000),
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
  /** Turns one tenant may start per minute, all users together (429 past it). */
  TURNS_PER_MINUTE_PER_TENANT: int(1, 600),
  /** Model steps (calls) per turn; the turn ends with finish reason "step-limit" past that. */
  MAX_STEPS: int(1, 8),
});

export type Settings = z.infer<typeof SettingsSchema>;
export const SETTING_NAMES = Object.keys(SettingsSchema.shape) as Array<keyof Settings>;
