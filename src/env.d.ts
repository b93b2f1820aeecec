// The vars and secrets the Worker reads beyond those wrangler.toml sets.
// `npm run types` (wrangler types) writes worker-configuration.d.ts from
// wrangler.toml: its bindings, and the vars it gives a value. Everything
// else is optional — set per deploy with `--var`, the dashboard or `wrangler
// secret put`, or not at all — so it is declared here, merged into the same
// `Env`, as `?: string` (vars and secrets both reach the Worker as strings;
// the JSON ones are parsed and validated by src/config/). `secrets.required`
// in wrangler.toml would type secrets too, but as always present: a deploy
// without one of them would fail, and `wrangler dev` would drop every other
// name in .dev.vars — among them the secrets that config names
// ("secret:NAME"), which no type can list: those are read with `secretNamed`
// (src/config/secrets.ts). .dev.vars.example lists every name declared here
// or generated; test/node/worker-types.test.ts checks that the two agree.

declare namespace Cloudflare {
  interface Env extends Partial<Record<keyof import('./config/settings').Settings, string>> {
    /** Tenants, as JSON (src/config/tenants.ts); a var or, better, a secret (it survives deploys). Unset: one open tenant, and only with AUTH_DISABLED. */
    TENANTS?: string;
    /** `"true"`: with no TENANTS, serve everyone as one open tenant (`npm start`; never in production). */
    AUTH_DISABLED?: string;
    /** SHA-256 hex digests (comma-separated) of the operator keys that open /admin (http/middleware/operator-auth.ts). */
    OPERATOR_KEY_SHA256?: string;
    /** `"true"`: with TENANTS, allow http and private addresses for MCP servers and OAuth URLs (development and tests only). */
    ALLOW_PRIVATE_MCP_URLS?: string;
    /** `"true"`: with TENANTS, serve the demo MCP server at /demo/mcp anyway (a public demo, never a customer deploy). */
    DEMO_MCP_ENABLED?: string;
    /** Most MCP sessions the demo server keeps (default 1000). */
    DEMO_MAX_SESSIONS?: string;
    /** A demo-server session idle this long (ms) is ended when a new one opens. */
    DEMO_SESSION_IDLE_MS?: string;
    /** The older name of CACHE_MAX_AGE_MS, still read. */
    KV_MAX_AGE_MS?: string;
    /** Secret: `id:base64key[,id:base64key…]`, sealing OAuth tokens (src/auth/keyring.ts). */
    OAUTH_TOKEN_KEYS?: string;
    /** Secret, for `MODEL=openai:<model>`. */
    OPENAI_API_KEY?: string;
    /** Secret, for `MODEL=anthropic:<model>`. */
    ANTHROPIC_API_KEY?: string;
    /** For `MODEL=openai:<model>`: another endpoint of the OpenAI API (a gateway such as Cloudflare AI Gateway). */
    OPENAI_BASE_URL?: string;
    /** For `MODEL=anthropic:<model>`: another endpoint of the Anthropic API (a gateway such as Cloudflare AI Gateway). */
    ANTHROPIC_BASE_URL?: string;
    /** For `MODEL=openai-compatible:<model>`: the server's base URL (`http://127.0.0.1:11434/v1`). */
    OPENAI_COMPATIBLE_BASE_URL?: string;
    /** Secret, for `MODEL=openai-compatible:<model>`, if that server wants one. */
    OPENAI_COMPATIBLE_API_KEY?: string;
    /**
     * The Workers AI binding, for `MODEL=workers-ai:<model>`: add `[ai] binding = "AI"` to
     * wrangler.toml (then `npm run types` declares it, and this line goes).
     */
    AI?: Ai;
  }
}

// `Env` (what the code names) and `Cloudflare.Env` (what `env` from
// `cloudflare:workers` is) are two interfaces in worker-configuration.d.ts;
// this one extends the other, so both carry the declarations above.
interface Env extends Cloudflare.Env {}
