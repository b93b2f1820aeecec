import type { UsageCounters } from '../../shared/api/usage';
import type { AppConfig } from '../config';
import { type PriceCard, usdOf } from '../config/price-cards';
import { errorFields, logEvent } from '../observability/log';
import type { Owner } from '../owner';
import { budgetError, type Budgets, budgetsOf, type Exceeded, exceeded, hasBudgets } from './budgets';
import type { UsageEntry } from './counters';
import type { Spent } from './ledger';

/** Where a turn's entries go (the conversation's outbox: conversation/usage-outbox.ts). */
export interface UsageSink {
  add(entry: UsageEntry): void;
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
}

/**
 * One turn's metering: every model request and tool execution becomes an
 * entry in the conversation's outbox the moment it ends, and the turn's own
 * spend is added to what the ledger said at its start, so a step boundary
 * can tell a used-up budget without asking anyone (usage/budgets.ts; the
 * price of not asking: other conversations of the tenant that run at the
 * same time are seen at their next turn — docs/USAGE.md says by how much).
 */
export class TurnMeter {
  private usd = 0;
  private tokens = 0;
  private sequence = 0;
  private readonly turnId = crypto.randomUUID();

  constructor(private readonly options: MeterOptions) {}

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
    this.add({
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
    this.add({
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

  /** The first budget this turn has used up (what was spent at its start plus its own), if any. */
  exceeded(now = Date.now()): Exceeded | undefined {
    const { spent, budgets } = this.options;
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
    if (!ended.started) return;
    this.modelRequest({
      inputTokens: Math.ceil(JSON.stringify(ended.prompt).length / this.options.charsPerToken),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: Math.ceil(ended.streamedChars / this.options.charsPerToken),
      estimated: true,
    });
  };

  private add(counters: Partial<UsageCounters>): void {
    const { user, conversation, model, sink } = this.options;
    sink.add({ id: `${this.turnId}:${this.sequence++}`, at: Date.now(), user, conversation, model, counters });
  }
}

/**
 * A turn's meter. With budgets in force, what the ledger says was spent comes first: a budget used up refuses the
 * turn (429 `budget_exceeded`) when `refuse` — a new turn — and otherwise (a continuation after an approval, a client
 * tool's result, a task's end) lets it finish what was started: one step, then the step check ends it with the
 * notice. A ledger that does not answer lets the turn run (budgets protect against overspending; they do not take the
 * service down) and is logged.
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
  });
}
