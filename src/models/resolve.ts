import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { LanguageModel } from 'ai';
import { loadConfig } from '../config';
import { ApiError } from '../errors';
import { OfflineModel } from './offline';
import { type PriceCard, priceCardOf } from '../config/price-cards';
import { logEvent } from '../observability/log';
import { type NativeToolSearch, nativeToolSearch } from './tool-search';

export interface ResolvedModel {
  model: LanguageModel;
  /** Whether resource images may be sent as image parts. */
  acceptsImages: boolean;
  /** `MODEL` as configured, for logs and message metadata. */
  spec: string;
  /**
   * How this provider's prompt cache is asked for (models/prompt-cache.ts), or
   * absent: the provider has none we can steer, or caching is off
   * (`PROMPT_CACHING=off`, or the tenant's `promptCaching: false`).
   */
  promptCache?: PromptCacheStyle | undefined;
  /**
   * What its tokens cost and how its provider caches (models/price-cards.ts), for the cost planner; absent for a
   * model whose prices we do not know (offline, Workers AI, an OpenAI-compatible server, an unknown id): the planner
   * then keeps resources on demand and asks the provider for nothing beyond its defaults.
   */
  card?: PriceCard | undefined;
  /** How its provider loads a tool definition mid-conversation without changing the tools array (tool-search.ts); absent: the portable way. */
  toolSearch?: NativeToolSearch | undefined;
  /** False: the model picks every read itself, none is made before its first step (the offline stand-in's keyword rules). */
  readsAhead?: false | undefined;
}

/**
 * - `breakpoints`: Anthropic — the request marks where a cached prefix ends (`cache_control`);
 * - `key`: OpenAI — prefixes are cached by themselves; a `prompt_cache_key` keeps a conversation's requests on one cache.
 */
export type PromptCacheStyle = 'breakpoints' | 'key';

/** What model selection may read from the Worker environment: `MODEL`, the `AI` binding, API keys and base URLs. */
export type ModelEnv = Partial<
  Pick<
    Env,
    | 'MODEL'
    | 'AI'
    | ApiKeyName
    | BaseUrlName
    | 'OPENAI_COMPATIBLE_BASE_URL'
    | 'OPENAI_COMPATIBLE_API_KEY'
    | 'PROMPT_CACHING'
  >
>;

type BaseUrlName = 'OPENAI_BASE_URL' | 'ANTHROPIC_BASE_URL';

type ApiKeyName = 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';

/**
 * `MODEL` → an AI SDK language model. Everything above this function is
 * written once against the AI SDK interface; the offline stand-in is just
 * another implementation of it. Missing keys and unknown providers are
 * reported when a turn needs the model, not at deploy time.
 */
export function resolveModel(env: ModelEnv): ResolvedModel {
  const spec = env.MODEL?.trim() || 'offline';
  if (spec === 'offline') return { model: new OfflineModel(), acceptsImages: false, spec, readsAhead: false };
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const modelId = colon < 0 ? '' : spec.slice(colon + 1);
  if (!modelId) throw notConfigured(`MODEL "${spec}" needs a model id, e.g. "anthropic:claude-sonnet-5-5"`);

  switch (provider) {
    case 'workers-ai': {
      const binding = env.AI;
      if (!binding)
        throw notConfigured(`MODEL "${spec}" needs the Workers AI binding: add [ai] binding = "AI" to wrangler.toml`);
      const model = lazyModel(provider, modelId, async () =>
        (await import('workers-ai-provider')).createWorkersAI({ binding })(modelId as never),
      );
      return { model, acceptsImages: false, spec };
    }
    // Base URLs are passed explicitly (the providers would also read process.env): a gateway such as
    // Cloudflare AI Gateway is configuration we validate and document, not an ambient default.
    case 'openai': {
      const options = { apiKey: secret(env, 'OPENAI_API_KEY', spec), ...baseUrl(env, 'OPENAI_BASE_URL', spec) };
      const model = lazyModel(provider, modelId, async () =>
        (await import('@ai-sdk/openai')).createOpenAI(options)(modelId),
      );
      return { model, acceptsImages: true, spec, ...firstParty(env, 'key', spec) };
    }
    case 'anthropic': {
      const options = { apiKey: secret(env, 'ANTHROPIC_API_KEY', spec), ...baseUrl(env, 'ANTHROPIC_BASE_URL', spec) };
      const model = lazyModel(provider, modelId, async () =>
        (await import('@ai-sdk/anthropic')).createAnthropic(options)(modelId),
      );
      return { model, acceptsImages: true, spec, ...firstParty(env, 'breakpoints', spec) };
    }
    case 'openai-compatible': {
      const baseURL = env.OPENAI_COMPATIBLE_BASE_URL;
      if (!baseURL || !URL.canParse(baseURL))
        throw notConfigured(`MODEL "${spec}" needs OPENAI_COMPATIBLE_BASE_URL (e.g. http://127.0.0.1:11434/v1)`);
      const apiKey = env.OPENAI_COMPATIBLE_API_KEY;
      const options = { name: 'openai-compatible', baseURL, ...(apiKey ? { apiKey } : {}) };
      const model = lazyModel(provider, modelId, async () =>
        (await import('@ai-sdk/openai-compatible')).createOpenAICompatible(options).chatModel(modelId),
      );
      return { model, acceptsImages: false, spec };
    }
    default:
      throw notConfigured(
        `Unknown MODEL provider "${provider}" (use offline, workers-ai:<model>, openai:<model>, anthropic:<model> or openai-compatible:<model>)`,
      );
  }
}

