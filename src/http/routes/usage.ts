import { createRoute } from '@hono/zod-openapi';
import { z } from 'zod';
import { UsageQuery, UsageReport } from '../../../shared/api/usage';
import { usageCsv } from '../../usage/csv';
import { reportRange, wantsCsv } from '../../usage/report-range';
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
  const { from, to } = reportRange(query);
  // A browser token is one end user's: their own usage, whatever `user` says.
  const user = principal.browser ? principal.user : query.user;
  const ledger = c.env.USAGE_LEDGER.getByName(principal.tenant);
  const { rows, total } = await ledger.report({ from, to, groupBy: query.groupBy, user });
  const body = { tenant: principal.tenant, from, to, groupBy: query.groupBy, ...(user ? { user } : {}), rows, total };
  if (wantsCsv(query.format, c.req.header('accept')))
    return c.body(usageCsv(body), 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="usage-${principal.tenant}-${from}-${to}-${query.groupBy}.csv"`,
    });
  return c.json(body, 200);
});
