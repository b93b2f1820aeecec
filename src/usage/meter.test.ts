import { describe, expect, it } from 'vitest';
import { DYNAMIC_WORKER_RUN } from '../config/price-cards';
import type { Budgets } from './budgets';
import type { UsageEntry } from './counters';
import { requestChars } from './estimate';
import type { Reservation, ReservationVerdict, Spent } from './ledger';
import { TurnMeter, type UsageSink } from './meter';

/** A sink that records what the meter writes and answers reservations as `verdict` says. */
function sink(verdict: (reservation: Reservation) => ReservationVerdict) {
  const entries = new Map<string, UsageEntry>();
  const reservations: Reservation[] = [];
  const recorder: UsageSink = {
    add: (entry) => void entries.set(entry.id, entry),
    reserve: async (estimate, reservation) => {
      entries.set(estimate.id, estimate);
      reservations.push(reservation);
      const answer = verdict(reservation);
      if ('exceeded' in answer) entries.delete(estimate.id);
      return answer;
    },
  };
  return { recorder, entries, reservations };
}

const nothingSpent: Spent = { tenantUsdMonth: 0, tenantTokensDay: 0, userUsdDay: 0 };
const meterOf = (recorder: UsageSink, budgets: Budgets, spent: Spent | undefined = nothingSpent) =>
  new TurnMeter({
    user: 'alice',
    conversation: 'c1',
    model: 'mock',
    card: undefined,
    sink: recorder,
    budgets,
    spent,
    charsPerToken: 4,
    outputEstimateTokens: 100,
  });
const prompt = [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(400) }] }];
const reported = {
  inputTokens: { total: 150, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7 },
};

describe('TurnMeter before and after a model request', () => {
  it('with no budget, reserves nothing and records the usage once', async () => {
    const { recorder, entries, reservations } = sink(() => ({ spent: nothingSpent }));
    const meter = meterOf(recorder, {});
    expect(await meter.beforeRequest({ prompt })).toBeUndefined();
    meter.requestEnded({ usage: reported, streamedChars: 0, started: true, prompt });
    expect(reservations).toEqual([]);
    expect([...entries.values()].map((e) => e.counters)).toEqual([
      expect.objectContaining({ requests: 1, inputTokens: 150, outputTokens: 7, estimatedRequests: 0 }),
    ]);
  });

  it('reserves the estimate (prompt and tools, plus the output estimate); the usage replaces it under the same id', async () => {
    const { recorder, entries, reservations } = sink(() => ({ spent: nothingSpent }));
    const meter = meterOf(recorder, { tokensPerDay: 10_000 });
    expect(await meter.beforeRequest({ prompt, tools: [{ name: 't' }] })).toBeUndefined();
    const [reservation] = reservations;
    expect(reservation!.tokens).toBe(Math.ceil((requestChars(prompt) + requestChars([{ name: 't' }])) / 4) + 100);
    expect(entries.get(reservation!.id)?.counters).toMatchObject({ estimatedRequests: 1 });
    meter.requestEnded({ usage: reported, streamedChars: 0, started: true, prompt });
    expect([...entries.keys()]).toEqual([reservation!.id]);
    expect(entries.get(reservation!.id)?.counters).toMatchObject({ inputTokens: 150, estimatedRequests: 0 });
  });

  it('a request refused by the ledger leaves nothing, and every later one is refused without asking', async () => {
    const hit = {
      scope: 'tenant' as const,
      unit: 'tokens' as const,
      period: 'day' as const,
      limit: 10,
      spent: 12,
      resetsAt: '2027-01-01T00:00:00.000Z',
    };
    const { recorder, entries, reservations } = sink(() => ({ exceeded: hit }));
    const meter = meterOf(recorder, { tokensPerDay: 10 });
    expect(await meter.beforeRequest({ prompt })).toEqual(hit);
    expect(await meter.beforeRequest({ prompt })).toEqual(hit);
    expect(reservations).toHaveLength(1);
    expect(entries.size).toBe(0);
    expect(meter.exceeded()).toEqual(hit);
  });

  it('a reserved request that never started releases its reservation (an entry that counts nothing)', async () => {
    const { recorder, entries, reservations } = sink(() => ({ spent: nothingSpent }));
    const meter = meterOf(recorder, { tokensPerDay: 10_000 });
    await meter.beforeRequest({ prompt });
    meter.requestEnded({ usage: undefined, streamedChars: 0, started: false, prompt });
    expect(entries.get(reservations[0]!.id)?.counters).toEqual({});
  });

  it('between reservations, the turn’s own spend adds to what the ledger last said, never counted twice', async () => {
    let spent: Spent = { tenantUsdMonth: 0, tenantTokensDay: 900, userUsdDay: 0 };
    const { recorder } = sink(() => ({ spent }));
    const meter = meterOf(recorder, { tokensPerDay: 1_100 });
    await meter.beforeRequest({ prompt });
    meter.requestEnded({ usage: reported, streamedChars: 0, started: true, prompt });
    expect(meter.exceeded()).toBeUndefined(); // 900 at the ledger + 157 of this turn's own
    // The next reservation carried that request's entry: the ledger's answer includes it (and 3 more of others).
    spent = { ...spent, tenantTokensDay: 1_060 };
    expect(await meter.beforeRequest({ prompt })).toBeUndefined();
    meter.requestEnded({ usage: reported, streamedChars: 0, started: true, prompt });
    expect(meter.exceeded()).toMatchObject({ unit: 'tokens', spent: 1_060 + 157 });
  });
});

describe('requestChars', () => {
  it('counts strings, keys and bytes as they would be sent', () => {
    expect(requestChars('abc')).toBe(3);
    expect(requestChars({ a: 'xy' })).toBe(2 + 1 + 4 + 2);
    // An image or a file counts as what a provider bills for one (about 1,600 tokens), not as its bytes or base64.
    const image = requestChars(new Uint8Array(1_000_000));
    expect(image).toBe(requestChars({ type: 'file', mediaType: 'image/png', data: 'A'.repeat(1_400_000) }));
    expect(image / 3.3).toBeCloseTo(1_600);
    expect(requestChars([1, 'ab'])).toBeGreaterThan(requestChars(['ab']));
  });
});

describe('TurnMeter and a program run', () => {
  const run = { wallMs: 40, bytes: 5_000, steps: 12, resultChars: 3, calls: [{ method: 'read' }, { method: 'list' }] };

  it('records a run, its milliseconds and bytes, priced at the Dynamic Worker card, apart from the tool call', () => {
    const { recorder, entries } = sink(() => ({ spent: nothingSpent }));
    const meter = meterOf(recorder, {});
    meter.programRun(run);
    meter.toolExecuted({ result: '1' }, false);
    const [program, tool] = [...entries.values()].map((e) => e.counters);
    expect(program).toEqual({ programRuns: 1, programMs: 40, programReadBytes: 5_000, usd: expect.any(Number) });
    // The card's load, one request, and its milliseconds (its wall time standing in for CPU time).
    const card = DYNAMIC_WORKER_RUN;
    expect(program!.usd).toBeCloseTo(card.load + card.request + 40 * card.cpuMs, 12);
    expect(tool).toEqual({ toolCalls: 1 });
  });

  it('counts the run against the budgets at the next step boundary', () => {
    const { recorder } = sink(() => ({ spent: nothingSpent }));
    const meter = meterOf(recorder, { userUsdPerDay: 0.001 });
    expect(meter.exceeded()).toBeUndefined();
    meter.programRun({ ...run, error: { limit: 'cpu' } });
    expect(meter.exceeded()).toMatchObject({ scope: 'user', unit: 'usd' });
  });
});
