import {
  OPERATOR_COMMENTS,
  OPERATOR_DAYS,
  type OperatorDay,
  type OperatorOverview,
  type OperatorTenant,
} from '../../shared/api/operator';
import type { AppConfig } from '../config';
import { budgetsOf } from './budgets';
import { dayOf, sumCounters } from './counters';

const DAY_MS = 86_400_000;

/** Every tenant's ids: the configured ones, or the open tenant of local development. */
export const tenantIdsOf = (config: AppConfig) => config.tenants?.map((t) => t.id) ?? ['default'];

/**
 * What the operator's page shows of every tenant: spend today and this month
 * against its budgets, its last {@link OPERATOR_DAYS} days, its live
 * conversations and running tasks, its ratings of answers per day. Three calls
 * on each tenant's ledger (its report by day, its activity, its ratings), all tenants at once: the ledgers are the
 * aggregate, no conversation is visited.
 */
export async function operatorOverview(
  env: Pick<Env, 'USAGE_LEDGER'>,
  config: AppConfig,
  now = Date.now(),
): Promise<OperatorOverview> {
  const today = dayOf(now);
  const monthStart = `${today.slice(0, 7)}-01`;
  const firstDay = dayOf(now - (OPERATOR_DAYS - 1) * DAY_MS);
  const from = monthStart < firstDay ? monthStart : firstDay;
  const tenants = await Promise.all(
    tenantIdsOf(config).map(async (id): Promise<OperatorTenant> => {
      const ledger = env.USAGE_LEDGER.getByName(id);
      const [report, live, feedback] = await Promise.all([
        ledger.report({ from, to: today, groupBy: 'day' }),
        ledger.activity(now),
        ledger.feedbackOverview(firstDay, today, OPERATOR_COMMENTS),
      ]);
      const byDay = new Map(report.rows.map((row) => [row.key, row]));
      const budgets = Object.fromEntries(Object.entries(budgetsOf(config, id)).filter(([, v]) => v !== undefined));
      return {
        id,
        budgets,
        today: sumCounters(byDay.has(today) ? [byDay.get(today)!] : []),
        month: sumCounters(report.rows.filter((row) => row.key >= monthStart)),
        days: Array.from({ length: OPERATOR_DAYS }, (_, i) => dayOf(now - (OPERATOR_DAYS - 1 - i) * DAY_MS)).map(
          (day): OperatorDay => {
            const row = byDay.get(day);
            return {
              day,
              inputTokens: row?.inputTokens ?? 0,
              outputTokens: row?.outputTokens ?? 0,
              usd: row?.usd ?? 0,
            };
          },
        ),
        live,
        feedback,
      };
    }),
  );
  return { generatedAt: new Date(now).toISOString(), today, tenants };
}
