import { z } from 'zod';

const int = (min: number, fallback: number) => z.coerce.number().int().min(min).default(fallback);
/** Dollars, 0 or more (a budget; 0 means none). */
const usd = () => z.coerce.number().min(0).default(0);

/**
 * Every limit and timing of the service, one Worker var each, with defaults.
 * (Vars are strings; `coerce` turns them into numbers and rejects garbage.)
 * Built by {@link settingsSchema} on first use, not at module load (see there).
 */
const buildSettingsSchema = () =>
  z.object({
    /**
     * Lifetime of a cached resource that no live notification channel covers
     * and whose server gave no `ttlMs` (2025 servers that cannot notify: no
     * session, no GET stream, subscription refused). See the freshness
     * contract in docs/ARCHITECTURE.md.
     */
    RESOURCE_TTL_MS: int(1_000, 60_000).describe(
      `lifetime of a cached resource no live notification channel covers, when its server gave no \`ttlMs\` (2025 servers that cannot notify: no session, GET refused, subscription refused)`,
    ),
    /**
     * Oldest cached copy (memory or KV) ever served, whatever notifications or
     * hints say; also the cap on a server's `ttlMs`. A conversation hears of
     * changes only from its own channel, and a server may notify some
     * sessions and not others (one process per session behind a gateway), so
     * this bounds staleness for every kind of server. `KV_MAX_AGE_MS` is read
     * as an older name of it.
     */
    CACHE_MAX_AGE_MS: int(1_000, 5 * 60_000).describe(
      `oldest cached copy (memory or KV) ever served, whatever notifications or hints say; also caps a server's \`ttlMs\` (see the freshness contract in docs/ARCHITECTURE.md). \`KV_MAX_AGE_MS\`, its older name, is still read`,
    ),
    /** Resources bigger than this are cached in memory only (KV values are limited to 25 MiB). */
    KV_MAX_ENTRY_BYTES: int(1_024, 5 * 1024 * 1024).describe(`larger resources are cached in memory only`),
    /**
     * URIs each conversation keeps per-URI records of (invalidation times,
     * generations, which KV space a copy was in), least recently used
     * forgotten first — each on the safe side: a forgotten invalidation is
     * assumed to be as late as the latest forgotten one.
     */
    CACHE_TRACKED_URIS: int(100, 10_000).describe(
      `URIs each conversation keeps per-URI cache records of (invalidations, generations, KV space), least recently used forgotten first — on the safe side: a forgotten invalidation counts as the latest forgotten one`,
    ),
    /** Bytes of resource contents each conversation keeps in memory (least recently used go first). */
    MEMORY_CACHE_BYTES: int(0, 16 * 1024 * 1024).describe(
      `resource bytes each conversation keeps in memory (least recently used evicted first)`,
    ),
    /**
     * A conversation unused this long releases its MCP sessions: listen
     * streams closed, 2025 sessions ended (`DELETE`). The next use opens fresh
     * ones (and distrusts what was cached meanwhile).
     */
    MCP_IDLE_MS: int(1_000, 10 * 60_000).describe(
      `a conversation unused this long releases its MCP sessions (listen streams closed, 2025 sessions ended with \`DELETE\`); the next use connects anew`,
    ),
    /**
     * How long a "this server speaks only 2025" verdict is reused before the
     * server is probed again with `server/discover` (servers get upgraded).
     */
    ERA_VERDICT_MAX_AGE_MS: int(0, 24 * 3_600_000).describe(
      `how long a "this server speaks only 2025" verdict is reused before \`server/discover\` is tried again`,
    ),
    /** Resource URIs one conversation follows per server (2026 listen filter or 2025 subscriptions); past it, reads rely on TTLs. */
    MAX_SUBSCRIBED_URIS: int(0, 256).describe(
      `resource URIs one conversation follows per server (listen filter or 2025 subscriptions); past it, reads rely on TTLs`,
    ),
    /** Timeout of one MCP request (initialize, list, read…); it stops counting while the user answers the server's question. */
    MCP_REQUEST_TIMEOUT_MS: int(100, 30_000).describe(
      `timeout of one MCP request; past it the client gets \`504 upstream_timeout\`. It stops counting while the user answers the server's question`,
    ),
    /**
     * A tool call whose server reports progress (`notifications/progress`)
     * gets MCP_REQUEST_TIMEOUT_MS again at each notification, up to this in all.
     */
    TOOL_CALL_MAX_MS: int(1_000, 10 * 60_000).describe(
      `longest a tool call may run while its server keeps reporting progress (each \`notifications/progress\` restarts MCP_REQUEST_TIMEOUT_MS); a longer job should run as a task`,
    ),
    /** A task (MCP Tasks) older than this is cancelled, and the model told so. */
    TASK_MAX_MS: int(1_000, 2 * 3_600_000).describe(
      `longest a tool call running as a task (MCP Tasks) may take; past it the task is cancelled (\`tasks/cancel\`) and the model gets an error saying so`,
    ),
    /** How often a task is polled (\`tasks/get\`): the server's pollIntervalMs, clamped to these. */
    TASK_POLL_MIN_MS: int(50, 1_000).describe(
      `the shortest interval between two \`tasks/get\` of one task, whatever the server's \`pollIntervalMs\``,
    ),
    TASK_POLL_MAX_MS: int(1_000, 30_000).describe(
      `the longest interval between two \`tasks/get\` of one task (a server's longer \`pollIntervalMs\` is shortened to it)`,
    ),
    /** Tasks one conversation, and one end user across conversations, may have running; a task past it is cancelled at once. */
    TASKS_PER_CONVERSATION: int(1, 4).describe(
      `tasks one conversation may have running; a tool call that starts one more is cancelled and the model told why`,
    ),
    TASKS_PER_USER: int(1, 10).describe(`tasks one end user may have running across conversations; past it, as above`),
    /** How long a server's question to the user (elicitation) waits for an answer; then it is cancelled. */
    ELICITATION_TIMEOUT_MS: int(1_000, 10 * 60_000).describe(
      `how long a server's question to the user waits for an answer; then it is cancelled`,
    ),
    /**
     * Largest single message (JSON body or SSE event) accepted from an MCP
     * server; past it the request fails with a 502 naming the limit. Bounds the
     * memory one read can take in the 128 MB isolate (see docs/RELIABILITY.md).
     */
    MCP_MAX_RESPONSE_BYTES: int(1_024, 16 * 1024 * 1024).describe(
      `largest message read from an MCP server; past it the request fails (\`502\` naming the limit)`,
    ),
    /** Deepest nesting accepted in a server's result (deeper is refused with a 502: it would overflow the stack later). */
    MCP_MAX_RESULT_DEPTH: int(8, 100).describe(`deepest nesting accepted in a server's result (\`502\` past it)`),
    /** Notifications arriving within this window lead to one catalog refresh. */
    NOTIFICATION_DEBOUNCE_MS: int(0, 250).describe(
      `\`list_changed\` notifications within this window cause one catalog refresh`,
    ),
    /** Upper bound on pages followed for one list call (tools, resources, templates, prompts) (a server that never ends its cursor chain). */
    MCP_MAX_LIST_PAGES: int(1, 100).describe(
      `most pages followed for one list (a warning is logged if a server has more)`,
    ),
    /** Characters of resource text per `read_resource` window; longer text continues in further windows. */
    READ_WINDOW_CHARS: int(1_000, 24_000).describe(`characters per \`read_resource\` window`),
    /**
     * Characters of resources read in earlier turns that are sent to the model
     * again (newest first); the others are replaced by a note naming them (the
     * history keeps them whole; reading again is a cache hit). 0: always a
     * note — measured cheaper than keeping them (BENCHMARKS.md). See
     * prompt/read-elision.ts.
     */
    EARLIER_READS_BUDGET_CHARS: int(0, 0).describe(
      `characters of earlier turns' \`read_resource\` / \`search_resource\` results sent to the model again (newest first); the others become a one-line note naming the resource (re-reading is a cache hit; the history keeps them whole). 0 measured cheapest (BENCHMARKS.md)`,
    ),
    /**
     * Characters of this turn's reads, besides its newest one, that are sent
     * again at each later step of the turn; older ones become a note. The
     * older windows of a resource read part by part are never re-sent.
     */
    TURN_READS_BUDGET_CHARS: int(0, 24_000).describe(
      `characters of this turn's reads, besides its newest, re-sent at each later step; older ones become a note. Earlier windows of a resource read part by part are never re-sent: a full read costs about the document once`,
    ),
    /**
     * Streamed deltas of the model arriving within this many ms are sent on as
     * one chunk (CPU per turn follows time, not tokens). 0 turns it off.
     */
    STREAM_COALESCE_MS: int(0, 30).describe(
      `the model's streamed deltas arriving within this window reach clients as one chunk (CPU per turn follows time, not tokens); 0 sends every chunk as the model did`,
    ),
    /**
     * A tool result with a view (MCP Apps) is kept whole in the history for the view (`data-mcp-app`); past this
     * size (its JSON) the view gets an error instead, and the model its text as always.
     */
    VIEW_RESULT_MAX_BYTES: int(1_000, 256 * 1024).describe(
      `most bytes (JSON) of a tool result kept for its view (MCP Apps); larger ones show the text only`,
    ),
    /**
     * Images up to this size go to models that accept images as image parts; larger ones are described. A scanned
     * PDF page's picture (read by its page) is scaled down until its PNG fits.
     */
    INLINE_IMAGE_MAX_BYTES: int(0, 1024 * 1024).describe(
      `images up to this go to image-capable models; binaries listed larger are described without downloading; a scanned PDF page read by its \`page\` is scaled down to fit`,
    ),
    /**
     * Who turns documents (PDF, Word, Excel, PowerPoint, HTML) into text the model reads (documents/): our converter
     * Worker (`local`, a service binding), Cloudflare's Workers AI (`workers-ai`, `env.AI.toMarkdown`), or nobody.
     */
    DOCUMENT_CONVERTER: z
      .enum(['local', 'workers-ai', 'off'])
      .default('local')
      .describe(
        `who turns documents (PDF, DOCX, XLSX, PPTX, HTML, CSV) into text the model reads on demand: \`local\` — the converter Worker (\`converter/\`, service binding \`CONVERTER\`, started by \`npm start\` and deployed by \`npm run deploy\`); \`workers-ai\` — Workers AI's \`toMarkdown\` (needs an \`[ai]\` binding named \`AI\`; no page numbers); \`off\` — documents are described like any binary`,
      ),
    /** Documents larger than this are described (with the reason), not converted. */
    DOCUMENT_MAX_BYTES: int(1_024, 10 * 1024 * 1024).describe(
      `documents larger than this are described with the reason, not downloaded or converted (an MCP message is also capped by \`MCP_MAX_RESPONSE_BYTES\`; base64 adds a third)`,
    ),
    /** Pages (slides, sheets) of a document converted; the rest are left out, and the text says so. */
    DOCUMENT_MAX_PAGES: int(1, 500).describe(
      `pages (slides, sheets) of one document converted; a longer one is converted up to this and its text says where it stops`,
    ),
    /** Characters of text one document may become; past it the conversion stops, and says so. */
    DOCUMENT_MAX_CHARS: int(1_000, 2_000_000).describe(
      `characters of text one converted document may become; past it the conversion stops and the text says so`,
    ),
    /** Token budget of the catalog in the system prompt (estimated at 3.3 characters a token). */
    CATALOG_TOKEN_BUDGET: int(100, 1_500).describe(
      `catalog tokens (estimated) in the system prompt and the message together; past it the prompt keeps a stable two thirds, the entries most relevant to the new message go with it, and the rest are announced (\`list_resources\` finds them)`,
    ),
    /** Characters of one server's `instructions` in the system prompt (cut with a note past that). */
    INSTRUCTIONS_MAX_CHARS: int(100, 4_000).describe(
      `characters of one server's instructions in the system prompt (cut with a note)`,
    ),
    /**
     * The cost planner (prompt/cost-planner.ts) decides, per conversation, which
     * resources go in the cached prefix and which stay on demand, from the
     * catalog's sizes, the model's price card and the pace. These bound it.
     */
    PLANNER_TURNS: int(1, 8).describe(
      `turns the cost planner estimates a conversation for when it weighs inlining resources (in the cached prefix) against reading them on demand`,
    ),
    INLINE_MAX_TOKENS: int(0, 30_000).describe(
      `most estimated tokens of resource text the cost planner puts in the prompt (0: never inline)`,
    ),
    /**
     * With prompt caching on, earlier reads are sent again as they were, so that every request extends the one before it
     * (prompt/read-elision.ts). Past this many estimated tokens of conversation, the reads of every turn before the new
     * one become one-line notes, once (the cached prefix is rewritten there, then grows again from it).
     */
    CONTEXT_BUDGET_TOKENS: int(1_000, 100_000).describe(
      `estimated tokens of conversation (with prompt caching on, earlier reads are re-sent as they were) past which the reads of every earlier turn become one-line notes, once; the stream says so`,
    ),
    /**
     * Whether a message that clearly needs one resource (names it, or one resource leads the ranking by far) gets it read
     * before the model is asked, when it fits in one window: one round trip instead of two (prompt/predicted-read.ts).
     */
    PREDICTED_READS: z
      .enum(['on', 'off'])
      .default('on')
      .describe(
        `\`on\`: when a message names a resource, or one resource clearly leads the relevance ranking, and it fits in one read window (by its listed size), it is read before the model is asked and rides with the question (a \`read_resource\` call in the answer, as if the model had made it): one model round trip instead of two. Not with the \`offline\` stand-in, which picks its reads by its own rules`,
      ),
    PROMPT_CACHE_TTL: z
      .enum(['auto', 'short', 'long'])
      .default('auto')
      .describe(
        `how long the provider keeps a conversation's cached prefix: \`short\` (Anthropic 5 min, OpenAI 30 min), \`long\` (Anthropic 1 h, OpenAI 12 h where the model offers it; writes cost more), \`auto\`: long once a gap between the conversation's turns outlasted half the short lifetime (switched while the cache is still warm, only the new writes cost more)`,
      ),
    /**
     * Estimated tokens of MCP tool definitions offered to the model at once;
     * past it, the tools most relevant to the conversation's opening message
     * are offered for the whole conversation (tools/tool-offer.ts) and
     * `search_tools` finds the others.
     */
    MCP_TOOLS_TOKEN_BUDGET: int(200, 6_000).describe(
      `estimated tokens of MCP tool definitions offered at once; past it, those most relevant to the conversation's opening message are offered for the whole conversation, and \`search_tools\` finds the rest, loaded without changing the tools array (Anthropic deferred tools, OpenAI additional tools; otherwise run through \`call_tool\`)`,
    ),
    /** Estimated tokens of pinned resource content in the system prompt; a pin past it stays in the catalog only. */
    PINNED_TOKEN_BUDGET: int(0, 1_000).describe(`estimated tokens of pinned content in the system prompt`),
    /**
     * A server's own annotations pin a resource when its audience includes
     * "assistant" and its priority is at least this (0–1; the default, 1, only
     * pins what a server marks top priority).
     */
    PIN_PRIORITY_THRESHOLD: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(`a resource annotated for the \`assistant\` with at least this priority is pinned`),
    /**
     * Characters of a pinned or inlined resource's text an answer's `data-sources` part carries (the text is in no
     * message of the conversation, so the part keeps it; the rest is cut, marked `truncated`). Other sources point
     * at the text in the message that holds it and carry no copy.
     */
    SOURCE_TEXT_MAX_CHARS: int(0, 20_000).describe(
      `characters of a pinned (or inlined) resource's text an answer's \`data-sources\` part carries, when the answer cites it`,
    ),
    /** Resources one message may attach (413 past it). */
    MAX_ATTACHMENTS: int(0, 8).describe(`resources one message may attach (\`413\` past it)`),
    /** Characters of attached text one message may carry in all (413 past it). */
    MAX_ATTACHMENT_CHARS: int(1_000, 200_000).describe(`attached text per message (\`413\` past it)`),
    /** Bytes of one uploaded file (`POST …/files`); a bigger one is refused (413) and nothing of the request is stored. */
    UPLOAD_MAX_BYTES: int(1, 25 * 1024 * 1024).describe(
      `bytes of one uploaded file (\`413 file_too_large\` past it, nothing of the request stored; a tenant's \`limits.uploadMaxBytes\` overrides it)`,
    ),
    /** Files one conversation may hold at once (429 past it). */
    UPLOADS_PER_CONVERSATION: int(1, 20).describe(
      `files one conversation may hold at once (\`429 upload_quota\` past it; a tenant's \`limits.uploadsPerConversation\` overrides it)`,
    ),
    /** Bytes a tenant may upload per day (UTC), all its users and conversations together, counted at its ledger. */
    UPLOAD_BYTES_PER_TENANT_PER_DAY: int(1, 1024 * 1024 * 1024).describe(
      `bytes one tenant may upload per day (UTC), all users together; deleting a file gives nothing back (\`429 upload_quota\` past it; a tenant's \`limits.uploadBytesPerDay\` overrides it)`,
    ),
    /**
     * The whole multipart body of one upload request. It is read into memory before anything is stored (every file is
     * checked first), and a Worker has 128 MB: this bounds what one request may hold, whatever the per-file limit.
     */
    UPLOAD_REQUEST_MAX_BYTES: int(1_024, 50 * 1024 * 1024).describe(
      `bytes of one upload request's whole body (it is read into memory before anything is stored; a Worker has 128 MB): \`413 payload_too_large\` past it; also the body limit of \`POST /v1/chat\` and \`…/messages\`, whose messages may carry files (\`useChat\` file parts)`,
    ),
    /** Bytes of resource content the model may read in one turn (read_resource); past it the tool answers with an error. */
    MAX_RESOURCE_BYTES_PER_TURN: int(1_024, 10 * 1024 * 1024).describe(
      `resource bytes \`read_resource\` may return in one turn; past it the tool answers with an error`,
    ),
    /** Turns one end user may start per minute (429 past it). */
    TURNS_PER_MINUTE_PER_USER: int(1, 30).describe(
      `turns one end user may start per minute (\`429\` + \`Retry-After\` past it)`,
    ),
    /** Tool calls MCP Apps views may make per minute for one end user (429 past it): a view is code of its server's choosing. */
    VIEW_CALLS_PER_MINUTE_PER_USER: int(1, 60).describe(
      `tool calls one end user's MCP Apps views may make per minute (\`429\` + \`Retry-After\` past it)`,
    ),
    /** Conversations one end user may create per minute (429 past it). */
    CONVERSATIONS_PER_MINUTE_PER_USER: int(1, 20).describe(
      `conversations one end user may create per minute (\`429\` + \`Retry-After\` past it; a tenant's \`limits.conversationsPerUser\` overrides it)`,
    ),
    /**
     * Conversations of one end user that may hold live MCP sessions at once.
     * Past it the least recently used idle one is released; when none is idle,
     * 429 with Retry-After.
     */
    LIVE_CONVERSATIONS_PER_USER: int(1, 10).describe(
      `conversations of one end user holding live MCP sessions at once; past it the least recently used idle one releases its sessions, and when all are mid-turn: \`429 too_many_live_conversations\` + \`Retry-After\` (tenant override: \`limits.liveConversationsPerUser\`)`,
    ),
    /** Turns one tenant may start per minute, all users together (429 past it). */
    TURNS_PER_MINUTE_PER_TENANT: int(1, 600).describe(`turns one tenant may start per minute`),
    /** Budgets (usage/budgets.ts) for tenants that set none of their own; 0: no budget. */
    BUDGET_USD_PER_MONTH: usd().describe(
      `USD a tenant may spend per calendar month (UTC) at the price cards, unless it sets \`limits.usdPerMonth\`; 0: no budget (\`429 budget_exceeded\` past it)`,
    ),
    BUDGET_TOKENS_PER_DAY: int(0, 0).describe(
      `tokens (input + output) a tenant may use per day (UTC), unless it sets \`limits.tokensPerDay\`; 0: no budget`,
    ),
    BUDGET_USER_USD_PER_DAY: usd().describe(
      `USD one end user may spend per day (UTC), unless the tenant sets \`limits.userUsdPerDay\`; 0: no budget`,
    ),
    /**
     * While budgets are in force, each model request is reserved at the tenant's ledger before it is made (its
     * prompt and tools as sent, plus this much output), so turns running at once count each other's requests in flight.
     */
    BUDGET_OUTPUT_ESTIMATE_TOKENS: int(1, 1_000).describe(
      `output tokens a model request is assumed to write when it is reserved against the budgets (its input is counted from the request itself); the real usage replaces the estimate when the request ends`,
    ),
    /**
     * Prompt caching at the model provider (models/prompt-cache.ts): Anthropic
     * requests mark the end of the system prompt and of the conversation so
     * far as cache breakpoints; OpenAI requests carry the conversation as
     * `prompt_cache_key`. A tenant's `promptCaching` overrides it.
     */
    PROMPT_CACHING: z
      .enum(['on', 'off'])
      .default('on')
      .describe(
        `\`on\`: Anthropic requests carry cache breakpoints (after the system prompt and tools, and after the conversation so far), OpenAI requests a \`prompt_cache_key\` per conversation; \`off\`: neither (a tenant's \`promptCaching\` overrides it)`,
      ),
    /**
     * The least level of log line written (src/observability/log.ts): `warn`
     * keeps failures and drops the per-request, per-turn and per-call `info`
     * lines, which are then not even built.
     */
    LOG_LEVEL: z
      .enum(['debug', 'info', 'warn', 'error'])
      .default('info')
      .describe(
        `the least level of log line written: \`debug\` (also each successful poll of a running task), \`info\` (every request, turn, model call, tool call and MCP request), \`warn\` (failures, refusals, retries), \`error\`; lines below it are not built at all`,
      ),
    /**
     * How a log line is written (src/observability/log.ts): `json`, an object Workers Logs indexes field by field (what a
     * deployment wants); `line`, one line of text per event, for a terminal — `npm start` and `npm run dev` set it, as
     * `wrangler dev` prints an object over 6–12 lines.
     */
    LOG_FORMAT: z
      .enum(['json', 'line'])
      .default('json')
      .describe(
        `how each log line is written: \`json\`, an object per event (Workers Logs indexes its fields; what a deployment wants); \`line\`, one line of text per event — \`GET /v1/conversations 201 12ms\` for a request, \`<event> key=value …\` for the others — for a terminal (\`npm start\` and \`npm run dev\` set it: \`wrangler dev\` prints each object over several lines)`,
      ),
    /**
     * Programs over resources (`run_code`, sandbox/): a Dynamic Worker per run, through the `LOADER` binding. `auto`
     * offers the tool when the cost planner finds a run cheaper than reading the longest text; `on` whenever there is
     * something to read; `off` never. Off where the deployment has no `[[worker_loaders]]` binding (one warning). A
     * tenant's `runCode` overrides it.
     */
    RUN_CODE: z
      .enum(['off', 'auto', 'on'])
      .default('auto')
      .describe(
        `programs over resources (\`run_code\`: JavaScript in a Dynamic Worker with no network, reading through the conversation): \`auto\` — offered when the cost planner finds a run (a Dynamic Worker load, $0.002 on Cloudflare) cheaper than reading the longest text resource; \`on\` — whenever something can be read; \`off\` — never. Needs the \`LOADER\` Worker Loader binding (without it: off, with one warning); a tenant's \`runCode\` overrides it`,
      ),
    RUN_CODE_WALL_MS: int(100, 15_000).describe(
      `wall time of one program run, its reads included; past it the run is stopped (\`wall_time\`)`,
    ),
    RUN_CODE_CPU_MS: int(10, 1_000).describe(
      `CPU milliseconds of one program run, enforced by Cloudflare (the Dynamic Worker's \`limits.cpuMs\`; \`cpu\`); workerd does not enforce it locally, where \`RUN_CODE_MAX_STEPS\` stops a runaway program`,
    ),
    RUN_CODE_MAX_STEPS: int(1_000, 50_000_000).describe(
      `loop iterations and function calls one program may make (counted in its code, so enforced everywhere; \`cpu\`)`,
    ),
    RUN_CODE_MAX_READ_BYTES: int(1_024, 32 * 1024 * 1024).describe(
      `bytes of resource text and tool results one program may be given (\`read_bytes\`)`,
    ),
    RUN_CODE_MAX_CALLS: int(1, 200).describe(`calls of resources, prompts and tools one program may make (\`calls\`)`),
    RUN_CODE_RESULT_CHARS: int(100, 20_000).describe(
      `characters of a program's result the model is given; the rest is cut and the model told so`,
    ),
    /** Model steps (calls) per turn; the turn ends with finish reason "step-limit" past that. */
    MAX_STEPS: int(1, 8).describe(
      `model steps per turn that may call tools; then one more step without tools answers with what was read and what is left (\`metadata.stepLimitReached\`)`,
    ),
  });

let built: ReturnType<typeof buildSettingsSchema> | undefined;
/**
 * The settings' schema, built on its first use (loadConfig, at an isolate's first request), then kept. Not at module
 * load: its seventy-odd fields with their descriptions are among the larger zod schemas of the Worker, and what runs at
 * module load is every isolate's start-up CPU (issue 44 holds what the documents and uploads work adds to it to 5 %;
 * BENCHMARKS.md, the bundle section).
 */
export const settingsSchema = () => (built ??= buildSettingsSchema());

export type Settings = z.infer<ReturnType<typeof buildSettingsSchema>>;
/** Every setting's name (its Worker var), in the schema's order. */
export const settingNames = () => Object.keys(settingsSchema().shape) as Array<keyof Settings>;
