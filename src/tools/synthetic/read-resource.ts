import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { score, terms, WEIGHT } from '../../prompt/relevance';
import { renderResource, type ModelView } from '../../prompt/render';
import { viewResource } from '../../prompt/resource-view';
import { ApiError } from '../../errors';
import type { ServerState } from '../../mcp/catalog/catalog';
import { isToolResultUri } from '../large-results';
import { toModelOutput } from '../model-output';
import { pageStart } from '../../documents/pages';
import { charged } from './budget';
import type { ToolHost } from './tool-host';
import type { SyntheticTool } from './tool';

/** Converted to JSON Schema once per isolate: a bare zod object given to `tool()` is converted again at every step (≈ 1.3 ms a step, measured). */
const INPUT = zodSchema(
  z.object({
    uri: z.string().min(1).describe('The resource URI'),
    server: z.string().optional().describe('Server id; needed only when several servers have the URI'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Character offset of the part to read (from the previous part)'),
    page: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "A document's page (slide, sheet) to read from, instead of offset; a scanned page (no text layer) comes as its image",
      ),
  }),
);

/** Tool output of `read_resource`: the model view plus where it came from. */
export interface ReadResourceOutput extends ModelView {
  server: string;
  uri: string;
  cache: 'memory' | 'kv' | 'miss' | 'catalog';
  /** When the copy read was fetched from its server (the answer's sources say it: turn/sources.ts). */
  fetchedAt?: number;
}

/** One resource (or long tool result) by URI, a window at a time; binaries described, images as image parts where the model takes them. */
export const readResource: SyntheticTool = {
  name: 'read_resource',
  group: 'read',
  reads: true,
  // Tool results past one window are read on with read_resource too.
  offeredWhen: (facts) => facts.readable || facts.anyTools,
  sentence: (facts) =>
    facts.catalogLines > 0
      ? 'Resources are listed, not included, one per line: URI, title, [type size], description. Call read_resource with a URI to read one; long text comes in parts (each says how to get the next).'
      : 'read_resource reads a resource or tool result by URI; long text comes in parts (each says how to get the next).',
  create: (host) =>
    tool({
      description:
        "Read one resource by URI (from the catalog, a filled-in template, or a resource link). Long text comes in parts: pass the offset the previous part gives to get the next one, or a document's page. Binary content is described, not shown.",
      inputSchema: INPUT,
      execute: async ({ uri, server, offset, page }): Promise<ReadResourceOutput> =>
        readForModel(host, uri, server, offset, page),
      toModelOutput: ({ output }) => toModelOutput(output),
    }),
};

async function readForModel(
  host: ToolHost,
  uri: string,
  server: string | undefined,
  offset: number | undefined,
  page: number | undefined,
): Promise<ReadResourceOutput> {
  if (isToolResultUri(uri)) return charged(host, uri, readLargeResult(host, uri, offset, page));
  let view: Awaited<ReturnType<typeof viewResource>>;
  try {
    view = await viewResource(
      host.sessions,
      { server, uri },
      {
        windowChars: host.settings.READ_WINDOW_CHARS,
        ...(offset === undefined ? {} : { offset }),
        page,
        images: host.acceptsImages,
        maxImageBytes: host.settings.INLINE_IMAGE_MAX_BYTES,
        reuseSince: host.turnStartedAt,
        connect: false,
      },
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === 'resource_not_found') {
      const near = closestUris(uri, host.states);
      throw new Error(`${error.message}${near.length ? `. Closest known URIs: ${near.join(', ')}` : ''}`);
    }
    throw new Error(error instanceof Error ? error.message : String(error));
  }
  const fetchedAt = view.fetchedAt;
  if (view.cache === 'catalog') return { server: view.server, uri, cache: 'catalog', fetchedAt, ...view.model };
  return charged(host, uri, { server: view.server, uri, cache: view.cache, fetchedAt, ...view.model });
}

/** A window of a long tool result kept by this conversation (a document in it: named by its own URI, with its pages). */
function readLargeResult(
  host: ToolHost,
  uri: string,
  offset: number | undefined,
  page: number | undefined,
): ReadResourceOutput {
  const kept = host.largeResults?.get(uri);
  if (!kept) throw new Error(`No tool result ${uri} is kept in this conversation`);
  const entry = kept.source
    ? { uri: kept.source.uri, mimeType: 'text/markdown', document: kept.source.document }
    : { uri, mimeType: 'text/plain' };
  const contents = [{ ...entry, text: kept.text, size: kept.text.length }];
  // A page of a document that came in a tool result: its text only (the result kept no bytes to cut an image from).
  const start = page === undefined ? undefined : pageStart(contents, page);
  if (start && 'problem' in start) throw new Error(`Tool result ${uri}: ${start.problem}`);
  const model = renderResource(
    { server: kept.server, uri, contents },
    {
      windowChars: host.settings.READ_WINDOW_CHARS,
      ...(start ? { offset: start.offset } : offset === undefined ? {} : { offset }),
      images: false,
      maxImageBytes: 0,
    },
  );
  return { server: kept.server, uri, cache: 'memory', ...model };
}

/** Known URIs that look most like `uri`: shared words first, then a shared prefix. */
export function closestUris(uri: string, states: ServerState[], limit = 5): string[] {
  const wanted = terms(uri);
  return states
    .flatMap((s) => [...s.resources.map((r) => r.uri), ...s.resourceTemplates.map((t) => t.uriTemplate)])
    .map((candidate) => ({
      candidate,
      relevance: score(wanted, { fields: [[candidate, WEIGHT.uri]] }) + commonPrefix(candidate, uri) / 100,
    }))
    .filter((c) => c.relevance > 0)
    .sort((a, b) => b.relevance - a.relevance)
    .slice(0, limit)
    .map((c) => c.candidate);
}

const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};
