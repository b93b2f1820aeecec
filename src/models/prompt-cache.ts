import type { ModelMessage, SystemModelMessage } from 'ai';
import type { PromptCacheStyle } from './resolve';

/**
 * How a turn asks its provider to cache the prompt's prefix. Every step of
 * a turn re-sends the tools, the system prompt (catalog, instructions, pins)
 * and the conversation; cached, the repeated part costs a tenth (Anthropic
 * reads) to a quarter (OpenAI gpt-4.1) of the input price. Measured in
 * BENCHMARKS.md ("What a conversation costs").
 *
 * - `breakpoints` (Anthropic): `cache_control` after the system prompt —
 *   the provider caches tools + system there, shared by every conversation
 *   with the same catalog — and on the turn's user message: every step of
 *   the turn re-sends the conversation up to it unchanged, and so does the
 *   next turn, which marks the previous user message too so it finds that
 *   entry however many steps lie between. Not on a step's last message: a
 *   read's window is elided from the next step or turn (read-elision.ts),
 *   so writing it (1.25× the input price) would rarely be read back —
 *   measured: caching on cost 15 % more than off on small corpora with that
 *   placement (BENCHMARKS.md). At most three of the four breakpoints a
 *   request may carry.
 * - `key` (OpenAI): prefixes of 1,024+ tokens are cached by themselves;
 *   `prompt_cache_key` routes one conversation's requests to the same cache.
 *
 * The contract that makes either work: nothing that changes within a turn
 * comes before a breakpoint. The system prompt is byte-identical from step
 * to step (system-prompt.ts); the catalog entries relevant to the new
 * message ride with that message (turn.ts); the step-limit step keeps the
 * tools and the system prompt and says why in a message of its own
 * (`lastStep`).
 */
export interface PromptCachePlan {
  /** The system prompt as `streamText` takes it. */
  system(text: string): string | SystemModelMessage;
  /** A step's messages, the last one marked where the provider wants it. */
  messages(messages: ModelMessage[]): ModelMessage[];
  /** Call-level provider options. */
  providerOptions: Record<string, Record<string, string>> | undefined;
  /**
   * The step past MAX_STEPS: `keep-tools` — same tools (`toolChoice: "none"`,
   * which these providers honour strictly) and the note as a message, so the
   * cached prefix survives; `drop-tools` — no tools, note in the system
   * prompt (providers that may ignore `toolChoice`).
   */
  lastStep: 'keep-tools' | 'drop-tools';
}

const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** The plan for a model's cache style (`undefined`: no caching) and the conversation it caches for. */
export function promptCachePlan(
  style: PromptCacheStyle | undefined,
  conversation: string | undefined,
): PromptCachePlan {
  switch (style) {
    case 'breakpoints':
      return {
        system: (content) => ({ role: 'system', content, providerOptions: EPHEMERAL }),
        messages: markUserTurns,
        providerOptions: undefined,
        lastStep: 'keep-tools',
      };
    case 'key':
      return {
        system: (text) => text,
        messages: (messages) => messages,
        providerOptions: conversation ? { openai: { promptCacheKey: conversation } } : undefined,
        lastStep: 'keep-tools',
      };
    default:
      return {
        system: (text) => text,
        messages: (messages) => messages,
        providerOptions: undefined,
        lastStep: 'drop-tools',
      };
  }
}

/** How many of the latest user messages carry a breakpoint: this turn's, and the one before (where the last turn's entry ends). */
const MARKED_USER_MESSAGES = 2;

/** The messages with a breakpoint on the latest user messages (a copy: a step's messages are rebuilt from untouched ones every step). */
function markUserTurns(messages: ModelMessage[]): ModelMessage[] {
  const marked = [...messages];
  let left = MARKED_USER_MESSAGES;
  for (let i = marked.length - 1; i >= 0 && left > 0; i--) {
    const message = marked[i]!;
    if (message.role !== 'user') continue;
    marked[i] = { ...message, providerOptions: { ...message.providerOptions, ...EPHEMERAL } };
    left--;
  }
  return marked;
}