/**
 * The model a tenant's conversations use: the tenant's `model` (TENANTS) if
 * it has one, else `MODEL`; prompt caching as the tenant's `promptCaching`
 * says, else `PROMPT_CACHING`.
 */
export function tenantModel(env: Env, tenant: string | undefined): ResolvedModel {
  let models = resolved.get(env);
  if (!models) resolved.set(env, (models = new Map()));
  const key = tenant ?? '';
  const known = models.get(key);
  if (known) return known;
  const own = loadConfig(env).tenants?.find((t) => t.id === tenant);
  const caching = own?.promptCaching === undefined ? {} : { PROMPT_CACHING: own.promptCaching ? 'on' : 'off' };
  const model = resolveModel({ ...env, ...(own?.model ? { MODEL: own.model } : {}), ...caching });
  models.set(key, model);
  return model;
}

/** Models resolved per env object and tenant: a provider is built once per isolate, not at every call (several a turn). A model that is not configured throws and is not kept. */
const resolved = new WeakMap<object, Map<string, ResolvedModel>>();

/** Whether the tenant's model accepts images; a model that is not configured sees none (reads must not fail for it). */
export function tenantAcceptsImages(env: Env, tenant: string | undefined): boolean {
  try {
    return tenantModel(env, tenant).acceptsImages;
  } catch {
    return false;
  }
}

/**
 * A provider's model, its package imported at the first call: only the
 * configured provider's code is ever evaluated (four are bundled), and not
 * at the isolate's start. Keys and URLs are checked before, when the model
 * is resolved.
 */
function lazyModel(provider: string, modelId: string, load: () => Promise<LanguageModelV4>): LanguageModelV4 {
  let loaded: Promise<LanguageModelV4> | undefined;
  const model = () => (loaded ??= load());
  return {
    specificationVersion: 'v4',
    provider,
    modelId,
    get supportedUrls() {
      return model().then((m) => m.supportedUrls);
    },
    doGenerate: async (options) => (await model()).doGenerate(options),
    doStream: async (options) => (await model()).doStream(options),
  };
}

/** On unless `PROMPT_CACHING` is `off` (validated with the other settings: src/config/settings.ts). */
/** Models already warned about: one line per model id and isolate, not one per turn. */
const unpriced = new Set<string>();

/** The model's price card; for a model of a priced provider we have none for, one warning (not an error: it runs, on demand). */
function priced(spec: string): { card?: PriceCard } {
  const card = priceCardOf(spec);
  if (card) return { card };
  if (!unpriced.has(spec)) {
    unpriced.add(spec);
    logEvent(
      'model.unpriced',
      {
        model: spec,
        reason:
          'no price card for this model (src/models/price-cards.ts): resources stay on demand and the provider gets its default caching',
      },
      'warn',
    );
  }
  return {};
}

/** What a first-party provider's model (OpenAI, Anthropic) has beyond the others: caching, a price card, tool loading. */
function firstParty(
  env: ModelEnv,
  style: PromptCacheStyle,
  spec: string,
): Pick<ResolvedModel, 'promptCache' | 'card' | 'toolSearch'> {
  const colon = spec.indexOf(':');
  const toolSearch = nativeToolSearch(spec.slice(0, colon), spec.slice(colon + 1));
  return { ...caching(env, style), ...priced(spec), ...(toolSearch ? { toolSearch } : {}) };
}

function caching(env: ModelEnv, style: PromptCacheStyle): Pick<ResolvedModel, 'promptCache'> {
  return env.PROMPT_CACHING === 'off' ? {} : { promptCache: style };
}

function baseUrl(env: ModelEnv, name: BaseUrlName, spec: string): { baseURL?: string } {
  const value = env[name]?.trim();
  if (!value) return {};
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw notConfigured(
      `MODEL "${spec}": ${name} must be an http(s) URL, e.g. https://gateway.ai.cloudflare.com/v1/<account>/<gateway>/${name.startsWith('OPENAI') ? 'openai' : 'anthropic'}`,
    );
  return { baseURL: value };
}

function secret(env: ModelEnv, name: ApiKeyName, spec: string): string {
  const value = env[name];
  if (!value) throw notConfigured(`MODEL "${spec}" needs the secret ${name} (wrangler secret put ${name})`);
  return value;
}

const notConfigured = (message: string) => new ApiError(500, 'model_not_configured', message);
