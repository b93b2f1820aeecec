import type { Resource } from '@modelcontextprotocol/client';
import type { ResourceView as ApiResourceView, ReadResourceBody } from '../../shared/api/resources';
import type { Settings } from '../config';
import { isTextMime, shownAsText } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { documentFormatOf } from '../../shared/documents';
import { humanSize } from '../../shared/human-size';
import { describeBinary, renderResource, type ModelView, type RenderOptions, type RenderTarget } from './render';
import { ApiError } from '../errors';
import { pageStart } from '../documents/pages';
import { scannedPageView } from './scanned-page';

/** One resource as the model (and the API: shared/api's `ResourceView`) sees it, with the rendering input for further windows (attachments). */
export type ResourceView = ApiResourceView & { target: RenderTarget };

export interface ViewOptions extends Pick<RenderOptions, 'windowChars' | 'images' | 'maxImageBytes' | 'offset'> {
  /**
   * A document's page (slide, sheet) to read from, 1-based, instead of `offset`: the window starting there, or — a
   * scanned page — its image (scanned-page.ts). A page there is not is an error saying which pages there are.
   */
  page?: number | undefined;
  /** Start of the turn (or request) this read is part of: what the server says is stale at once may be shared within it. */
  reuseSince: number;
  /**
   * `false` (a turn's reads, pins and attachments): a server is connected only
   * when the cache cannot serve the read (ServerLink.available); `true` (the
   * default: the API) connects and watches as the read starts.
   */
  connect?: boolean;
}

/**
 * A read for `POST …/resources/read`: the window asked for, as the model
 * would see it (same settings and image rule as a turn), fresh per request.
 */
export async function readForDisplay(
  sessions: McpSessions,
  request: ReadResourceBody,
  settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES'>,
  acceptsImages: boolean,
): Promise<ApiResourceView> {
  const { target: _, ...view } = await viewResource(sessions, request, {
    windowChars: settings.READ_WINDOW_CHARS,
    offset: request.offset ?? 0,
    page: request.page,
    images: acceptsImages,
    maxImageBytes: settings.INLINE_IMAGE_MAX_BYTES,
    reuseSince: Date.now(),
  });
  return view;
}

/**
 * Reads one resource for display: the one path the `read_resource` tool,
 * `POST …/resources/read`, attachments and pinned resources share, so they
 * cannot disagree. Resolves the server when not given, describes a binary
 * the catalog lists as too large to inline without downloading it, reads
 * everything else through the cache, and renders the window asked for.
 */
export async function viewResource(
  sessions: McpSessions,
  request: { server?: string | undefined; uri: string },
  options: ViewOptions,
): Promise<ResourceView> {
  const server = request.server ?? (await sessions.resolveServer(request.uri));
  const connect = options.connect ?? true;
  const state = connect
    ? await sessions.ensureServer(server)
    : await sessions.availableServer(server, options.reuseSince);
  const listing = state.resources.find((r) => r.uri === request.uri);
  const title = listing?.title ?? listing?.name;
  const described =
    listing && describedFromCatalog(listing, server, options.maxImageBytes, sessions.documents?.maxBytes);
  if (described) {
    return {
      server,
      uri: request.uri,
      cache: 'catalog',
      fetchedAt: state.fetchedAt.resources ?? Date.now(),
      contents: [],
      model: described,
      target: { server, uri: request.uri, title, contents: [] },
    };
  }
  const read = await sessions.readResource(server, request.uri, { reuseSince: options.reuseSince, connect });
  const target: RenderTarget = { server, uri: request.uri, title, contents: read.contents };
  return {
    server,
    uri: request.uri,
    cache: read.cache,
    fetchedAt: read.fetchedAt,
    ...(read.hint ? { hint: read.hint } : {}),
    freshness: read.freshness,
    contents: read.contents,
    model:
      options.page === undefined
        ? renderResource(target, options)
        : await pageView(sessions, target, { ...options, page: options.page }),
    target,
  };
}

/** A document read from one of its pages: the window starting there, or a scanned page's image. */
async function pageView(
  sessions: McpSessions,
  target: RenderTarget,
  options: ViewOptions & { page: number },
): Promise<ModelView> {
  const start = pageStart(shownAsText(target.contents), options.page);
  if ('problem' in start)
    throw new ApiError(400, 'page_not_found', `Resource ${target.uri} on server ${target.server}: ${start.problem}`);
  if (start.document.scannedPages?.includes(options.page))
    return scannedPageView(sessions, { ...target, ...start, page: options.page }, options);
  return renderResource(target, { ...options, offset: start.offset });
}

/**
 * What the model sees of a binary whose listing alone says it cannot be
 * inlined (non-text, larger than `maxImageBytes`: INLINE_IMAGE_MAX_BYTES): a description from
 * the catalog, without downloading it. Undefined when it must be read.
 */
export function describedFromCatalog(
  listing: Resource,
  server: string,
  maxImageBytes: number,
  documentMaxBytes?: number | undefined,
): ModelView | undefined {
  if (isTextMime(listing.mimeType)) return undefined;
  if (listing.size === undefined || listing.size <= maxImageBytes) return undefined;
  // A document is read to be converted (documents/), up to DOCUMENT_MAX_BYTES; a larger one is described, saying why.
  const document = documentMaxBytes !== undefined && documentFormatOf(listing.mimeType, listing.uri ?? listing.name);
  if (document && listing.size <= documentMaxBytes) return undefined;
  const why = document
    ? `not downloaded: more than DOCUMENT_MAX_BYTES (${humanSize(documentMaxBytes!)}), so its text cannot be read`
    : 'described from the catalog; not downloaded';
  const text = `${describeBinary({ uri: listing.uri, mimeType: listing.mimeType, size: listing.size, title: listing.title ?? listing.name }, server)} (${why})`;
  return { text, images: [], window: { offset: 0, end: 0, total: 0 } };
}
