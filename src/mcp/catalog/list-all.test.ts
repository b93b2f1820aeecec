import { type Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { listAll } from './list-all';

const resource = (i: number) => ({ uri: `docs://${i}`, name: `doc-${i}` });
const TOO_MANY = () => new SdkError(SdkErrorCode.ListPaginationExceeded, 'too many pages');

/** A client whose SDK walk throws `sdkError`; `request` serves `pages` by cursor (next cursor: the next page's index). */
function fakeClient(
  pages: Array<{ resources: unknown[]; nextCursor?: string; ttlMs?: number; cacheScope?: string }>,
  sdkError = TOO_MANY(),
) {
  const requests: Array<{ method: string; params: unknown }> = [];
  const client = {
    listResources: async () => {
      throw sdkError;
    },
    request: async (req: { method: string; params: { cursor?: string } }) => {
      requests.push(req);
      return pages[Number(req.params.cursor ?? 0)];
    },
  } as unknown as Client;
  return { client, requests };
}

describe('listAll', () => {
  it("the SDK's own walk: its items, with the result's cache fields as the hint", async () => {
    const options = { timeout: 1_000 };
    const seen: unknown[] = [];
    const client = {
      listPrompts: async (_params: unknown, opts: unknown) => {
        seen.push(opts);
        return { prompts: [{ name: 'summarise' }], ttlMs: 60_000, cacheScope: 'shared' };
      },
    } as unknown as Client;
    expect(await listAll(client, 'prompts', options, 5)).toEqual({
      items: [{ name: 'summarise' }],
      hint: { ttlMs: 60_000, cacheScope: 'shared' },
    });
    expect(seen).toEqual([options]);
  });

  it("past the SDK's page cap: our own walk follows the cursors to the last page", async () => {
    const { client, requests } = fakeClient([
      { resources: [resource(0), resource(1)], nextCursor: '1', ttlMs: 5_000, cacheScope: 'user' },
      { resources: [resource(2)], nextCursor: '2' },
      { resources: [resource(3)] },
    ]);
    const result = await listAll(client, 'resources', {}, 10);
    expect(result).toEqual({ items: [0, 1, 2, 3].map(resource), hint: { ttlMs: 5_000, cacheScope: 'user' } });
    expect(requests).toEqual([
      { method: 'resources/list', params: {} },
      { method: 'resources/list', params: { cursor: '1' } },
      { method: 'resources/list', params: { cursor: '2' } },
    ]);
  });

  it('a cursor that never ends: the first maxPages pages are kept, and the result says it was cut', async () => {
    const endless = Array.from({ length: 100 }, (_, i) => ({ resources: [resource(i)], nextCursor: String(i + 1) }));
    const { client, requests } = fakeClient(endless);
    const result = await listAll(client, 'resources', {}, 3);
    expect(result.items).toEqual([0, 1, 2].map(resource));
    expect(result.truncatedAfterPages).toBe(3);
    expect(requests).toHaveLength(3);
  });

  it('any other error is thrown, not walked around', async () => {
    const { client, requests } = fakeClient(
      [{ resources: [] }],
      new SdkError(SdkErrorCode.RequestTimeout, 'timed out'),
    );
    await expect(listAll(client, 'resources', {}, 3)).rejects.toThrow('timed out');
    expect(requests).toEqual([]);
  });
});
