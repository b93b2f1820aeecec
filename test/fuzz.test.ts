import { describe, expect, it } from 'vitest';
import { api, createConversation } from './helpers/api';

/**
 * Fuzz-style robustness: ≥ 1,000 malformed or random bodies per endpoint.
 * Every answer must be a 4xx JSON error ({error:{code,message}}), never a
 * 5xx or a crash, and the service must still serve a valid request after.
 * Deterministic (seeded), so a failure reproduces.
 */
function rng(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

function randomValue(next: () => number, depth = 0): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return Math.floor(next() * 2e9) - 1e9;
    case 3:
      return String.fromCharCode(...Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 0xd7ff)));
    case 4:
      return [
        '',
        'task://guidelines',
        '../../etc/passwd',
        'http://169.254.169.254/',
        '<script>',
        '{"a":1}',
        'demo',
        'ref/prompt',
      ][Math.floor(next() * 8)];
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const keys = [
        'text',
        'message',
        'messages',
        'server',
        'uri',
        'name',
        'arguments',
        'ref',
        'argument',
        'toolCallId',
        'approved',
        'attachments',
        'url',
        'offset',
        'role',
        'parts',
        'type',
        'context',
      ];
      return Object.fromEntries(
        Array.from({ length: Math.floor(next() * 5) }, () => [
          keys[Math.floor(next() * keys.length)]!,
          randomValue(next, depth + 1),
        ]),
      );
    }
  }
}

function randomBody(next: () => number): string {
  const shape = next();
  if (shape < 0.15)
    return String.fromCharCode(...Array.from({ length: Math.floor(next() * 60) }, () => Math.floor(next() * 256))); // garbage
  if (shape < 0.25) return JSON.stringify(randomValue(next)).slice(0, Math.floor(next() * 30)); // truncated JSON
  return JSON.stringify(randomValue(next));
}

const ENDPOINTS = ['messages', 'resources/read', 'prompts/run', 'complete', 'approvals'];

describe('fuzzing every POST endpoint', () => {
  it.each(ENDPOINTS)('POST /v1/conversations/:id/%s: 1,000 random bodies → only 4xx JSON errors', async (endpoint) => {
    const id = await createConversation();
    const next = rng(endpoint.length * 7919);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 1_000; i++) {
      const body = randomBody(next);
      const contentType = next() < 0.9 ? 'application/json' : 'text/plain';
      const response = await api(`/v1/conversations/${id}/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 200) {
        await response.body?.cancel(); // a random body that happened to be valid: fine
        continue;
      }
      expect(response.status, `${endpoint} ${body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${endpoint} ${body.slice(0, 200)}`).toBeLessThan(500);
      const json = await response.json<{ error?: { code?: unknown; message?: unknown } }>();
      expect(typeof json.error?.code).toBe('string');
      expect(typeof json.error?.message).toBe('string');
    }
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);

    const valid = await api(`/v1/conversations/${id}/resources/read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'demo', uri: 'task://guidelines' }),
    });
    expect(valid.status).toBe(200);
  });
});

describe('security headers', () => {
  it('API responses, streams included, say they are not pages', async () => {
    const id = await createConversation();
    const responses = [
      await api(`/v1/conversations/${id}`),
      await api(`/v1/conversations/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'What do the team guidelines say?' }),
      }),
      await api('/v1/conversations/not-an-id'),
    ];
    for (const response of responses) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(response.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      await response.body?.cancel();
    }
  });
});
