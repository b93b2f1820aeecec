// Test servers listen on TEST_PORT_BASE + 1..7 (default 3901–3907). Set
// TEST_PORT_BASE to run a second copy of the suite (another checkout) at the
// same time without the two fighting over ports.
export const TEST_PORT_BASE = Number(process.env.TEST_PORT_BASE ?? 3900);

/** The OAuth authorization server and the MCP server it protects (oauth-servers.ts). */
export const OAUTH_AS_PORT = TEST_PORT_BASE + 6;
export const OAUTH_RS_PORT = TEST_PORT_BASE + 7;

/** The MCP servers that serve skills (skill-servers.ts): TEST_PORT_BASE + 9; with tasks (task-servers.ts): + 10. */

/** The fake model provider (bench/lib/fake-model.mjs): the OpenAI and Anthropic APIs, for the provider tests. */
export const FAKE_MODEL_PORT = TEST_PORT_BASE + 8;

/** The browser tests (test/browser): two `wrangler dev` services and two host pages. */
export const BROWSER_PORTS = {
  /** `npm start`'s configuration: the demo page at /. */
  demoService: TEST_PORT_BASE + 11,
  /** Multi-tenant, with tokens and allowed origins. */
  tenantService: TEST_PORT_BASE + 12,
  /** A customer's page that embeds the widget: an allowed origin. */
  hostPage: TEST_PORT_BASE + 13,
  /** A page on an origin no tenant allows. */
  foreignPage: TEST_PORT_BASE + 14,
  /** The chat-clients tests: the service (tokens, a fake model), the clients' page, the fake model. */
  clientService: TEST_PORT_BASE + 15,
  clientPage: TEST_PORT_BASE + 16,
  fakeModel: TEST_PORT_BASE + 17,
  /** Where an MCP server that is down would be: nothing listens here. */
  nothingListening: TEST_PORT_BASE + 19,
  /** The browser project's own OAuth authorization server and protected MCP server (oauth-servers.ts). */
  oauthAs: TEST_PORT_BASE + 20,
  oauthRs: TEST_PORT_BASE + 21,
  /** `npm start`'s configuration plus that OAuth-protected server (oauth-connect.test.ts): the widget's Connect card. */
  oauthDemoService: TEST_PORT_BASE + 22,
  /** `npm start`'s configuration, for the API reference page (api-reference.test.ts). */
  referenceService: TEST_PORT_BASE + 23,
  /** The MCP Apps tests (mcp-apps.test.ts): the service, and the MCP server with test views (view-server.ts). */
  appsService: TEST_PORT_BASE + 24,
  viewServer: TEST_PORT_BASE + 25,
  /** server-everything for the widget's 2025 task question (widget-tasks.test.ts). */
  everything: TEST_PORT_BASE + 26,
  /** `npm start`'s configuration with a deployment-wide token budget (widget-budget.test.ts). */
  budgetService: TEST_PORT_BASE + 27,
  /** The operator's page (operator-page.test.ts): a fake Anthropic provider, and the service with two tenants. */
  operatorModel: TEST_PORT_BASE + 28,
  operatorService: TEST_PORT_BASE + 29,
  /** The operator's page under `npm start`'s configuration (no tenants, AUTH_DISABLED): no key to ask for. */
  operatorOpenService: TEST_PORT_BASE + 30,
  /** A tool that changed since it was approved (tool-definitions.test.ts): `npm start` plus the changing-tools servers. */
  definitionsService: TEST_PORT_BASE + 45,
  changingTools: TEST_PORT_BASE + 46,
  /** The widget's own files (widget-files.test.ts): `npm start`'s configuration with a small UPLOAD_MAX_BYTES. */
  filesService: TEST_PORT_BASE + 47,
  /** An answer's sources (widget-sources.test.ts): `npm start`'s configuration, and a useChat page beside it. */
  sourcesService: TEST_PORT_BASE + 60,
  sourcesClientPage: TEST_PORT_BASE + 61,
  /** Copy, Regenerate and ratings under answers (widget-actions.test.ts): `npm start`'s configuration; its /admin too. */
  actionsService: TEST_PORT_BASE + 62,
  /** Markdown as models write it (widget-markdown.test.ts): the service, and the fake model that writes it. */
  markdownService: TEST_PORT_BASE + 64,
  markdownModel: TEST_PORT_BASE + 65,
  /** The widget's shell (widget-shell.test.ts: start screen, themes, threads): `npm start` plus the view server. */
  shellService: TEST_PORT_BASE + 66,
  shellViews: TEST_PORT_BASE + 67,
  /** The widget's languages (widget-i18n.test.ts): `npm start`'s configuration. */
  i18nService: TEST_PORT_BASE + 69,
  /** A program's step (widget-program.test.ts): the service with RUN_CODE on, and the fake model that calls run_code. */
  programService: TEST_PORT_BASE + 70,
  programModel: TEST_PORT_BASE + 71,
};
