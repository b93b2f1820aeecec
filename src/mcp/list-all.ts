import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CatalogItems, CatalogKind } from './catalog';

export interface ListAllResult<K extends CatalogKind> {
  items: CatalogItems[K];
  /** Set when the server still had a next page after `maxPages` pages. */
  truncatedAfterPages?: number;
}

/** Follows `nextCursor` through every page of one catalog list. */
export async function listAll<K extends CatalogKind>(
  client: Client,
  kind: K,
  options: RequestOptions,
  maxPages: number,
): Promise<ListAllResult<K>> {
  const items: unknown[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = await listPage(client, kind, params, options);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (!cursor) return { items: items as CatalogItems[K] };
  }
  return { items: items as CatalogItems[K], truncatedAfterPages: maxPages };
}

async function listPage(client: Client, kind: CatalogKind, params: { cursor?: string }, options: RequestOptions) {
  switch (kind) {
    case 'tools': {
      const r = await client.listTools(params, options);
      return { items: r.tools, nextCursor: r.nextCursor };
    }
    case 'resources': {
      const r = await client.listResources(params, options);
      return { items: r.resources, nextCursor: r.nextCursor };
    }
    case 'resourceTemplates': {
      const r = await client.listResourceTemplates(params, options);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    }
    case 'prompts': {
      const r = await client.listPrompts(params, options);
      return { items: r.prompts, nextCursor: r.nextCursor };
    }
  }
}
