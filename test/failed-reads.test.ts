import { ProtocolError } from '@modelcontextprotocol/client';
import { inject } from 'vitest';
import { describe, expect, it } from 'vitest';
import { isResourceNotFound } from '../src/mcp/connection/errors';
import { createConversation, postJson } from './helpers/api';
import { waitFor } from './helpers/demo-client';

// A read that fails: the right status, and the URI is not left subscribed (holding a MAX_SUBSCRIBED_URIS slot and
// drawing notifications for something nothing caches).
const control = inject('faultControlUrl');
const v2 = inject('v2Url');
const LENIENT = { authorization: 'Bearer test-key-lenient', 'x-end-user': 'alice' };

const proxyMethods = async () =>
  (await (await fetch(`${control}/state`)).json<{ methods: Record<string, number> }>()).methods;
const listenFilters = async (key: string) =>
  (
    await (
      await fetch(`${v2}/__control/${key}/state`)
    ).json<{ listenFilters: Array<{ resourceSubscriptions?: string[] } | null> }>()
  ).listenFilters;

describe('a read that fails', () => {
  it('server-everything (2025): "Unknown resource" sent as -32603 is a 404, and the subscription made for it is undone', async () => {
    const id = await createConversation();
    const before = await proxyMethods();
    // "faulty" is server-everything behind the counting proxy; its blob template takes positive integer ids only.
    const response = await postJson(`/v1/conversations/${id}/resources/read`, {
      server: 'faulty',
      uri: 'demo://resource/dynamic/text/abc',
    });
    expect(response.status).toBe(404);
    const body = await response.json<{ error: { code: string; message: string } }>();
    expect(body.error.code).toBe('resource_not_found');
    expect(body.error.message).toContain('Unknown resource: demo://resource/dynamic/text/abc');
    const count = (methods: Record<string, number>, method: string) => (methods[method] ?? 0) - (before[method] ?? 0);
    await waitFor(
      async () => (count(await proxyMethods(), 'resources/unsubscribe') === 1 ? true : undefined),
      'the unsubscribe',
    );
    expect(count(await proxyMethods(), 'resources/subscribe')).toBe(1);
  });

  it('a 2026 server: the listen stream is narrowed again without the URI; the next read listens for its own only', async () => {
    const id = await createConversation(LENIENT);
    const missing = 'v2://notes/missing';
    const response = await postJson(
      `/v1/conversations/${id}/resources/read`,
      { server: 'broken', uri: missing },
      LENIENT,
    );
    expect(response.status).toBe(404);
    // It was asked for before the read (a change between read and subscription must not be missed), then dropped.
    await waitFor(async () => {
      const filters = await listenFilters('bent-break-strict');
      const asked = filters.findLastIndex((f) => f?.resourceSubscriptions?.includes(missing));
      return asked >= 0 && filters.length > asked + 1 && !filters.at(-1)?.resourceSubscriptions?.includes(missing)
        ? true
        : undefined;
    }, 'a narrower listen');
    expect(
      (
        await postJson(
          `/v1/conversations/${id}/resources/read`,
          { server: 'broken', uri: 'v2://notes/public' },
          LENIENT,
        )
      ).status,
    ).toBe(200);
    const last = (await listenFilters('bent-break-strict')).at(-1);
    expect(last?.resourceSubscriptions).toContain('v2://notes/public');
    expect(last?.resourceSubscriptions).not.toContain(missing);
  });

  it('an internal error is a 404 only when all it says is "not found"', () => {
    const internal = (message: string) => new ProtocolError(-32603, message);
    expect(isResourceNotFound(internal('Unknown resource: demo://resource/dynamic/text/abc'))).toBe(true);
    expect(isResourceNotFound(internal('Resource file:///x.md not found'))).toBe(true);
    expect(isResourceNotFound(internal('No such resource'))).toBe(true);
    expect(isResourceNotFound(internal('database connection not found in pool; retry later'))).toBe(false);
    expect(isResourceNotFound(internal('Internal error'))).toBe(false);
  });
});
