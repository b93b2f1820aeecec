import { SdkError, SdkErrorCode, type Client, type RequestOptions } from '@modelcontextprotocol/client';
import type { CatalogItems, CatalogKind } from './catalog';

export interface ListAllResult<K extends CatalogKind> {
  items: CatalogItems[K];
  /** Set when the server still had a next page after `maxPages` pages. */
  truncatedAfterPages?: number;
  /** The result's raw cache fields (2026 servers send them; the spec gives every page the same scope). */
  hint: { ttlMs?: unknown; cacheScope?: unknown };
}

type Raw = { ttlMs?: unknown; cacheScope?: unknown; nextCursor?: string };

/** The list method of each catalog. */
export const LIST_METHOD = {
  tools: 'tools/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
  prompts: 'prompts/list',
} as const;

/**
 * Every page of one catalog list. The SDK walks the pages itself (and
 * filters tools whose `x-mcp-header` declarations are invalid, as the 2026
 * spec requires) but throws past its page cap (`listMaxPages`, set to
 * MCP_MAX_LIST_PAGES); a server whose cursor never ends then gets a walk of
 * our own that keeps the first `maxPages` pages and says so.
 */
export async function listAll<K extends CatalogKind>(client: Client, kind: K, options: RequestOptions, maxPages: number): Promise<ListAllResult<K>> {
  try {
    const result = await aggregate(client, kind, options);
    return { items: result.items as CatalogItems[K], hint: { ttlMs: result.raw.ttlMs, cacheScope: result.raw.cacheScope } };
  } catch (error) {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded)) throw error;
  }
  const items: unknown[] = [];
  let cursor: string | undefined;
  let first: Raw | undefined;
  for (let page = 0; page < maxPages; page++) {
    const result = (await client.request({ method: LIST_METHOD[kind], params: cursor === undefined ? {} : { cursor } }, options)) as Raw &
      Record<string, unknown>;
    first ??= result;
    items.push(...((result[kind] as unknown[] | undefined) ?? []));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  const hint = { ttlMs: first?.ttlMs, cacheScope: first?.cacheScope };
  return cursor ? { items: items as CatalogItems[K], truncatedAfterPages: maxPages, hint } : { items: items as CatalogItems[K], hint };
}

async function aggregate(client: Client, kind: CatalogKind, options: RequestOptions): Promise<{ items: unknown[]; raw: Raw }> {
  switch (kind) {
    case 'tools': {
      const r = await client.listTools(undefined, options);
      return { items: r.tools, raw: r as Raw };
    }
    case 'resources': {
      const r = await client.listResources(undefined, options);
      return { items: r.resources, raw: r as Raw };
    }
    case 'resourceTemplates': {
      const r = await client.listResourceTemplates(undefined, options);
      return { items: r.resourceTemplates, raw: r as Raw };
    }
    case 'prompts': {
      const r = await client.listPrompts(undefined, options);
      return { items: r.prompts, raw: r as Raw };
    }
  }
}
