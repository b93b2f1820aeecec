import type { UsageCounters } from '../../shared/api/usage';
import type { AppConfig } from '../config';
import { type PriceCard, usdOf, usdOfRun } from '../config/price-cards';
import { errorFields, logEvent } from '../observability/log';
import type { Owner } from '../owner';
import { budgetError, type Budgets, budgetsOf, type Exceeded, exceeded, hasBudgets } from './budgets';
import type { UsageEntry } from './counters';
import { requestChars } from './estimate';
import type { Reservation, ReservationVerdict, Spent } from './ledger';

/**
 * What metering takes of a program run (sandbox/run-program.ts `RunOutcome`, which has more): figures only. Written
 * here because usage/ imports no layer above it.
 */
export interface ProgramRunFigures {
  wallMs: number;
  /** Bytes the program was given by its calls. */
  bytes: number;
  steps: number;
  resultChars: number;
  calls: ReadonlyArray<{ method: string }>;
  error?: { limit?: string | undefined } | undefined;
}

/** Where a turn's entries go (the conversation's outbox: conversation/usage-outbox.ts). */
export interface UsageSink {
  /** An entry, written at once; an entry with the id of an earlier one replaces it (a request's estimate, then its usage). */
  add(entry: UsageEntry): void;
  /**
   * A model request about to be made while budgets are in force: `estimate` is written as the request's entry until
   * its usage replaces it (so a crash counts the estimate), and `reservation` is made at the tenant's ledger with what
   * waits to be sent — one call, atomic with the budget check (usage/ledger.ts `reserve`).
   */
  reserve(estimate: UsageEntry, reservation: Reservation, budgets: Budgets): Promise<ReservationVerdict>;
}

/** What a meter is for: whose turn, which model and its prices, the budgets and what was spent when it began. */
export interface MeterOptions {
  user: string;
  conversation: string;
  model: string;
  card: PriceCard | undefined;
  sink: UsageSink;
  budgets: Budgets;
  /** What the ledger said was spent when the turn began (undefined: no budgets to keep). */
  spent: Spent | undefined;
  /** Characters a token, for our estimate of a request the provider reported nothing for (prompt/tokens.ts). */
  charsPerToken: number;
  /** What a request is assumed to write when its reservation is made (BUDGET_OUTPUT_ESTIMATE_TOKENS). */
  outputEstimateTokens: number;
}

/**
 * One turn's metering: every model request and tool execution becomes an
 * entry in the conversation's outbox the moment it ends. While budgets are in
 * force, each model request is first reserved at the tenant's ledger — its
 * estimate counts for every conversation of the tenant until its usage
 * settles it — and refused, with no request made, once a budget is used up
 * (docs/USAGE.md, "Budgets", says the bound this gives). Between
 * reservations, the turn's own spend is added to what the ledger last said,
 * so a step boundary can tell a used-up budget without asking anyone.
 */
export class TurnMeter {
  /** This turn's spend since the ledger last said what was spent (`spent`). */
  private usd = 0;
  private tokens = 0;
  private sequence = 0;
  private readonly turnId = crypto.randomUUID();
  /** What the ledger last said was spent (counted usage, not requests in flight), for the budgets; undefined: none kept. */
  private spent: Spent | undefined;
  /** The request being made: its entry carries this id (which settles its reservation, when one was made). */
  private inFlight: { id: string; reserved: boolean } | undefined;
  /** The budget a reservation was refused by: no further model request in this turn. */
  private refused: Exceeded | undefined;

  constructor(private readonly options: MeterOptions) {
    this.spent = options.spent;
  }

