// Bundled in place of `@ai-sdk/gateway` (`alias` in wrangler.toml): the
// Vercel AI Gateway provider, which this Worker never uses.
//
// `ai` imports it as the default global provider: it serves a model given as
// a string id ("openai/gpt-4.1") when no AI_SDK_DEFAULT_PROVIDER is set, and
// `ai` re-exports `gateway` / `createGateway`. We never pass a string model:
// src/models/resolve.ts always hands the AI SDK a model object (offline,
// workers-ai, openai, anthropic, openai-compatible), and nothing of ours
// imports `gateway`. Besides that, `ai` only asks `GatewayError.isInstance` /
// `GatewayAuthenticationError.isInstance` of errors (to retry or reword
// them); without the gateway no error can be one, so they answer false. The
// real package is 141 KiB raw (plus @vercel/oidc) and builds its provider at
// start-up.
//
// If a string model id ever reached the AI SDK, any use of the provider
// below throws the error it names.
const notBundled = (): never => {
  throw new Error(
    '@ai-sdk/gateway is not bundled (wrangler.toml `alias`): give the AI SDK a model object, not a model id string (src/models/resolve.ts)',
  );
};

/** A provider (v4) whose every model factory throws. */
export const gateway: () => never = new Proxy(notBundled, {
  get: (_target, property) =>
    property === 'specificationVersion'
      ? 'v4'
      : typeof property === 'symbol' || property === 'then'
        ? undefined
        : notBundled,
});

export const createGateway = (): never => notBundled();

export class GatewayError extends Error {
  /** No error is a gateway error when there is no gateway. */
  static isInstance(error: unknown): error is GatewayError {
    void error;
    return false;
  }
}

export class GatewayAuthenticationError extends GatewayError {}
