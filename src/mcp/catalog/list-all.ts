import { SdkError, SdkErrorCode, type Client, type RequestOptions } from '@modelcontextprotocol/client';
import { SKILLS_LIST_METHOD, SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { CatalogItems, CatalogKind } from './catalog';

export interface ListAllResult<K extends CatalogKind> {
  items: CatalogItems[K];
  /** Set when the server still had a next page after `maxPages` pages. */
  truncatedAfterPages?: number;
  /** The result's raw cache fields (2026 servers send them; the spec gives every page the same scope). */
  hint: { ttlMs?: unknown; cacheScope?: unknown };
  /** Entries the SDK refused (skills: a name, description or file list the extension forbids), dropped from `items`. */
  invalid?: Array<{ uri?: string | undefined; reason: string }>;
}

type Raw = { ttlMs?: unknown; cacheScope?: unknown; nextCursor?: string };

/** The first page of one catalog list, for what it says of the server (probe.ts): skills through the SDK's SkillsClient, which knows each era's envelope. */
export function firstPage(client: Client, kind: CatalogKind, options: RequestOptions): Promise<unknown> {
  if (kind === 'skills') return new SkillsClient(client, { skipInvalid: true }).list({ cursor: undefined }, options);
  return client.request({ method: LIST_METHOD[kind], params: {} }, options);
}

/** The list method of each catalog. */
export const LIST_METHOD = {
  tools: 'tools/list',
  resources: 'resources/list',
  resourceTemplates: 'resources/templates/list',
  prompts: 'prompts/list',
  skills: SKILLS_LIST_METHOD,
} as const;

/**
 * Every page of one catalog list. The SDK walks the pages itself (and
 * filters tools whose `x-mcp-header` declarations are invalid, as the 2026
 * spec requires) but throws past its page cap (`listMaxPages`, set to
 * MCP_MAX_LIST_PAGES); a server whose cursor never ends then gets a walk of
 * our own that keeps the first `maxPages` pages and says so.
 */
export async function listAll<K extends CatalogKind>(
  client: Client,
  kind: K,
  options: RequestOptions,
  maxPages: number,
): Promise<ListAllResult<K>> {
  if (kind === 'skills') return (await listSkills(client, options, maxPages)) as ListAllResult<K>;
  try {
    const result = await aggregate(client, kind, options);
    return {
      items: result.items as CatalogItems[K],
      hint: { ttlMs: result.raw.ttlMs, cacheScope: result.raw.cacheScope },
    };
  } catch (error) {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded)) throw error;
  }
  const items: unknown[] = [];
  let cursor: string | undefined;
  let first: Raw | undefined;
  for (let page = 0; page < maxPages; page++) {
    const method = LIST_METHOD[kind as Exclude<CatalogKind, 'skills'>];
    const result = (await client.request({ method, params: cursor === undefined ? {} : { cursor } }, options)) as Raw &
      Record<string, unknown>;
    first ??= result;
    items.push(...((result[kind] as unknown[] | undefined) ?? []));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  const hint = { ttlMs: first?.ttlMs, cacheScope: first?.cacheScope };
  return cursor
    ? { items: items as CatalogItems[K], truncatedAfterPages: maxPages, hint }
    : { items: items as CatalogItems[K], hint };
}

async function aggregate(
  client: Client,
  kind: CatalogKind,
  options: RequestOptions,
): Promise<{ items: unknown[]; raw: Raw }> {
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
    case 'skills':
      throw new Error('skills are listed by listSkills');
  }
}

/**
 * `skills/list` (MCP Skills extension) through the SDK's SkillsClient, which
 * speaks each era's envelope and checks every entry as the extension says
 * (names, descriptions, file lists): entries it refuses are dropped and
 * reported, not the list. Past `maxPages`, the pages so far.
 */
async function listSkills(client: Client, options: RequestOptions, maxPages: number): Promise<ListAllResult<'skills'>> {
  const skills = new SkillsClient(client, { skipInvalid: true });
  try {
    const listing = await skills.list({}, options);
    return {
      items: listing.skills,
      hint: { ttlMs: listing.ttlMs, cacheScope: listing.cacheScope },
      invalid: listing.invalid,
    };
  } catch (error) {
    if (!(error instanceof SdkError && error.code === SdkErrorCode.ListPaginationExceeded)) throw error;
  }
  const items: CatalogItems['skills'] = [];
  const invalid: NonNullable<ListAllResult<'skills'>['invalid']> = [];
  let cursor: string | undefined;
  let hint: ListAllResult<'skills'>['hint'] = {};
  for (let page = 0; page < maxPages; page++) {
    const listing = await skills.list(cursor === undefined ? {} : { cursor }, options);
    if (page === 0) hint = { ttlMs: listing.ttlMs, cacheScope: listing.cacheScope };
    items.push(...listing.skills);
    invalid.push(...listing.invalid);
    cursor = listing.nextCursor;
    if (!cursor) break;
  }
  return { items, hint, invalid, ...(cursor ? { truncatedAfterPages: maxPages } : {}) };
}
