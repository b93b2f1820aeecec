// The modules wrangler.toml's `alias` replaces with src/shims/ (vitest.config.ts
// applies the same aliases): each is in effect, what we use still works, and
// the code paths they cut off fail with an error that names the shim.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

describe('bundle shims (wrangler.toml `alias`)', () => {
  it('zod keeps its English messages and only the English locale', () => {
    expect(Object.keys(z.locales)).toEqual(['en']);
    expect(z.string().safeParse(5).error?.issues[0]?.message).toBe('Invalid input: expected string, received number');
  });

  it('@ai-sdk/gateway: model objects work as before; a string model id fails naming the shim', async () => {
    await expect(generateText({ model: 'openai/gpt-4.1-mini', prompt: 'hi' })).rejects.toThrow(
      /@ai-sdk\/gateway is not bundled/,
    );
  });

  it('provider chat models are created as before; the experimental decision/extraction factories are cut off', () => {
    expect(createOpenAI({ apiKey: 'k' })('gpt-4.1-mini').modelId).toBe('gpt-4.1-mini');
    expect(createAnthropic({ apiKey: 'k' })('claude-sonnet-4-5').modelId).toBe('claude-sonnet-4-5');
    expect(() => createOpenAI({ apiKey: 'k' }).extractionModel('gpt-4.1-mini')).toThrow(/not bundled/);
    expect(() => createAnthropic({ apiKey: 'k' }).decisionModel('claude-sonnet-4-5')).toThrow(/not bundled/);
  });

  it('the MCP SDK workerd shims: the same exports, schemas built on first use (no preloadSchemas at import)', async () => {
    const client = await import('@modelcontextprotocol/client/_shims');
    const server = await import('@modelcontextprotocol/server/_shims');
    const { CfWorkerJsonSchemaValidator } = await import('@modelcontextprotocol/client/validators/cf-worker');
    expect((client as { SCHEMAS?: string }).SCHEMAS).toBe('on first use');
    expect((server as { SCHEMAS?: string }).SCHEMAS).toBe('on first use');
    expect(client.DefaultJsonSchemaValidator).toBe(CfWorkerJsonSchemaValidator);
    expect(client.CORS_IS_POSSIBLE).toBe(false);
    expect(() => (server.process as unknown as { stdin: unknown }).stdin).toThrow(
      /StdioServerTransport is not supported/,
    );
    // Built when first asked for: a message checked by the client's schemas still parses (and a bad one does not).
    const { isJSONRPCRequest } = await import('@modelcontextprotocol/client');
    expect(isJSONRPCRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(true);
    expect(isJSONRPCRequest({ jsonrpc: '2.0', method: 'tools/list' })).toBe(false);
  });
});
