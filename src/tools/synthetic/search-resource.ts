import type { DocumentInfo } from '../../../shared/api/resources';
import { partsLabel } from '../../documents/pages';
import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { searchHeader } from '../../prompt/markers';
import { wrapPassage } from '../../prompt/render';
import { shownAsText } from '../../mcp/contents';
import { isToolResultUri } from '../large-results';
import { searchPassages } from '../passage-search';
import { charge } from './budget';
import { asToolError, type ToolHost } from './tool-host';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    uri: z.string().min(1).describe('The resource URI'),
    query: z.string().min(1).describe('Words to look for'),
    server: z.string().optional().describe('Server id; needed only when several servers have the URI'),
  }),
);

const PASSAGE_CHARS = 800;
const PASSAGES = 5;

/** The passages of a long text that match a query (BM25, passage-search.ts), each with its offset to read on from. */
export const searchResource: SyntheticTool = {
  name: 'search_resource',
  group: 'read',
  reads: true,
  offeredWhen: (facts) => (facts.readable && facts.longOrUnknown) || facts.templates > 0 || facts.anyTools,
  sentence: () =>
    'search_resource({uri, query}) finds the passages of a long text (marked "long") without reading it all.',
  create: (host) =>
    tool({
      description:
        'Find the passages of a long resource (or long tool result) that match a query, best first, each with the offset to read on from with read_resource. Much cheaper than reading it all.',
      inputSchema: INPUT,
      execute: async ({ uri, query, server }) => searchForModel(host, uri, server, query),
    }),
};

/** The best passages of one resource for a query, wrapped as reference material, with their offsets. */
async function searchForModel(host: ToolHost, uri: string, server: string | undefined, query: string): Promise<string> {
  let found: { server: string; mime: string; text: string; document?: DocumentInfo | undefined };
  if (isToolResultUri(uri)) {
    const kept = host.largeResults?.get(uri);
    if (!kept) throw new Error(`No tool result ${uri} is kept in this conversation`);
    found = kept.source
      ? { server: kept.server, mime: 'text/markdown', text: kept.text, document: kept.source.document }
      : { server: kept.server, mime: 'text/plain', text: kept.text };
  } else {
    const id = server ?? (await asToolError(host.sessions.resolveServer(uri)));
    const read = await asToolError(
      host.sessions.readResource(id, uri, { reuseSince: host.turnStartedAt, connect: false }),
    );
    const texts = shownAsText(read.contents).filter((c): c is Extract<typeof c, { text: string }> => 'text' in c);
    if (!texts.length)
      throw new Error(`${uri} on server "${id}" has no text to search (binary content); read_resource describes it`);
    found = {
      server: id,
      mime: texts[0]!.mimeType ?? 'text/plain',
      text: texts.map((c) => c.text).join(''),
      // A converted document's pages: each passage says on which it is (one text entry: its offsets are the document's).
      document: texts.length === 1 ? texts[0]!.document : undefined,
    };
  }
  const passages = searchPassages(found.text, query, {
    passageChars: PASSAGE_CHARS,
    limit: PASSAGES,
    breaks: found.document?.parts?.starts,
  });
  const total = found.text.length;
  const best = passages[0];
  const head = searchHeader({
    uri,
    server: found.server,
    total,
    query,
    passages: passages.length,
    best: best ? { uri, server: found.server, offset: best.offset } : undefined,
  });
  const text = [
    head,
    ...passages.map((p) =>
      wrapPassage(found.server, uri, found.mime, p, total, partsLabel(found.document, p.offset, p.end)),
    ),
  ].join('\n');
  charge(host, uri, new TextEncoder().encode(text).byteLength);
  return text;
}