  /**
   * Before a model request (turn/telemetry.ts): with budgets in force, its estimate (the prompt and tools as sent,
   * BUDGET_OUTPUT_ESTIMATE_TOKENS written) is reserved at the ledger. Returns the budget that refuses it — the turn
   * then makes no request and ends with the notice. A ledger that does not answer lets it run (logged).
   */
  async beforeRequest(request: { prompt: unknown; tools?: unknown }): Promise<Exceeded | undefined> {
    const { budgets, sink, card, user } = this.options;
    const id = this.nextId();
    this.inFlight = { id, reserved: false };
    if (this.refused || !hasBudgets(budgets)) return this.refused;
    const local = this.exceeded();
    if (local) return this.refuse(local);
    const inputTokens = Math.ceil(
      (requestChars(request.prompt) + requestChars(request.tools)) / this.options.charsPerToken,
    );
    const outputTokens = this.options.outputEstimateTokens;
    const usd = card ? usdOf({ inputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens }, card) : 0;
    const estimate = this.entry(id, { requests: 1, inputTokens, outputTokens, usd, estimatedRequests: 1 });
    const before = { usd: this.usd, tokens: this.tokens };
    this.inFlight.reserved = true;
    try {
      const verdict = await sink.reserve(estimate, { id, user, tokens: inputTokens + outputTokens, usd }, budgets);
      if ('exceeded' in verdict) {
        this.inFlight = undefined;
        return this.refuse(verdict.exceeded);
      }
      // The ledger's word includes every entry of this turn sent with the reservation: only what comes after adds to it.
      this.spent = verdict.spent;
      this.usd -= before.usd;
      this.tokens -= before.tokens;
    } catch (error) {
      logEvent('usage.ledger', { outcome: 'unavailable', ...errorFields(error) }, 'warn');
    }
    return undefined;
  }

  /** The budget a reservation was refused by (the turn made no further request), if one was. */
  get refusal(): Exceeded | undefined {
    return this.refused;
  }

  private refuse(hit: Exceeded): Exceeded {
    this.refused = hit;
    logEvent('usage.budget', { outcome: 'refused', scope: hit.scope, unit: hit.unit, period: hit.period });
    return hit;
  }

  /** A model request ended: what the provider reported (or, when it reported nothing, our estimate, marked). */
  modelRequest(usage: {
    inputTokens: number;
    cacheReadTokens: number;
    cacheWriteTokens: number;
    cacheWriteLongTokens?: number | undefined;
    outputTokens: number;
    estimated: boolean;
  }): void {
    const usd = this.options.card ? usdOf(usage, this.options.card) : 0;
    this.usd += usd;
    this.tokens += usage.inputTokens + usage.outputTokens;
    const id = this.inFlight?.id ?? this.nextId();
    this.inFlight = undefined;
    this.add(id, {
      requests: 1,
      inputTokens: usage.inputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      outputTokens: usage.outputTokens,
      usd,
      estimatedRequests: usage.estimated ? 1 : 0,
    });
  }

  /** A tool ran: a call, and for a read the layer that served it; a call that became a task. */
  toolExecuted(output: unknown, becameTask: boolean): void {
    const cache = (output as { cache?: unknown } | null | undefined)?.cache;
    this.add(this.nextId(), {
      toolCalls: 1,
      ...(cache === 'memory'
        ? { readsMemory: 1 }
        : cache === 'kv'
          ? { readsKv: 1 }
          : cache === 'miss'
            ? { readsServer: 1 }
            : {}),
      ...(becameTask ? { tasks: 1 } : {}),
    });
  }

  /**
   * A program ran (`run_code`), well or not: a run, its milliseconds and the bytes it was given, priced at
   * usdOfRun (src/config/price-cards.ts) — its wall time stands in for its CPU time, which the Worker Loader does not
   * report, so the price is an upper bound — and added to the turn's spend, so budgets count it. The tool call itself
   * is counted by `toolExecuted`, as any other. One `program.run` line is logged: the run's figures and how it ended,
   * never what it returned or read (a customer's data).
   */
  programRun(run: ProgramRunFigures): void {
    const usd = usdOfRun(run.wallMs);
    this.usd += usd;
    this.add(this.nextId(), { programRuns: 1, programMs: run.wallMs, programReadBytes: run.bytes, usd });
    const limit = run.error?.limit;
    logEvent('program.run', {
      outcome: limit ? 'limit' : run.error ? 'error' : 'ok',
      limit,
      calls: run.calls.length,
      reads: run.calls.filter((call) => call.method === 'read').length,
      bytes: run.bytes,
      steps: run.steps,
      wallMs: run.wallMs,
      resultChars: run.resultChars,
    });
  }

  /** The first budget used up (what the ledger last said was spent plus this turn's own since, or a refused reservation). */
  exceeded(now = Date.now()): Exceeded | undefined {
    if (this.refused) return this.refused;
    const { spent } = this;
    const { budgets } = this.options;
    if (!spent) return undefined;
    return exceeded(
      budgets,
      {
        tenantUsdMonth: spent.tenantUsdMonth + this.usd,
        tenantTokensDay: spent.tenantTokensDay + this.tokens,
        userUsdDay: spent.userUsdDay + this.usd,
      },
      now,
    );
  }

