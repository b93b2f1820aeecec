import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { ModelMessage, SystemModelMessage } from 'ai';
import type { PriceCard } from '../config/price-cards';
import type { CacheTtl } from '../prompt/cost-planner';
import type { PromptCacheStyle } from './resolve';

/**
 * How a turn asks its provider to cache the prompt's prefix. Every request re-sends the tools, the system prompt
 * (catalog, instructions, what the cost planner inlined) and the conversation; cached, the repeated part costs a tenth
 * of the input price (a twentieth on some models; a quarter on gpt-4.1). Measured in BENCHMARKS.md ("What a
 * conversation costs").
 *
 * With caching on, every request extends the one before it: the history keeps earlier reads as they were sent
 * (prompt/read-elision.ts; a compaction past CONTEXT_BUDGET_TOKENS rewrites it once), the system prompt is
 * byte-identical from step to step and turn to turn, and the tools too (tools/tool-offer.ts).
 *
 * - `breakpoints` (Anthropic): `cache_control` after the system prompt — tools + system, shared by every
 *   conversation with the same catalog — on the turn's user message, and on the request's last message, so the next
 *   request (the next step, or the next turn) reads everything this one sent: it adds two blocks or so, well within
 *   the 20 blocks a breakpoint looks back. Three of the four breakpoints a request may carry. The planner's `long`
 *   lifetime asks for 1-hour entries (writes 2× instead of 1.25×), when the pace has shown gaps past 5 minutes.
 * - `key` (OpenAI): prefixes of 1,024+ tokens are cached by themselves (an implicit breakpoint at the end, from the
 *   GPT-5.6 family on, whose writes are billed); `prompt_cache_key` routes one conversation's requests to one cache;
 *   the `long` lifetime asks for 12-hour entries on models that offer them.
 *
 * The step past MAX_STEPS keeps the tools and the system prompt (`tool_choice: none`) and says why in a message of
 * its own (`lastStep`), so the cached prefix survives it.
 */
export interface PromptCachePlan {
  /** The system prompt as `streamText` takes it. */
  system(text: string): string | SystemModelMessage;
  /** A step's messages, marked where the provider wants them. */
  messages(messages: ModelMessage[]): ModelMessage[];
  /** Call-level provider options. */
  providerOptions: SharedV4ProviderOptions | undefined;
  /**
   * The step past MAX_STEPS: `keep-tools` — same tools (`toolChoice: "none"`,
   * which these providers honour strictly) and the note as a message, so the
   * cached prefix survives; `drop-tools` — no tools, note in the system
   * prompt (providers that may ignore `toolChoice`).
   */
  lastStep: 'keep-tools' | 'drop-tools';
}

/** The plan for a model's cache style (`undefined`: no caching), the conversation it caches for, and the planner's lifetime. */
export function promptCachePlan(
  style: PromptCacheStyle | undefined,
  conversation: string | undefined,
  { ttl = 'short', card }: { ttl?: CacheTtl | undefined; card?: PriceCard | undefined } = {},
): PromptCachePlan {
  switch (style) {
    case 'breakpoints': {
      const mark: SharedV4ProviderOptions = {
        anthropic: { cacheControl: ttl === 'long' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } },
      };
      return {
        system: (content) => ({ role: 'system', content, providerOptions: mark }),
        messages: (messages) => markRollingBreakpoints(messages, mark),
        providerOptions: undefined,
        lastStep: 'keep-tools',
      };
    }
    case 'key': {
      // The GPT-5.6 family on (billed writes): the lifetime is asked for; earlier models keep theirs (in memory).
      const cacheOptions =
        card?.cacheStyle === 'billed-writes'
          ? { promptCacheOptions: { ttl: ttl === 'long' && card.longTtlMs ? '12h' : '30m' } }
          : {};
      return {
        system: (text) => text,
        messages: (messages) => messages,
        providerOptions:
          conversation || card?.cacheStyle === 'billed-writes'
            ? { openai: { ...(conversation ? { promptCacheKey: conversation } : {}), ...cacheOptions } }
            : undefined,
        lastStep: 'keep-tools',
      };
    }
    default:
      return {
        system: (text) => text,
        messages: (messages) => messages,
        providerOptions: undefined,
        lastStep: 'drop-tools',
      };
  }
}

/**
 * The messages with a breakpoint on the latest user message and on the last message (a copy: a step's messages are
 * rebuilt from untouched ones every step). The last one is where this request's entry ends, so the next request — a
 * step that adds a call and its result, or a turn that adds an answer and a question — reads all of it.
 */
function markRollingBreakpoints(messages: ModelMessage[], mark: SharedV4ProviderOptions): ModelMessage[] {
  const marked = [...messages];
  const at = (i: number) => {
    const message = marked[i]!;
    marked[i] = { ...message, providerOptions: { ...message.providerOptions, ...mark } } as ModelMessage;
  };
  const lastUser = marked.findLastIndex((m) => m.role === 'user');
  if (lastUser >= 0) at(lastUser);
  if (marked.length && marked.length - 1 !== lastUser) at(marked.length - 1);
  return marked;
}
