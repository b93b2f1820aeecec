import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { createWorkersAI } from 'workers-ai-provider';
import { loadConfig } from '../config';
import { ApiError } from '../errors';
import { OfflineModel } from './offline-model';

export interface ResolvedModel {
  model: LanguageModel;
  /** Whether resource images may be sent as image parts. */
  acceptsImages: boolean;
  /** `MODEL` as configured, for logs and message metadata. */
  spec: string;
}

/** What model selection may read from the Worker environment: `MODEL`, the `AI` binding, API keys. */
export type ModelEnv = Partial<Pick<Env, 'MODEL' | 'AI' | ApiKeyName | 'OPENAI_COMPATIBLE_BASE_URL' | 'OPENAI_COMPATIBLE_API_KEY'>>;

type ApiKeyName = 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';

/**
 * `MODEL` → an AI SDK language model. Everything above this function is
 * written once against the AI SDK interface; the offline stand-in is just
 * another implementation of it. Missing keys and unknown providers are
 * reported when a turn needs the model, not at deploy time.
 */
export function resolveModel(env: ModelEnv): ResolvedModel {
  const spec = env.MODEL?.trim() || 'offline';
  if (spec === 'offline') return { model: new OfflineModel(), acceptsImages: false, spec };
  const colon = spec.indexOf(':');
  const provider = colon < 0 ? spec : spec.slice(0, colon);
  const modelId = colon < 0 ? '' : spec.slice(colon + 1);
  if (!modelId) throw notConfigured(`MODEL "${spec}" needs a model id, e.g. "openai:gpt-4.1-mini"`);

  switch (provider) {
    case 'workers-ai': {
      if (!env.AI) throw notConfigured(`MODEL "${spec}" needs the Workers AI binding: add "ai": { "binding": "AI" } to wrangler.jsonc`);
      return { model: createWorkersAI({ binding: env.AI })(modelId as never), acceptsImages: false, spec };
    }
    case 'openai':
      return { model: createOpenAI({ apiKey: secret(env, 'OPENAI_API_KEY', spec) })(modelId), acceptsImages: true, spec };
    case 'anthropic':
      return { model: createAnthropic({ apiKey: secret(env, 'ANTHROPIC_API_KEY', spec) })(modelId), acceptsImages: true, spec };
    case 'openai-compatible': {
      const baseURL = env.OPENAI_COMPATIBLE_BASE_URL;
      if (!baseURL || !URL.canParse(baseURL)) throw notConfigured(`MODEL "${spec}" needs OPENAI_COMPATIBLE_BASE_URL (e.g. http://127.0.0.1:11434/v1)`);
      const apiKey = env.OPENAI_COMPATIBLE_API_KEY;
      return {
        model: createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey ? { apiKey } : {}) }).chatModel(modelId),
        acceptsImages: false,
        spec,
      };
    }
    default:
      throw notConfigured(
        `Unknown MODEL provider "${provider}" (use offline, workers-ai:<model>, openai:<model>, anthropic:<model> or openai-compatible:<model>)`,
      );
  }
}

/** The model a tenant's conversations use: the tenant's `model` (TENANTS) if it has one, else `MODEL`. */
export function tenantModel(env: Env, tenant: string | undefined): ResolvedModel {
  const own = loadConfig(env).tenants?.find((t) => t.id === tenant)?.model;
  return resolveModel(own ? { ...env, MODEL: own } : env);
}

/** Whether the tenant's model accepts images; a model that is not configured sees none (reads must not fail for it). */
export function tenantAcceptsImages(env: Env, tenant: string | undefined): boolean {
  try {
    return tenantModel(env, tenant).acceptsImages;
  } catch {
    return false;
  }
}

function secret(env: ModelEnv, name: ApiKeyName, spec: string): string {
  const value = env[name];
  if (!value) throw notConfigured(`MODEL "${spec}" needs the secret ${name} (wrangler secret put ${name})`);
  return value;
}

const notConfigured = (message: string) => new ApiError(500, 'model_not_configured', message);
