import { z } from 'zod';

/** The JWS algorithms a `private_key_jwt` key may sign with (asymmetric only: the server holds no secret). */
export const PRIVATE_KEY_JWT_ALGS = ['ES256', 'ES384', 'RS256', 'RS384', 'PS256', 'EdDSA'] as const;

const secretRef = z.string().regex(/^secret:[A-Za-z0-9_]+$/, 'must name a Worker secret: "secret:NAME"');

/**
 * How this service authorizes itself to a server (docs/design/oauth.md):
 * - `none`: nothing, or the static `headers` below (shared by every user);
 * - `oauth`: each end user connects their own account (authorization code
 *   with PKCE). Our client is identified by the client ID metadata document
 *   this Worker serves (when PUBLIC_URL is https and the authorization server
 *   accepts them), else by dynamic registration, or by `clientId` (and
 *   `clientSecret`, a Worker secret) registered beforehand;
 * - `client_credentials`: one machine identity per tenant, authenticated by a
 *   client secret (`client_secret_basic`), a private key (`private_key_jwt`),
 *   or a workload identity token (the JWT bearer grant).
 */
export const ServerAuthSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }).strict(),
  z
    .object({
      type: z.literal('oauth'),
      clientId: z.string().min(1).optional(),
      clientSecret: secretRef.optional(),
      /** Scopes to ask for; default: what the server's metadata lists. */
      scopes: z.array(z.string().min(1)).optional(),
    })
    .strict()
    .refine((auth) => !auth.clientSecret || auth.clientId, 'clientSecret needs clientId'),
  z
    .object({
      type: z.literal('client_credentials'),
      clientId: z.string().min(1),
      /** `client_secret_basic`: the secret, a Worker secret. */
      clientSecret: secretRef.optional(),
      /**
       * `private_key_jwt` (RFC 7523): a PKCS#8 PEM private key, a Worker secret; each token request carries a
       * short-lived assertion signed with it (`iss` = `sub` = `clientId`, `aud` = the authorization server), so no
       * secret is shared with the server.
       */
      privateKey: secretRef.optional(),
      /**
       * Workload identity federation (RFC 7523 §2.1, the JWT bearer grant): a token the deployment's platform issues
       * and rotates (a Worker secret), exchanged for the server's token — nothing of our own to keep.
       */
      assertion: secretRef.optional(),
      /** The key's JWS algorithm (the authorization server must accept it). */
      signingAlg: z.enum(PRIVATE_KEY_JWT_ALGS).default('ES256'),
      scopes: z.array(z.string().min(1)).optional(),
    })
    .strict()
    .refine(
      (auth) => [auth.clientSecret, auth.privateKey, auth.assertion].filter((v) => v !== undefined).length === 1,
      'client_credentials needs clientSecret, privateKey or assertion (exactly one)',
    ),
]);

export type ServerAuth = z.infer<typeof ServerAuthSchema>;

/**
 * An `autoApprove` entry: a tool's name, or its name and the SHA-256 of the
 * one definition that runs without asking (`toolDigest`, mcp/catalog/tool-digest.ts;
 * shown in the server's warning when the definition changed).
 */
export const AutoApproveEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      name: z.string().min(1),
      sha256: z
        .string()
        .regex(
          /^[0-9a-f]{64}$/,
          'must be the SHA-256 (lowercase hex) of the definition, as the server warning gives it',
        ),
    })
    .strict(),
]);
export type AutoApproveEntry = z.infer<typeof AutoApproveEntrySchema>;

/**
 * One MCP server a conversation may connect to, as written in `MCP_SERVERS`.
 *
 * `url` is either absolute (`https://…`, or `http://127.0.0.1…` for local
 * servers) or a path of this Worker (`/demo/mcp`), which is reached through
 * the runtime's loopback binding to this Worker (`exports.default`, no
 * network hop). Header values may name a Worker secret with
 * `secret:NAME`, so tokens never sit in config or storage.
 */
