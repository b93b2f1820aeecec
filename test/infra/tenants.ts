import { createHash } from 'node:crypto';
import { definitionText } from '../../src/mcp/catalog/tool-digest.ts';
import { CHANGING_TOOLS_PORT_OFFSET, LOOKUP_V2 } from './changing-tools-definitions.ts';
import { TEST_PORT_BASE } from './ports.ts';

/*
 * The suite's configuration fixtures: the MCP servers and tenants the workers project's Worker is configured with
 * (vitest.config.ts passes them as MCP_SERVERS and TENANTS). Each tenant exists for the tests that name it.
 */

/** A test server's URL: each listens on 127.0.0.1 at its offset from TEST_PORT_BASE (ports.ts). */
export const local = (offset: number, path: string) => `http://127.0.0.1:${TEST_PORT_BASE + offset}${path}`;

/**
 * MCP servers every test conversation connects to: the demo server, the
 * third-party server-everything, the same server-everything behind a fault
 * proxy that tests switch between failure modes (so its URIs are ambiguous
 * between "everything" and "faulty"), server-everything again over the
 * legacy SSE transport, and a minimal resources-only server. The Node processes behind the last two are
 * started by test/infra/global-setup.ts on 127.0.0.1.
 */
export const TEST_MCP_SERVERS = [
  // The demo server and server-everything are trusted for their annotations (their read-only tools run
  // without approval); faulty, legacy and the others are not (their read-only tools wait, like any other).
  // complete_task runs without approval here, so tests can see a tool-level error (isError) reach the model.
  // The guidelines are pinned; the test matrix too, but it is over PINNED_TOKEN_BUDGET.
  {
    id: 'demo',
    url: '/demo/mcp',
    trustAnnotations: true,
    autoApprove: ['complete_task'],
    pin: ['task://guidelines', 'docs://test-matrix'],
  },
  { id: 'everything', url: local(1, '/mcp'), transport: 'streamable-http', trustAnnotations: true },
  // Sends a bearer token from a Worker secret, so tests can check it never leaks.
  // A required pin: a turn must fail (502) when the server is down rather than run without it.
  {
    id: 'faulty',
    url: local(2, '/mcp'),
    transport: 'streamable-http',
    headers: { Authorization: 'secret:FAULTY_TOKEN' },
    pin: [{ uri: 'demo://resource/dynamic/text/1', required: true }],
  },
  // server-everything over the old HTTP+SSE transport: "auto" must fall back to it.
  // Its prompts are user-only (modelPrompts: false).
  { id: 'legacy', url: local(3, '/sse'), transport: 'auto', modelPrompts: false },
  // Resources only, no subscribe, cache hints on one resource (test/infra/minimal-server.ts).
  { id: 'minimal', url: local(4, '/mcp'), transport: 'streamable-http', cacheScope: 'shared' },
];

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A server of changing-tools.ts at `/<id>`, its `lookup` auto-approved by name. */
function changingServer(id: string) {
  return {
    id,
    url: local(CHANGING_TOOLS_PORT_OFFSET, `/${id}`),
    transport: 'streamable-http',
    autoApprove: ['lookup'],
  };
}

/**
 * Tests run multi-tenant, as production does: "acme" uses the servers above;
 * "globex" has its own list, where "minimal" is a different server serving
 * the same URIs (for cache isolation). test/helpers/api.ts signs requests
 * as acme's end user "alice" unless a test says otherwise.
 */
