import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { MAX_USAGE_DAYS, UsageQuery, UsageReport } from '../../../shared/api/usage';
import { badRequest } from '../../errors';
import { dayOf } from '../../usage/counters';
import { usageCsv } from '../../usage/csv';
import { errors, routes, V1_ERRORS } from '../openapi';

const report = createRoute({
  method: 'get',
  path: '/',
  tags: ['usage'],
  summary: "The tenant's usage and cost",
  description:
    'Tokens as the provider reported them (cache reads and writes apart), dollars at the price cards, tool calls, MCP reads by layer and tasks, summed per day, end user, model or conversation. ' +
    "An API key sees the whole tenant (or one user with `user`); a browser token sees only its own user's. `format=csv` (or `Accept: text/csv`) gives the same rows as CSV.",
  request: { query: UsageQuery },
  responses: {
    200: {
      description: 'The rows and their total.',
      content: { 'application/json': { schema: UsageReport }, 'text/csv': { schema: z.string() } },
    },
    ...errors(400, ...V1_ERRORS),
  },
});

/** `GET /v1/usage`: a tenant's usage report from its ledger (usage/ledger.ts), JSON or CSV. */
export const usage = routes().openapi(report, async (c) => {
  const query = c.req.valid('query');
  const principal = c.get('principal');
  const to = query.to ?? dayOf(Date.now());
  const from = query.from ?? `${to.slice(0, 7)}-01`;
  for (const [name, day] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || dayOf(Date.parse(`${day}T00:00:00Z`)) !== day)
      throw badRequest(`"${name}" is not a day: ${day}`, 'invalid_query');
  if (from > to) throw badRequest(`"from" (${from}) is after "to" (${to})`, 'invalid_query');
  const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (days > MAX_USAGE_DAYS)
    throw badRequest(`The range covers ${days} days; at most ${MAX_USAGE_DAYS} per report`, 'invalid_query');
  // A browser token is one end user's: their own usage, whatever `user` says.
  const user = principal.browser ? principal.user : query.user;
  const ledger = c.env.USAGE_LEDGER.getByName(principal.tenant);
  const { rows, total } = await ledger.report({ from, to, groupBy: query.groupBy, user });
  const body = { tenant: principal.tenant, from, to, groupBy: query.groupBy, ...(user ? { user } : {}), rows, total };
  const csv = query.format === 'csv' || (query.format === undefined && c.req.header('accept')?.includes('text/csv'));
  if (csv)
    return c.body(usageCsv(body), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="usage-${principal.tenant}-${from}-${to}-${query.groupBy}.csv"`,
    });
  return c.json(body, 200);
});