export const McpServerConfigSchema = z
  .object({
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9_-]{0,31}$/,
        'id must be 1-32 chars of a-z, 0-9, "_" or "-", starting with a letter or digit',
      ),
    url: z
      .string()
      .refine((url) => url.startsWith('/') || URL.canParse(url), 'url must be absolute or a path of this Worker'),
    transport: z.enum(['streamable-http', 'sse', 'auto']).default('auto'),
    /**
     * Protocol revision: `auto` asks the server (`server/discover`) and falls
     * back to 2025-11-25 `initialize` for older servers; a revision pins it.
     */
    protocol: z.enum(['auto', '2026-07-28', '2025-11-25']).default('auto'),
    headers: z.record(z.string(), z.string()).default({}),
    auth: ServerAuthSchema.default({ type: 'none' }),
    /**
     * Who may share this server's cached resources in KV: `shared` (every end
     * user of the tenant) or `user` (one end user). A result the server marks
     * `cacheScope: "private"` (2026 hint) is per user whatever this says, and
     * `"public"` is shared within the tenant unless this says `user`.
     * `conversation`: nothing of it leaves the conversation — copies in its
     * memory only, no KV, no shared lists (the built-in `uploads` server).
     */
    cacheScope: z.enum(['shared', 'user', 'conversation']).default('shared'),
    /** Overrides `RESOURCE_TTL_MS` for this server's resources. */
    ttlMs: z.number().int().positive().optional(),
    /**
     * Reuse a cached copy for as long as this server's notification channel
     * covers it, even past the server's `ttlMs` (SDK servers send `ttlMs: 0`
     * when their author set nothing). Only for servers known to notify every
     * change; `CACHE_MAX_AGE_MS` still applies.
     */
    trustNotifications: z.boolean().default(false),
    /**
     * Tools of this server that run without asking the user. Every other tool
     * call waits for an approval (besides read-only ones of a server with
     * `trustAnnotations`). A name applies to the tool's definition as the
     * tenant first listed it (or the operator re-confirmed it); `{name,
     * sha256}` applies to that definition only (docs/SECURITY.md,
     * "Auto-approval and changed tools").
     */
    autoApprove: z.array(AutoApproveEntrySchema).default([]),
    /**
     * Whether this server's own tool annotations count: with `true`, its
     * tools annotated `readOnlyHint: true` run without asking the user. Off
     * by default — an annotation is the server's claim about itself, and a
     * server that lies (or is compromised) would otherwise decide which of
     * its tools skip the user's approval. Set it only for servers you
     * operate or trust as much as `autoApprove`.
     */
    trustAnnotations: z.boolean().default(false),
    /** Whether the model may fetch this server's prompts (`invoke_prompt`); false keeps them user-only. */
    modelPrompts: z.boolean().default(true),
    /**
     * The server's skills (MCP Skills extension) this deployment uses: `all`,
     * `off` (never listed), or the names allowed. A skill not allowed is in
     * no catalog, no tool and no attachment.
     */
    skills: z.union([z.enum(['all', 'off']), z.array(z.string().min(1)).min(1)]).default('all'),
    /**
     * Resources whose current content goes into every turn's system prompt
     * (read through the cache, so updates show). A required one that cannot
     * be read fails the turn (502) rather than letting the model work without it.
     */
    pin: z
      .array(
        z.union([
          z.string().min(1),
          z.object({ uri: z.string().min(1), required: z.boolean().default(false) }).strict(),
        ]),
      )
      .default([])
      .transform((pins) => pins.map((pin) => (typeof pin === 'string' ? { uri: pin, required: false } : pin))),
  })
  .strict()
  .superRefine((server, ctx) => {
    // The SDK sends a transport's static headers with discovery and token requests too, to other origins:
    // a credential there would reach the authorization server (and anyone it redirects to).
    if (server.auth.type === 'none') return;
    for (const [name, value] of Object.entries(server.headers)) {
      if (/^authorization$/i.test(name) || value.startsWith('secret:')) {
        ctx.addIssue({
          code: 'custom',
          path: ['headers', name],
          message: `a credential header cannot be combined with auth "${server.auth.type}" (it would be sent to the authorization server)`,
        });
      }
    }
    if (server.url.startsWith('/'))
      ctx.addIssue({ code: 'custom', path: ['auth'], message: 'OAuth needs an absolute server URL' });
  });

export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/** Ids of the servers this service builds in (`uploads`: the user's files, shared/api/files.ts `UPLOADS_SERVER`): no configured server may take one. */
export const RESERVED_SERVER_IDS: readonly string[] = ['uploads'];

export const McpServersSchema = z.array(McpServerConfigSchema).superRefine((servers, ctx) => {
  const seen = new Set<string>();
  for (const [index, server] of servers.entries()) {
    if (RESERVED_SERVER_IDS.includes(server.id))
      ctx.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `server id "${server.id}" is the built-in server of the user's uploaded files: choose another`,
      });
    if (seen.has(server.id))
      ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate server id "${server.id}"` });
    seen.add(server.id);
    const other = servers.find((o) => ambiguousIds(o.id, server.id));
    if (other)
      ctx.addIssue({
        code: 'custom',
        path: [index, 'id'],
        message: `server ids "${other.id}" and "${server.id}" can give two tools one name for the model ("${other.id}__" + tool is also "${server.id}__" + tool): rename one`,
      });
  }
});

/**
 * Whether a tool of `longer` and a tool of `shorter` can have the same model
 * name (`<server>__<tool>`, tools/mcp-tools.ts): `longer` is `shorter` and
 * `_` (`a_` + `x` and `a` + `_x` are both `a___x`), or `shorter` and `__`
 * (`a__b` + `c` and `a` + `b__c` are both `a__b__c`). Any other extension
 * (`a` and `a_b`, `a` and `a-b`) differs from `shorter__` within the id, so
 * its names never meet `shorter`'s.
 */
export function ambiguousIds(shorter: string, longer: string): boolean {
  return longer === `${shorter}_` || longer.startsWith(`${shorter}__`);
}

// Our own demo server is trusted: its read-only tools (annotated) run without asking.
export const DEFAULT_MCP_SERVERS = '[{"id":"demo","url":"/demo/mcp","trustAnnotations":true}]';

/** What clients may see of a server's config: never its headers. */
export function publicServerInfo(server: McpServerConfig) {
  return { id: server.id, url: server.url, transport: server.transport, auth: server.auth.type };
}

/** Whether the operator allows the skill `name` of this server (`skills` in MCP_SERVERS). */
export function allowsSkill(server: Pick<McpServerConfig, 'skills'>, name: string): boolean {
  return server.skills === 'all' || (Array.isArray(server.skills) && server.skills.includes(name));
}
