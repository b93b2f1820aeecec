/**
 * Whether a model's provider can load a tool definition mid-conversation without touching the request's tools array
 * (the first cached segment): Anthropic's deferred tools, loaded by `tool_reference` blocks in a tool result
 * (Claude Sonnet/Haiku/Opus 4.5 and later: the model table in @ai-sdk/anthropic's docs, "Tool Search"); OpenAI's
 * `additional_tools` items after a tool result, with the definitions omitted from the request's tools (the Responses
 * API, "gpt-5.4 and later": developers.openai.com/api/docs/guides/tools-tool-search). Any other model gets the
 * portable way: `search_tools` returns the definitions and one dispatcher tool, `call_tool`, runs them
 * (tools/tool-offer.ts).
 */
export type NativeToolSearch = 'anthropic' | 'openai';

export function nativeToolSearch(provider: string, modelId: string): NativeToolSearch | undefined {
  if (provider === 'anthropic') {
    // claude-<family>-<major>[-<minor>][-<date>]: the date is 8 digits, never a minor version.
    const m = /^claude-(?:opus|sonnet|haiku|fable)-(\d+)(?:-(\d{1,2}))?(?:-\d{8})?$/.exec(modelId);
    if (!m) return undefined;
    return atLeast(Number(m[1]), Number(m[2] ?? 0), 4, 5) ? 'anthropic' : undefined;
  }
  if (provider === 'openai') {
    const m = /^gpt-(\d+)(?:\.(\d+))?(?:-[a-z0-9-]+)?$/.exec(modelId);
    if (!m) return undefined;
    return atLeast(Number(m[1]), Number(m[2] ?? 0), 5, 4) ? 'openai' : undefined;
  }
  return undefined;
}

const atLeast = (major: number, minor: number, wantMajor: number, wantMinor: number) =>
  major > wantMajor || (major === wantMajor && minor >= wantMinor);