export const TEST_TENANTS = [
  {
    id: 'acme',
    apiKeySha256: [sha256('test-key-acme')],
    tokenSecret: 'secret:ACME_TOKEN_SECRET',
    allowedOrigins: ['https://app.acme.test'],
  },
  {
    id: 'globex',
    apiKeySha256: [sha256('test-key-globex')],
    tokenSecret: 'secret:GLOBEX_TOKEN_SECRET',
    allowedOrigins: ['https://globex.test'],
    // Low on purpose: the rate-limit test hits it, then waits for the window.
    limits: { turnsPerUser: 2, windowMs: 2_000 },
    mcpServers: [
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      { id: 'minimal', url: local(4, '/alt'), transport: 'streamable-http' },
    ],
  },
  // The user's files (test/uploads.test.ts): upload limits small enough for a test to reach.
  {
    id: 'uploaders',
    apiKeySha256: [sha256('test-key-uploaders')],
    allowedOrigins: [],
    limits: { uploadMaxBytes: 4_096, uploadsPerConversation: 3, uploadBytesPerDay: 20_000 },
    mcpServers: [{ id: 'demo', url: '/demo/mcp', trustAnnotations: true }],
  },
  // Protocol eras (test/era-*.test.ts): the SDK v2 servers in each of their modes (test/infra/v2-servers.ts; ours, so
  // strict and stateful are trusted for their annotations: their read-only slow_job runs without approval),
  // the naive 2025 port, server-everything, and the demo server spoken in each era.
  {
    id: 'eras',
    apiKeySha256: [sha256('test-key-eras')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'strict', url: local(5, '/strict'), transport: 'streamable-http', trustAnnotations: true },
      { id: 'fallback', url: local(5, '/fallback'), transport: 'streamable-http' },
      { id: 'stateful', url: local(5, '/stateful'), transport: 'streamable-http', trustAnnotations: true },
      // The same server spoken in 2025-11-25: its real sessions, GET stream and resources/subscribe.
      {
        id: 'stateful2025',
        url: local(5, '/stateful'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        trustAnnotations: true,
      },
      // The SDK's defaults forced to 2025: no session, GET 405, subscribe refused (-32601).
      // (These two cannot notify: a short TTL, so tests can see it expire.)
      {
        id: 'fallback2025',
        url: local(5, '/fallback'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        // Long enough that a second conversation's read finds the first one's KV copy on a busy CI machine.
        ttlMs: 3_000,
      },
      // A 2026-only server asked for 2025: refused with -32022.
      { id: 'strict2025', url: local(5, '/strict'), transport: 'streamable-http', protocol: '2025-11-25' },
      { id: 'naive', url: local(5, '/naive'), transport: 'streamable-http', ttlMs: 3_000 },
      { id: 'everything', url: local(1, '/mcp'), transport: 'streamable-http', trustAnnotations: true },
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      { id: 'demo2025', url: '/demo/mcp', trustAnnotations: true, protocol: '2025-11-25' },
    ],
  },
  // Servers that bend the spec (test/lenient-servers.test.ts): the SDK v2 strict and stateful servers with their results
  // bent by test/infra/bent-results.ts — cache hints stripped (JSON and SSE bodies), one broken entry in every list,
  // no resultType on complete results.
  {
    id: 'lenient',
    apiKeySha256: [sha256('test-key-lenient')],
    allowedOrigins: [],
    mcpServers: [
      {
        id: 'unhinted',
        url: local(5, '/bent/strip-json/strict'),
        transport: 'streamable-http',
        trustAnnotations: true,
      },
      {
        id: 'unhinted-sse',
        url: local(5, '/bent/strip-sse/strict'),
        transport: 'streamable-http',
        trustAnnotations: true,
      },
      { id: 'broken', url: local(5, '/bent/break/strict'), transport: 'streamable-http', trustAnnotations: true },
      { id: 'untyped', url: local(5, '/bent/strip-type/strict'), transport: 'streamable-http', trustAnnotations: true },
      {
        id: 'broken2025',
        url: local(5, '/bent/break/stateful'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        trustAnnotations: true,
      },
    ],
  },
  // Lazy connection (test/lazy-connection.test.ts): two SDK v2 servers of its own, one per era, so their request counts
  // are this file's alone (the same processes as the eras tenant's strict and stateful servers).
  {
    id: 'lazy',
    apiKeySha256: [sha256('test-key-lazy')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'notes', url: local(5, '/strict'), transport: 'streamable-http', trustAnnotations: true },
      {
        id: 'notes2025',
        url: local(5, '/stateful'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        trustAnnotations: true,
      },
    ],
  },
  // Skills (test/skills.test.ts): SDK v2 servers serving skills through the SDK's extension (test/infra/skill-servers.ts),
  // in each era, one with 500 skills; an SDK v2 server without the extension; and one whose skills the operator narrows.
  {
    id: 'skills',
    apiKeySha256: [sha256('test-key-skills')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'kit', url: local(9, '/strict'), transport: 'streamable-http' },
      {
        id: 'kit2025',
        url: local(9, '/stateful'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        skills: ['triage-a-bug'],
      },
      { id: 'plain', url: local(5, '/strict'), transport: 'streamable-http' },
      // Skills turned off by the operator (the 500-skill server: its request counts are this tenant's alone to watch).
      { id: 'kitoff', url: local(9, '/many'), transport: 'streamable-http', skills: 'off' },
    ],
  },
  {
    id: 'skills-many',
    apiKeySha256: [sha256('test-key-skills-many')],
    allowedOrigins: [],
    mcpServers: [{ id: 'library', url: local(9, '/many'), transport: 'streamable-http' }],
  },
  // Long-running tools as MCP Tasks (test/tasks.test.ts): an SDK v2 server with task tools (test/infra/task-servers.ts);
  // they run without approval here, so the tests are about tasks.
  {
    id: 'tasks',
    apiKeySha256: [sha256('test-key-tasks')],
    allowedOrigins: [],
    mcpServers: [
      {
        id: 'jobs',
        url: local(10, '/mcp'),
        transport: 'streamable-http',
        autoApprove: ['build', 'explode', 'ask_name', 'wait_forever', 'vanish', 'count', 'chatty'],
      },
      // A 2025 server with task-augmented tools/call (execution.taskSupport) and long calls that report progress.
      {
        id: 'everything',
        url: local(1, '/mcp'),
        transport: 'streamable-http',
        autoApprove: ['simulate-research-query', 'trigger-long-running-operation'],
      },
    ],
  },
  // The same task tools behind an approval (test/approved-tasks.test.ts): a call the user approves that becomes a task must
  // be followed like any other. No autoApprove, and the demo without trustAnnotations, so build_report waits too.
  {
    id: 'gated',
    apiKeySha256: [sha256('test-key-gated')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'jobs', url: local(10, '/mcp'), transport: 'streamable-http' },
      { id: 'everything', url: local(1, '/mcp'), transport: 'streamable-http' },
      { id: 'demo', url: '/demo/mcp' },
    ],
  },
  // Servers that echo the credential they are sent (test/secret-echo.test.ts): a `secret:` header, masked in all they
  // send back. Both eras of the echo server; the task server's echo_task.
  {
    id: 'leaky',
    apiKeySha256: [sha256('test-key-leaky')],
    allowedOrigins: [],
    mcpServers: [
      {
        id: 'echo',
        url: local(18, '/mcp'),
        transport: 'streamable-http',
        headers: { Authorization: 'secret:FAULTY_TOKEN' },
        autoApprove: ['whoami', 'whoami_error', 'confirm'],
      },
      {
        id: 'echo2025',
        url: local(18, '/mcp'),
        transport: 'streamable-http',
        protocol: '2025-11-25',
        headers: { Authorization: 'secret:FAULTY_TOKEN' },
        autoApprove: ['whoami', 'whoami_error'],
      },
      {
        id: 'jobs',
        url: local(10, '/mcp'),
        transport: 'streamable-http',
        headers: { Authorization: 'secret:FAULTY_TOKEN' },
        autoApprove: ['echo_task'],
      },
    ],
  },
  // Auto-approval bound to the definition approved (test/tool-definitions.test.ts): servers whose tools and
  // instructions change while in use (test/infra/changing-tools.ts), each path its own server. `lookup` is
  // auto-approved by name on most; by the digest of its changed definition on `bydigest`. The instructions' server has
  // a tenant of its own: its status (GET /v1/servers, reused for 30 s) is not the one the other tests saw.
  {
    id: 'rugpull',
    apiKeySha256: [sha256('test-key-rugpull')],
    allowedOrigins: [],
    mcpServers: [
      ...['words', 'fickle', 'dotted'].map(changingServer),
      {
        id: 'bydigest',
        url: local(CHANGING_TOOLS_PORT_OFFSET, '/bydigest'),
        transport: 'streamable-http',
        autoApprove: [{ name: 'lookup', sha256: sha256(definitionText(LOOKUP_V2)) }],
      },
    ],
  },
  {
    id: 'rugpull-guide',
    apiKeySha256: [sha256('test-key-rugpull-guide')],
    allowedOrigins: [],
    mcpServers: [changingServer('guide')],
  },
  // Per-user limits on conversations (created per minute, holding live MCP sessions at once).
  {
    id: 'limited',
    apiKeySha256: [sha256('test-key-limited')],
    allowedOrigins: [],
    limits: { conversationsPerUser: 4, liveConversationsPerUser: 2 },
    mcpServers: [
      { id: 'demo2025', url: '/demo/mcp', trustAnnotations: true, protocol: '2025-11-25' },
      { id: 'stateful', url: local(5, '/stateful'), transport: 'streamable-http' },
    ],
  },
  // Turn limits (test/chat-turns.test.ts): the tenant's limit is above one user's, below two users'.
  {
    id: 'metered',
    apiKeySha256: [sha256('test-key-metered')],
    allowedOrigins: [],
    limits: { turns: 3, turnsPerUser: 2, windowMs: 60_000 },
    mcpServers: [{ id: 'demo', url: '/demo/mcp', trustAnnotations: true }],
  },
  // Authorization (test/oauth.test.ts): one OAuth-protected server (test/infra/oauth-servers.ts) reached per end user —
  // through our client metadata document, and through a pre-registered client — and per tenant with client credentials.
  // Ours, so trusted for annotations: its read-only tools (whoami, …) run without approval.
  {
    id: 'oauth',
    apiKeySha256: [sha256('test-key-oauth')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      {
        id: 'account',
        url: local(7, '/mcp'),
        transport: 'streamable-http',
        auth: { type: 'oauth' },
        autoApprove: ['admin_report'],
        trustAnnotations: true,
      },
      {
        id: 'prereg',
        url: local(7, '/mcp'),
        transport: 'streamable-http',
        auth: { type: 'oauth', clientId: 'preregistered-client', clientSecret: 'secret:PREREGISTERED_SECRET' },
        trustAnnotations: true,
      },
      {
        id: 'bot',
        url: local(7, '/mcp'),
        transport: 'streamable-http',
        auth: {
          type: 'client_credentials',
          clientId: 'tenant-bot',
          clientSecret: 'secret:TENANT_BOT_SECRET',
          scopes: ['mcp:read'],
        },
        autoApprove: ['admin_report'],
        trustAnnotations: true,
      },
      {
        // The same integration authenticated by a private key (private_key_jwt): no secret shared with the server.
        id: 'bot-jwt',
        url: local(7, '/mcp'),
        transport: 'streamable-http',
        auth: {
          type: 'client_credentials',
          clientId: 'tenant-bot-jwt',
          privateKey: 'secret:TENANT_BOT_KEY',
          signingAlg: 'ES256',
          scopes: ['mcp:read'],
        },
        trustAnnotations: true,
      },
      {
        // The same integration by workload identity federation: the platform's token, no credential of our own.
        id: 'bot-workload',
        url: local(7, '/mcp'),
        transport: 'streamable-http',
        auth: {
          type: 'client_credentials',
          clientId: 'tenant-workload',
          assertion: 'secret:TENANT_WORKLOAD_TOKEN',
          scopes: ['mcp:read'],
        },
        trustAnnotations: true,
      },
    ],
  },
  // Real model providers (test/prompt-caching.test.ts): the Anthropic and OpenAI packages, pointed by
  // ANTHROPIC_BASE_URL / OPENAI_BASE_URL at the fake provider (bench/lib/fake-model.mjs), which records what they send.
  ...(
    [
      ['claude', 'anthropic:claude-sonnet-4-5', undefined],
      ['gpt', 'openai:gpt-4.1', undefined],
      ['claude-uncached', 'anthropic:claude-sonnet-4-5', false],
      ['gpt-uncached', 'openai:gpt-4.1', false],
      // A model id we have no price card for (src/config/price-cards.ts): it must run, on demand.
      ['claude-unknown', 'anthropic:claude-sonnet-9-9', undefined],
      // A current model whose writes are billed and which offers a 12-hour cache (the Responses API).
      ['gpt-terra', 'openai:gpt-6.1-terra', undefined],
    ] as const
  ).map(([id, model, promptCaching]) => ({
    id,
    apiKeySha256: [sha256(`test-key-${id}`)],
    allowedOrigins: [],
    model,
    ...(promptCaching === undefined ? {} : { promptCaching }),
    mcpServers: [{ id: 'demo', url: '/demo/mcp', trustAnnotations: true }],
  })),
  // The tools array across a conversation (test/stable-tools.test.ts): the Anthropic package (deferred tools past
  // MCP_TOOLS_TOKEN_BUDGET) with the demo server and server-everything, the catalog the flake of issue 43 was seen with.
  {
    id: 'claude-everything',
    apiKeySha256: [sha256('test-key-claude-everything')],
    allowedOrigins: [],
    model: 'anthropic:claude-sonnet-4-5',
    mcpServers: [
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      { id: 'everything', url: local(1, '/mcp'), transport: 'streamable-http', trustAnnotations: true },
    ],
  },
  // Metering and budgets (test/usage.test.ts): the Anthropic package against the fake provider, whose usage is known
  // (input: a quarter of the request's bytes, output: 5). `usage-a` and `usage-b` have no budgets (two tenants: one
  // never sees the other's usage); `budget` can afford a little less than one request a month, `budget-user` a little
  // less than one request per end user a day.
  ...(
    [
      ['usage-a', undefined],
      ['usage-b', undefined],
      ['budget', { usdPerMonth: 0.001 }],
      ['budget-user', { userUsdPerDay: 0.001 }],
      // The operator's overview (test/operator.test.ts): two tenants of its own, one with budgets to show.
      ['ops-a', { usdPerMonth: 50, tokensPerDay: 1_000_000 }],
      ['ops-b', undefined],
      // Budgets that hold (test/budgets.test.ts), a tenant per test: continuations past a token budget, many turns at
      // once on one (about four of the fake's requests, which are a quarter of their bytes), a crash mid-request; and
      // MAX_STEPS across continuations (no budget).
      ['budget-approvals', { tokensPerDay: 4_000 }],
      ['budget-parallel', { tokensPerDay: 40_000 }],
      ['budget-crash', { tokensPerDay: 100_000_000 }],
      ['budget-held', { tokensPerDay: 1_000_000 }],
      ['budget-client', { tokensPerDay: 1_000 }],
      ['steps', undefined],
    ] as const
  ).map(([id, limits]) => ({
    id,
    apiKeySha256: [sha256(`test-key-${id}`)],
    allowedOrigins: [],
    model: 'anthropic:claude-sonnet-4-5',
    ...(limits ? { limits } : {}),
    mcpServers: [{ id: 'demo', url: '/demo/mcp', trustAnnotations: true }],
  })),
  // Documents (test/infra/document-server.ts: PDFs, an HTML page), in a tenant of their own (test/documents.test.ts).
  {
    id: 'documents',
    apiKeySha256: [sha256('test-key-documents')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      { id: 'docs', url: local(50, '/mcp'), transport: 'streamable-http' },
    ],
  },
  // Documents inside tool results (test/documents-in-tools.test.ts): the real server-filesystem, stdio only, through
  // test/infra/stdio-bridge.ts; its two reading tools run without approval.
  {
    id: 'filesystem',
    apiKeySha256: [sha256('test-key-filesystem')],
    allowedOrigins: [],
    mcpServers: [
      {
        id: 'files',
        url: local(51, '/mcp'),
        transport: 'streamable-http',
        autoApprove: ['read_media_file', 'read_text_file'],
      },
    ],
  },
  // The real server-pdf (test/server-pdf.test.ts), in its stdio mode through test/infra/pdf-server.ts. What reads runs
  // without approval: the model's list_pdfs, display_pdf and interact (the operator's choice: interact also annotates
  // and saves), and what its viewer calls to load the PDF and answer interact (read_pdf_bytes, poll_pdf_commands,
  // submit_page_data).
  {
    id: 'server-pdf',
    apiKeySha256: [sha256('test-key-server-pdf')],
    allowedOrigins: [],
    mcpServers: [
      {
        id: 'pdf',
        url: local(52, '/mcp'),
        transport: 'streamable-http',
        autoApprove: [
          'list_pdfs',
          'display_pdf',
          'interact',
          'read_pdf_bytes',
          'poll_pdf_commands',
          'submit_page_data',
        ],
      },
    ],
  },
  // A tenant whose conversations never run programs (test/run-code-safety.test.ts): its runCode overrides RUN_CODE.
  {
    id: 'nocode',
    apiKeySha256: [sha256('test-key-nocode')],
    allowedOrigins: [],
    runCode: 'off',
    mcpServers: [{ id: 'demo', url: '/demo/mcp', trustAnnotations: true }],
  },
  // Large and hostile servers (test/infra/hostile-server.ts), in a tenant of their own so no other test sees them.
  // big_report and audit run without approval because the operator says so (autoApprove), not because the server's annotation does.
  {
    id: 'hostile',
    apiKeySha256: [sha256('test-key-hostile')],
    allowedOrigins: [],
    mcpServers: [
      { id: 'demo', url: '/demo/mcp', trustAnnotations: true },
      { id: 'hostile', url: local(4, '/hostile'), transport: 'streamable-http', autoApprove: ['big_report', 'audit'] },
      { id: 'hugelist', url: local(4, '/huge-list'), transport: 'streamable-http' },
      // A skill whose metadata is written to break out of the reference-material wrapper (test/infra/skill-servers.ts).
      { id: 'hostileskills', url: local(9, '/hostile'), transport: 'streamable-http' },
    ],
  },
];
