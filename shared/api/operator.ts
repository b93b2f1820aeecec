import { z } from 'zod';
import { ServerProbe } from './catalog';
import { FeedbackRow } from './feedback';
import { UsageCounters } from './usage';

/**
 * What the operator's page (`/admin`) reads, with the operator key: every
 * tenant's spend against its budgets, the days behind the chart, cache reads
 * by layer, live conversations and running tasks, and the MCP servers'
 * status. The counters are the usage API's (`GET /v1/usage`), from the same
 * ledgers, so the page and a tenant's own report agree.
 */

/** Comments of ratings shown per tenant. */
export const OPERATOR_COMMENTS = 5;

export const TenantBudgets = z
  .object({
    usdPerMonth: z.number().optional(),
    tokensPerDay: z.number().optional(),
    userUsdPerDay: z.number().optional(),
  })
  .meta({
    id: 'TenantBudgets',
    description: 'The budgets in force (the tenant’s own, else the deployment’s); absent: none.',
  });

export const OperatorDay = z
  .object({
    day: z.string().meta({ description: 'UTC, YYYY-MM-DD.' }),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    usd: z.number(),
  })
  .meta({ id: 'OperatorDay' });
export type OperatorDay = z.infer<typeof OperatorDay>;

export const OperatorTenant = z
  .object({
    id: z.string(),
    budgets: TenantBudgets,
    today: UsageCounters,
    month: UsageCounters,
    days: z
      .array(OperatorDay)
      .meta({ description: 'The last `DAYS` days, oldest first, days without usage as zeros.' }),
    live: z.object({
      conversations: z.number().int().meta({ description: 'Conversations holding live MCP sessions.' }),
      tasks: z.number().int().meta({ description: 'MCP tasks running (places taken, not yet ended or expired).' }),
      users: z.number().int().meta({ description: 'End users with at least one of either.' }),
    }),
    feedback: z
      .object({
        days: z
          .array(z.object({ day: z.string(), up: z.number().int(), down: z.number().int() }))
          .meta({ description: 'The days of the last `DAYS` with ratings of answers, oldest first.' }),
        comments: z
          .array(FeedbackRow)
          .meta({ description: `The newest ratings with a comment (at most ${OPERATOR_COMMENTS}), newest first.` }),
      })
      .meta({ description: 'Ratings of answers (`GET /v1/feedback`, from the same ledger).' }),
  })
  .meta({ id: 'OperatorTenant' });
export type OperatorTenant = z.infer<typeof OperatorTenant>;

export const OperatorOverview = z
  .object({
    generatedAt: z.string(),
    today: z.string().meta({ description: 'UTC, YYYY-MM-DD: the day of `today`; `month` starts on the 1st of it.' }),
    tenants: z.array(OperatorTenant),
  })
  .meta({ id: 'OperatorOverview' });
export type OperatorOverview = z.infer<typeof OperatorOverview>;

export const OperatorServer = ServerProbe.extend({ tenant: z.string() }).meta({ id: 'OperatorServer' });
export type OperatorServer = z.infer<typeof OperatorServer>;

export const OperatorServers = z.object({ servers: z.array(OperatorServer) }).meta({ id: 'OperatorServers' });
export type OperatorServers = z.infer<typeof OperatorServers>;

/** `POST /admin/api/definitions/confirm`: a definition the operator approves — a warning's `change`, with its tenant and server. */
export const ConfirmDefinitionBody = z
  .object({
    tenant: z.string(),
    server: z.string(),
    kind: z.enum(['tool', 'instructions']),
    name: z.string().min(1).optional().meta({ description: 'The tool, as the server names it (kind `tool`).' }),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 hex digest')
      .meta({ description: 'The definition approved: the warning’s `change.current`.' }),
  })
  .strict()
  .refine((body) => (body.kind === 'tool') === (body.name !== undefined), {
    message: 'name is required for a tool, and only for a tool',
    path: ['name'],
  })
  .meta({ id: 'ConfirmDefinitionBody' });
export type ConfirmDefinitionBody = z.infer<typeof ConfirmDefinitionBody>;

export const ConfirmedDefinition = z
  .object({
    tenant: z.string(),
    server: z.string(),
    kind: z.enum(['tool', 'instructions']),
    name: z.string().optional(),
    sha256: z.string(),
    replaced: z.string().optional().meta({ description: 'The digest approved before (absent: none was pinned).' }),
  })
  .meta({ id: 'ConfirmedDefinition' });

export const OperatorServersQuery = z.object({
  tenant: z.string().optional().meta({ description: 'One tenant’s servers only.' }),
});

/** Days of the chart (and of each tenant's `days`). */
export const OPERATOR_DAYS = 30;
