import { z } from 'zod';
import { McpServersSchema } from './servers';

/**
 * One customer of the service, as written in `TENANTS`. Credentials are
 * never in config: API keys appear only as SHA-256 hashes, and the token
 * secret is named (`secret:NAME`), its value a Worker secret.
 */
const tenantSchema = () =>
  z
    .object({
      id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'id must be 1-32 chars of a-z, 0-9, "_" or "-"'),
      /** SHA-256 (hex) of each server-to-server API key: `echo -n "$KEY" | sha256sum`. */
      apiKeySha256: z.array(z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest')).default([]),
      /** HS256 secret that signs this tenant's browser tokens, named as a Worker secret. */
      tokenSecret: z
        .string()
        .regex(/^secret:[A-Za-z0-9_]+$/, 'must name a Worker secret: "secret:NAME"')
        .optional(),
      /** Browser origins allowed to call the API with this tenant's tokens. */
      allowedOrigins: z
        .array(
          z
            .string()
            .url()
            .refine(
              (u) => new URL(u).origin === u.replace(/\/$/, ''),
              'must be an origin: scheme://host[:port], no path',
            ),
        )
        .default([])
        .transform((origins) => origins.map((u) => new URL(u).origin)),
      /** This tenant's MCP servers (default: MCP_SERVERS). */
      mcpServers: McpServersSchema.optional(),
      /** This tenant's model (default: MODEL). */
      model: z.string().min(1).optional(),
      /** Prompt caching at the model provider for this tenant's turns (default: PROMPT_CACHING). */
      promptCaching: z.boolean().optional(),
      /** Programs over resources for this tenant's conversations (default: RUN_CODE). */
      runCode: z.enum(['off', 'auto', 'on']).optional(),
      /**
       * This tenant's limits (defaults: TURNS_PER_MINUTE_PER_USER / _PER_TENANT
       * per 60 s, CONVERSATIONS_PER_MINUTE_PER_USER, LIVE_CONVERSATIONS_PER_USER)
       * and budgets (defaults: BUDGET_*; docs/USAGE.md, "Usage, cost and budgets").
       */
      limits: z
        .object({
          turnsPerUser: z.number().int().positive().optional(),
          turns: z.number().int().positive().optional(),
          windowMs: z.number().int().min(1_000).optional(),
          /** Conversations one end user may create per minute. */
          conversationsPerUser: z.number().int().positive().optional(),
          /** Conversations of one end user holding live MCP sessions at once. */
          liveConversationsPerUser: z.number().int().positive().optional(),
          /** USD this tenant may spend per calendar month (UTC), at the price cards (default: BUDGET_USD_PER_MONTH). */
          usdPerMonth: z.number().nonnegative().optional(),
          /** Tokens (input + output) this tenant may use per day (UTC) (default: BUDGET_TOKENS_PER_DAY). */
          tokensPerDay: z.number().int().nonnegative().optional(),
          /** USD each end user of this tenant may spend per day (UTC) (default: BUDGET_USER_USD_PER_DAY). */
          userUsdPerDay: z.number().nonnegative().optional(),
          /** Bytes of one uploaded file (default: UPLOAD_MAX_BYTES). */
          uploadMaxBytes: z.number().int().positive().optional(),
          /** Files one conversation may hold (default: UPLOADS_PER_CONVERSATION). */
          uploadsPerConversation: z.number().int().positive().optional(),
          /** Bytes this tenant may upload per day (UTC) (default: UPLOAD_BYTES_PER_TENANT_PER_DAY). */
          uploadBytesPerDay: z.number().int().positive().optional(),
        })
        .strict()
        .optional(),
    })
    .strict();

export type Tenant = z.infer<ReturnType<typeof tenantSchema>>;

/** `TENANTS`: one or more tenants, ids, keys and token secrets each their own. Built by {@link tenantsSchema}. */
const buildTenantsSchema = () =>
  z
    .array(tenantSchema())
    .min(1)
    .superRefine((tenants, ctx) => {
      const seen = new Set<string>();
      const secrets = new Set<string>();
      /** Each key digest's tenant: one key under two tenants would sign its caller in as whichever is found first. */
      const keyOwners = new Map<string, string>();
      for (const [index, tenant] of tenants.entries()) {
        for (const [k, digest] of tenant.apiKeySha256.entries()) {
          const owner = keyOwners.get(digest);
          if (owner !== undefined && owner !== tenant.id)
            ctx.addIssue({
              code: 'custom',
              path: [index, 'apiKeySha256', k],
              message: `the same API key (SHA-256 ${digest.slice(0, 12)}…) is under tenants "${owner}" and "${tenant.id}"; each key belongs to one tenant`,
            });
          else keyOwners.set(digest, tenant.id);
        }
        if (seen.has(tenant.id))
          ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate tenant id "${tenant.id}"` });
        seen.add(tenant.id);
        // A shared secret would let one tenant's backend mint tokens for the other.
        if (tenant.tokenSecret && secrets.has(tenant.tokenSecret))
          ctx.addIssue({
            code: 'custom',
            path: [index, 'tokenSecret'],
            message: 'each tenant needs its own token secret',
          });
        if (tenant.tokenSecret) secrets.add(tenant.tokenSecret);
      }
    });

let built: ReturnType<typeof buildTenantsSchema> | undefined;
/**
 * The schema of `TENANTS`, built on its first use (loadConfig, when TENANTS is set), then kept; not at module load,
 * which is every isolate's start-up CPU (as settings.ts's {@link settingsSchema}).
 */
export const tenantsSchema = () => (built ??= buildTenantsSchema());
