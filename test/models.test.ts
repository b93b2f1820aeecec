import { describe, expect, it } from 'vitest';
import type { ApiError } from '../src/errors';
import { resolveModel, type ModelEnv } from '../src/models/resolve';
import { OfflineModel } from '../src/models/offline';

function configError(env: ModelEnv): ApiError {
  try {
    resolveModel(env);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected model_not_configured');
}

describe('MODEL', () => {
  it('defaults to the offline stand-in', () => {
    expect(resolveModel({}).model).toBeInstanceOf(OfflineModel);
    expect(resolveModel({ MODEL: 'offline' }).spec).toBe('offline');
  });

  it('builds each provider when its key or binding is there, without calling it', () => {
    expect(resolveModel({ MODEL: 'openai:gpt-4.1-mini', OPENAI_API_KEY: 'k' })).toMatchObject({
      spec: 'openai:gpt-4.1-mini',
      acceptsImages: true,
    });
    expect(resolveModel({ MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      acceptsImages: true,
    });
    expect(
      resolveModel({ MODEL: 'openai-compatible:llama3', OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1' }),
    ).toMatchObject({
      acceptsImages: false,
    });
    expect(resolveModel({ MODEL: 'workers-ai:@cf/meta/llama-3.3-70b-instruct-fp8-fast', AI: {} as Ai })).toMatchObject({
      acceptsImages: false,
    });
  });

  it.each([
    [{ MODEL: 'openai:gpt-4.1-mini' }, 'OPENAI_API_KEY'],
    [{ MODEL: 'anthropic:claude-sonnet-4-5' }, 'ANTHROPIC_API_KEY'],
    [{ MODEL: 'openai-compatible:llama3' }, 'OPENAI_COMPATIBLE_BASE_URL'],
    [{ MODEL: 'workers-ai:@cf/meta/llama' }, 'AI binding'],
    [{ MODEL: 'mistral:large' }, 'Unknown MODEL provider "mistral"'],
    [{ MODEL: 'openai:' }, 'needs a model id'],
    [
      { MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'gateway.example' },
      'ANTHROPIC_BASE_URL must be an http(s) URL',
    ],
    [
      { MODEL: 'openai:gpt-4.1', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'ftp://gateway.example/v1' },
      'OPENAI_BASE_URL must be an http(s) URL',
    ],
  ])('%o → a clear error naming %s', (env, expected) => {
    const error = configError(env);
    expect(error.status).toBe(500);
    expect(error.code).toBe('model_not_configured');
    expect(error.message).toContain(expected);
  });
});

describe('prompt caching', () => {
  it('is on by default for the providers that have one, off with PROMPT_CACHING=off, absent for the others', () => {
    expect(resolveModel({ MODEL: 'anthropic:claude-sonnet-4-5', ANTHROPIC_API_KEY: 'k' }).promptCache).toBe(
      'breakpoints',
    );
    expect(resolveModel({ MODEL: 'openai:gpt-4.1', OPENAI_API_KEY: 'k' }).promptCache).toBe('key');
    expect(
      resolveModel({ MODEL: 'openai:gpt-4.1', OPENAI_API_KEY: 'k', PROMPT_CACHING: 'off' }).promptCache,
    ).toBeUndefined();
    expect(
      resolveModel({ MODEL: 'openai-compatible:llama3', OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1' })
        .promptCache,
    ).toBeUndefined();
    expect(resolveModel({}).promptCache).toBeUndefined();
  });
});

describe('the offline stand-in calling MCP tools', () => {
  const tools = [
    {
      type: 'function' as const,
      name: 'demo__create_task',
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, estimateHours: { type: 'number' }, assignee: { type: 'string' } },
      },
    },
    { type: 'function' as const, name: 'read_resource', inputSchema: { type: 'object', properties: {} } },
  ];
  const ask = async (text: string) =>
    (await new OfflineModel().doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text }] }], tools }))
      .content[0];

  it('calls a tool the user names verbatim, with its name=value arguments typed by the schema', async () => {
    expect(await ask('create_task title="Write release notes" estimateHours=2')).toMatchObject({
      type: 'tool-call',
      toolName: 'demo__create_task',
      input: JSON.stringify({ title: 'Write release notes', estimateHours: 2 }),
    });
  });

  it('does not call a tool for a question that only talks about its subject', async () => {
    expect(await ask('How do I create a task for the release?')).toMatchObject({ type: 'text' });
  });
});
