import { z } from 'zod';

/**
 * What a tenant's usage looks like through the API (`GET /v1/usage`), and
 * what one model request, tool execution or program run adds to it. Tokens are the
 * provider's own counts; a row whose provider reported nothing (a request
 * stopped mid-stream) carries our estimate and says so (`estimatedRequests`).
 */

/** The counters one row adds up. */
export const UsageCounters = z
  .object({
    requests: z.number().int().meta({ description: 'Model requests.' }),
    inputTokens: z.number().int().meta({ description: 'Input tokens, cache reads and writes included.' }),
    cacheReadTokens: z.number().int(),
    cacheWriteTokens: z.number().int(),
    outputTokens: z.number().int(),
    usd: z.number().meta({
      description:
        'Dollars at the price cards of src/config/price-cards.ts: model requests (0 for a model without a card: offline, Workers AI) and program runs (a Dynamic Worker load, its request and its milliseconds).',
    }),
    estimatedRequests: z.number().int().meta({
      description: 'Requests whose tokens are our estimate: the provider reported none (stopped mid-stream).',
    }),
    toolCalls: z.number().int(),
    readsMemory: z.number().int().meta({ description: 'MCP reads served from the conversation’s memory.' }),
    readsKv: z.number().int().meta({ description: 'MCP reads served from the KV layer.' }),
    readsServer: z.number().int().meta({ description: 'MCP reads that went to the server.' }),
    tasks: z.number().int().meta({ description: 'Tool calls that became tasks (MCP Tasks).' }),
    programRuns: z.number().int().meta({
      description:
        'Programs run (`run_code`), each in a Dynamic Worker of its own; each is also one of `toolCalls`, and its price is in `usd`.',
    }),
    programMs: z.number().int().meta({
      description:
        'Milliseconds the programs ran, wall time: the Worker Loader does not tell its caller a run’s CPU time, so its wall time (reads included) stands in, an upper bound. `usd` prices runs at it.',
    }),
    programReadBytes: z.number().int().meta({
      description: 'Bytes of resource text, prompts and tool results the programs were given.',
    }),
  })
  .meta({ id: 'UsageCounters' });
export type UsageCounters = z.infer<typeof UsageCounters>;

export const USAGE_GROUPS = ['day', 'user', 'model', 'conversation'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export const UsageRow = UsageCounters.extend({
  key: z.string().meta({ description: 'The day (YYYY-MM-DD), end user, model or conversation the row is for.' }),
}).meta({ id: 'UsageRow' });
export type UsageRow = z.infer<typeof UsageRow>;

export const UsageReport = z
  .object({
    tenant: z.string(),
    from: z.string().meta({ description: 'First day counted (UTC, YYYY-MM-DD).' }),
    to: z.string().meta({ description: 'Last day counted (UTC, YYYY-MM-DD), inclusive.' }),
    groupBy: z.enum(USAGE_GROUPS),
    user: z.string().optional().meta({ description: 'Set when the report is one end user’s own (a browser token).' }),
    rows: z.array(UsageRow),
    total: UsageCounters,
  })
  .meta({ id: 'UsageReport' });
export type UsageReport = z.infer<typeof UsageReport>;

export const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The longest range one report covers (a year, leap day included). */
export const MAX_USAGE_DAYS = 366;

/** The days a report covers (`from`, `to`): the usage report's and the feedback listing's query alike. */
export const DayRangeQuery = {
  from: z.string().regex(DAY, 'a day as YYYY-MM-DD').optional().meta({
    description: 'First day (UTC, YYYY-MM-DD). Default: the first of the month of `to`.',
    example: '2026-12-01',
  }),
  to: z
    .string()
    .regex(DAY, 'a day as YYYY-MM-DD')
    .optional()
    .meta({ description: 'Last day, inclusive (UTC). Default: today.', example: '2026-12-31' }),
};

export const UsageQuery = z.object({
  ...DayRangeQuery,
  groupBy: z
    .enum(USAGE_GROUPS)
    .default('day')
    .meta({ description: 'One row per day, end user, model or conversation.' }),
  user: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: 'One end user only (API keys; a browser token always sees its own user only).' }),
  format: z.enum(['json', 'csv']).optional().meta({ description: 'CSV also with `Accept: text/csv`.' }),
});
