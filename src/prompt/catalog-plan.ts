import type { Settings } from '../config';
import { isUsable, type ServerState } from '../mcp/catalog/catalog';
import { isTextMime } from '../mcp/contents';
import { documentTextChars } from '../documents/document-texts';
import type { PriceCard } from '../config/price-cards';
import { type ContextPlan, planContext } from './cost-planner';
import { estimateTokens } from './tokens';

/** What one offered tool's definition costs, on average (name, description, JSON schema). */
const TOOL_TOKENS = 120;
/** The base instruction, the catalog's headings and our own tools (read_resource and the rest: about 1,000 tokens). */
const BASE_TOKENS = 1_250;

/**
 * The cost planner's plan for the conversation's servers as they are now (prompt/cost-planner.ts): the candidates
 * are the usable servers' text resources with a listed size (views and skill files are already out of `states`), and
 * the documents whose text size is known (read before, at the size they are listed at); a resource without a size
 * stays on demand. One function for the turn (what is inlined) and the catalog endpoint (what
 * it says was planned, and why), so the two cannot disagree.
 */
export function catalogPlan(
  states: readonly ServerState[],
  {
    model,
    gapsMs,
    settings,
  }: {
    /** The model's price card, and whether prompt caching is asked of its provider (models/resolve.ts ResolvedModel). */
    model: { card?: PriceCard | undefined; promptCache?: string | undefined };
    gapsMs: readonly number[];
    settings: Pick<Settings, 'PLANNER_TURNS' | 'INLINE_MAX_TOKENS' | 'PROMPT_CACHE_TTL'>;
  },
): ContextPlan {
  const usable = states.filter((s) => isUsable(s));
  const resources = usable.flatMap((s) =>
    s.resources.flatMap((r) => {
      // A document read before weighs what its text does (documents/document-texts.ts); other binaries are out.
      const chars = isTextMime(r.mimeType) ? r.size : documentTextChars(s, r);
      return typeof chars === 'number' ? [{ server: s.id, uri: r.uri, chars }] : [];
    }),
  );
  const instructions = usable.reduce((sum, s) => sum + estimateTokens(s.instructions ?? ''), 0);
  const tools = usable.reduce((sum, s) => sum + s.tools.length, 0);
  return planContext({
    resources,
    baseTokens: BASE_TOKENS + instructions + TOOL_TOKENS * tools,
    card: model.card,
    caching: model.promptCache !== undefined,
    gapsMs,
    settings,
  });
}
