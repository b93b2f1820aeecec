/*
 * The vars and secrets the Worker reads besides the numeric settings (settings.ts): what each is, its default, what
 * it does. The one source of the "Vars and secrets" table of docs/CONFIGURATION.md (`npm run docs:config`);
 * test/node/config-doc.test.ts checks that every var or secret the Worker's `Env` declares is here or in the settings,
 * so a new one cannot go undocumented. (Their types are in src/env.d.ts and worker-configuration.d.ts; the code that
 * reads them parses them: this file is read by the docs and the tests, never bundled.)
 */

export interface VarDoc {
  /** The default, as a reader should see it (`unset`, a value, `unset (secret)`). */
  default: string;
  meaning: string;
}

export const VARS: Record<string, VarDoc> = {
  TENANTS: {
    default: 'unset',
    meaning:
      'JSON list of tenants (see [AUTH.md](AUTH.md)). Invalid → a [config error](#config-errors) naming the field; one `apiKeySha256` under two tenants is one, naming both',
  },
  AUTH_DISABLED: {
    default: 'unset (`true` under `npm start`)',
    meaning: '`true` with no `TENANTS`: one open tenant, no authentication — local development only',
  },
  OPERATOR_KEY_SHA256: {
    default: 'unset',
    meaning:
      'SHA-256 (hex) of the operator key that opens the operator’s page `/admin` — `echo -n "$KEY" | sha256sum`; comma-separated for a rotation. Not a tenant key: it opens no `/v1` route, and no tenant key opens `/admin`. Unset: `/admin/api` answers `401` to everyone (the static page loads, and shows nothing), except without `TENANTS` under `AUTH_DISABLED=true` (`npm start`), where it is open (see [AUTH.md](AUTH.md#the-operators-key))',
  },
  PUBLIC_URL: {
    default: '`http://127.0.0.1:8787`',
    meaning:
      "this Worker's public origin: the OAuth redirect URI (`/oauth/callback`) and client metadata document live under it. With `TENANTS` it must be https",
  },
  OAUTH_TOKEN_KEYS: {
    default: 'unset (secret)',
    meaning:
      '`id:base64key[,id:base64key…]` (32-byte AES keys): the first seals OAuth tokens at rest, all open them. Needed for `oauth` and `client_credentials` servers; without it, only under `AUTH_DISABLED=true`, a development key that is in this repository is used',
  },
  ALLOW_PRIVATE_MCP_URLS: {
    default: 'unset',
    meaning:
      'with `TENANTS`, server URLs — and every URL OAuth discovers (metadata, token, registration, revocation, authorization endpoints, each redirect hop) — must be https to public hosts; `true` allows http and private/loopback addresses (development and tests only)',
  },
  DEMO_MCP_ENABLED: {
    default: 'unset',
    meaning:
      'the demo MCP server (`/demo/mcp`) is one shared, writable store that answers anyone: on without `TENANTS` (`npm start`); with `TENANTS` it is off — `/demo/mcp` answers `404` and a server configured at `/demo/mcp` is a [config error](#config-errors) naming this var — unless `true` (a public demo deploy only)',
  },
  MCP_SERVERS: {
    default: '`[{"id":"demo","url":"/demo/mcp","trustAnnotations":true}]`',
    meaning: 'JSON list of MCP servers (see below). Invalid → a [config error](#config-errors) naming the field.',
  },
  MODEL: {
    default: '`offline`',
    meaning:
      'which model runs the tool loop: `offline`, `workers-ai:<model>`, `openai:<model>`, `anthropic:<model>`, `openai-compatible:<model>` (see [USAGE.md, "Models"](USAGE.md#models))',
  },
  OPENAI_API_KEY: {
    default: 'unset (secret)',
    meaning: 'for `MODEL=openai:<model>`: the OpenAI API key. Missing → `500 model_not_configured` naming it',
  },
  ANTHROPIC_API_KEY: {
    default: 'unset (secret)',
    meaning: 'for `MODEL=anthropic:<model>`: the Anthropic API key. Missing → `500 model_not_configured` naming it',
  },
  OPENAI_BASE_URL: {
    default: '`https://api.openai.com/v1`',
    meaning:
      'for `MODEL=openai:<model>`: where the OpenAI API is — a gateway in front of it (see "Model providers through a gateway" below). Not an http(s) URL → `500 model_not_configured`',
  },
  ANTHROPIC_BASE_URL: {
    default: '`https://api.anthropic.com/v1`',
    meaning: 'for `MODEL=anthropic:<model>`: where the Anthropic API is, likewise',
  },
  OPENAI_COMPATIBLE_BASE_URL: {
    default: 'unset',
    meaning:
      'for `MODEL=openai-compatible:<model>`: the server’s base URL, up to and including `/v1` (vLLM, Ollama `http://127.0.0.1:11434/v1`, OpenRouter, LM Studio). Missing → `500 model_not_configured`',
  },
  OPENAI_COMPATIBLE_API_KEY: {
    default: 'unset (secret)',
    meaning: 'for `MODEL=openai-compatible:<model>`: the key that server wants, if any (sent as a bearer token)',
  },
  DEMO_PAGE_SIZE: { default: '`3`', meaning: 'entries per `resources/list` page of the demo MCP server' },
  DEMO_MAX_SESSIONS: {
    default: '`1000`',
    meaning:
      'most MCP sessions the demo server keeps; past it the least recently used is ended (its client gets 404 and initialises again)',
  },
  DEMO_SESSION_IDLE_MS: {
    default: '`1800000`',
    meaning: 'a demo-server session that made no request for this long is ended when a new session opens',
  },
  KV_MAX_AGE_MS: {
    default: 'unset',
    meaning: 'the older name of `CACHE_MAX_AGE_MS` (below), still read when that is unset',
  },
};