  /**
   * A model request ended (turn/telemetry.ts): what the provider reported; when it reported nothing (stopped or
   * broken mid-stream), our estimate of the prompt and of what was streamed, marked. A request refused before its
   * stream began was not billed: nothing.
   */
  readonly requestEnded = (ended: {
    usage:
      | {
          inputTokens: { total: number | undefined; cacheRead: number | undefined; cacheWrite: number | undefined };
          outputTokens: { total: number | undefined };
          raw?: unknown;
        }
      | undefined;
    streamedChars: number;
    started: boolean;
    prompt: unknown;
  }): void => {
    const { usage } = ended;
    if (usage && (usage.inputTokens.total !== undefined || usage.outputTokens.total !== undefined)) {
      // Anthropic's own usage says which writes were 1-hour ones (priced 2× input, not 1.25×); the SDK's does not.
      const long = (usage.raw as { cache_creation?: { ephemeral_1h_input_tokens?: unknown } } | undefined)
        ?.cache_creation?.ephemeral_1h_input_tokens;
      this.modelRequest({
        inputTokens: usage.inputTokens.total ?? 0,
        cacheReadTokens: usage.inputTokens.cacheRead ?? 0,
        cacheWriteTokens: usage.inputTokens.cacheWrite ?? 0,
        cacheWriteLongTokens: typeof long === 'number' ? long : undefined,
        outputTokens: usage.outputTokens.total ?? 0,
        estimated: false,
      });
      return;
    }
    if (!ended.started) {
      // Never made (refused before its stream began): not billed; its reservation and estimate are released.
      const reserved = this.inFlight?.reserved ? this.inFlight.id : undefined;
      this.inFlight = undefined;
      if (reserved) this.add(reserved, {});
      return;
    }
    this.modelRequest({
      inputTokens: Math.ceil(requestChars(ended.prompt) / this.options.charsPerToken),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: Math.ceil(ended.streamedChars / this.options.charsPerToken),
      estimated: true,
    });
  };

  private nextId(): string {
    return `${this.turnId}:${this.sequence++}`;
  }

  private entry(id: string, counters: Partial<UsageCounters>): UsageEntry {
    const { user, conversation, model } = this.options;
    return { id, at: Date.now(), user, conversation, model, counters };
  }

  private add(id: string, counters: Partial<UsageCounters>): void {
    this.options.sink.add(this.entry(id, counters));
  }
}

/**
 * A turn's meter. With budgets in force, what the ledger says was spent comes first: a budget used up refuses the
 * turn (429 `budget_exceeded`) when `refuse` — a new turn, before anything is written — and otherwise (a
 * continuation after an approval, a client tool's result, a task's end) lets it finish what the person already
 * approved: the approved calls run and are stored, then the turn ends with the notice and no model request (its
 * first reservation is refused). A ledger that does not answer lets the turn run (budgets protect against
 * overspending; they do not take the service down) and is logged.
 */
export async function startMeter(
  turn: {
    owner: Owner;
    conversation: string;
    model: { spec: string; card?: PriceCard | undefined };
    config: AppConfig;
    usage: UsageSink & { spent(user: string): Promise<Spent> };
    charsPerToken: number;
  },
  { refuse }: { refuse: boolean },
): Promise<TurnMeter> {
  const { owner, usage } = turn;
  const budgets = budgetsOf(turn.config, owner.tenant);
  let spent: Spent | undefined;
  if (hasBudgets(budgets))
    spent = await usage.spent(owner.user).catch((error: unknown) => {
      logEvent('usage.ledger', { outcome: 'unavailable', ...errorFields(error) }, 'warn');
      return undefined;
    });
  const hit = spent && exceeded(budgets, spent);
  if (hit && refuse) throw budgetError(hit);
  return new TurnMeter({
    user: owner.user,
    conversation: turn.conversation,
    model: turn.model.spec,
    card: turn.model.card,
    sink: usage,
    budgets,
    spent,
    charsPerToken: turn.charsPerToken,
    outputEstimateTokens: turn.config.settings.BUDGET_OUTPUT_ESTIMATE_TOKENS,
  });
}
