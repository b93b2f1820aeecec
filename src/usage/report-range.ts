import { MAX_USAGE_DAYS } from '../../shared/api/usage';
import { badRequest } from '../errors';
import { dayOf } from './counters';

/**
 * The days a ledger report covers (`GET /v1/usage`, `GET /v1/feedback`): `to` defaults to today, `from` to the first
 * of `to`'s month; each must be a real UTC day, in order, at most MAX_USAGE_DAYS apart (400 `invalid_query`).
 */
export function reportRange(query: { from?: string | undefined; to?: string | undefined }, now = Date.now()) {
  const to = query.to ?? dayOf(now);
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
  return { from, to };
}

/** Whether the caller asked for CSV: `format=csv`, or no `format` and `Accept: text/csv`. */
export const wantsCsv = (format: 'json' | 'csv' | undefined, accept: string | undefined) =>
  format === 'csv' || (format === undefined && (accept?.includes('text/csv') ?? false));
