// Bundled in place of `@ai-sdk/provider-utils/experimental-decision` and
// `@ai-sdk/provider-utils/experimental-extraction` (`alias` in wrangler.toml).
//
// @ai-sdk/anthropic and @ai-sdk/openai import them for one thing each: the
// experimental `provider.decisionModel(id)` / `provider.evaluationModel(id)` /
// `provider.extractionModel(id)` factories, which wrap a chat model for the
// AI SDK's experimental decide / extract APIs. src/models/resolve.ts only calls
// `createOpenAI(...)(id)` and `createAnthropic(...)(id)` (the chat model),
// and we use neither API. Each module carries its own copy of provider-utils'
// internals: ~94 KiB raw together.
//
// Calling one of those factories would throw the error below.
class NotBundled {
  constructor() {
    throw new Error(
      '@ai-sdk/provider-utils experimental decision/extraction models are not bundled (wrangler.toml `alias`)',
    );
  }
}

export { NotBundled as Experimental_DecisionLanguageModel, NotBundled as Experimental_ExtractionLanguageModel };
