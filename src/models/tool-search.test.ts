import { describe, expect, it } from 'vitest';
import { nativeToolSearch } from './tool-search';

describe('nativeToolSearch', () => {
  it('Claude 4.5 and later load deferred tools by reference; earlier Claude models do not', () => {
    for (const id of [
      'claude-sonnet-4-5',
      'claude-sonnet-4-5-20250929',
      'claude-haiku-4-5',
      'claude-opus-4-8',
      'claude-sonnet-5-5',
      'claude-fable-5',
    ])
      expect(nativeToolSearch('anthropic', id), id).toBe('anthropic');
    for (const id of ['claude-sonnet-4-0', 'claude-sonnet-4-20250514', 'claude-opus-4-1', 'claude-3-haiku-20240307'])
      expect(nativeToolSearch('anthropic', id), id).toBeUndefined();
  });

  it('OpenAI gpt-5.4 and later take additional tools; gpt-4.1, gpt-5 and o-series do not', () => {
    for (const id of ['gpt-5.4', 'gpt-5.6-mini', 'gpt-6', 'gpt-6.1-terra'])
      expect(nativeToolSearch('openai', id), id).toBe('openai');
    for (const id of ['gpt-4.1', 'gpt-4.1-mini', 'gpt-5', 'gpt-5.2', 'o3'])
      expect(nativeToolSearch('openai', id), id).toBeUndefined();
  });

  it('other providers: the portable way', () => {
    expect(nativeToolSearch('workers-ai', '@cf/meta/llama-3.3-70b-instruct-fp8-fast')).toBeUndefined();
    expect(nativeToolSearch('openai-compatible', 'gpt-6')).toBeUndefined();
  });
});
