import type { UIMessage } from 'ai';
import { UPLOADS_SERVER } from '../../shared/api/files';
import { humanSize } from '../../shared/human-size';
import type { Settings } from '../config';
import { ApiError } from '../errors';
import { shownAsText } from '../mcp/contents';
import type { McpSessions } from '../mcp/sessions';
import { withoutContinuation } from './markers';
import { renderResource } from './render';
import { viewResource } from './resource-view';

type Part = UIMessage['parts'][number];

/**
 * Resources attached to a user message (the application-controlled path of
 * MCP): read through the cache by the host and added to that message. Text
 * arrives whole, as consecutive windows wrapped as reference material;
 * binaries as descriptors; images as image parts for capable models. Limits
 * on count and total characters are checked before anything reaches a model.
 */
export async function attachmentParts(
  attachments: Array<{ server?: string | undefined; uri: string }>,
  host: {
    sessions: McpSessions;
    settings: Pick<
      Settings,
      'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES' | 'MAX_ATTACHMENTS' | 'MAX_ATTACHMENT_CHARS'
    >;
    acceptsImages: boolean;
    /** When the turn these attachments start was asked for. */
    reuseSince: number;
  },
): Promise<{ parts: Part[]; attached: Array<{ server: string; uri: string }> }> {
  if (attachments.length > host.settings.MAX_ATTACHMENTS) {
    throw new ApiError(
      413,
      'too_many_attachments',
      `${attachments.length} attachments; a message may carry at most ${host.settings.MAX_ATTACHMENTS}`,
    );
  }
  const parts: Part[] = [];
  const attached: Array<{ server: string; uri: string }> = [];
  let chars = 0;
  const options = {
    windowChars: host.settings.READ_WINDOW_CHARS,
    images: host.acceptsImages,
    maxImageBytes: host.settings.INLINE_IMAGE_MAX_BYTES,
  };
  for (const attachment of attachments) {
    if (attachment.server === UPLOADS_SERVER || attachment.uri.startsWith('upload://')) {
      parts.push({ type: 'text', text: await uploadReference(host.sessions, attachment.uri, host.reuseSince) });
      attached.push({ server: UPLOADS_SERVER, uri: attachment.uri });
      continue;
    }
    const view = await viewResource(host.sessions, attachment, {
      ...options,
      reuseSince: host.reuseSince,
      connect: false,
    });
    chars += shownAsText(view.contents).reduce((sum, c) => sum + ('text' in c ? c.text.length : 0), 0);
    if (chars > host.settings.MAX_ATTACHMENT_CHARS) {
      throw new ApiError(
        413,
        'attachments_too_large',
        `Attached text exceeds ${host.settings.MAX_ATTACHMENT_CHARS} characters (at ${attachment.uri})`,
      );
    }
    // Every window, in order: the whole document, in the same parts read_resource would give.
    for (let model = view.model; ; ) {
      parts.push({ type: 'text', text: withoutContinuation(model.text) });
      for (const image of model.images)
        parts.push({ type: 'file', mediaType: image.mediaType, url: `data:${image.mediaType};base64,${image.base64}` });
      if (model.window.nextOffset === undefined) break;
      model = renderResource(view.target, { ...options, offset: model.window.nextOffset });
    }
    attached.push({ server: view.server, uri: attachment.uri });
  }
  return { parts, attached };
}

/**
 * A file the user uploaded and attached, by reference: one line naming it, and the model reads it (in windows, as
 * any resource) when the question needs it — a 40-page PDF is not pasted into every request that re-sends the
 * message. A small text upload may still reach the model whole: the cost planner inlines it, as any small catalog
 * resource (prompt/cost-planner.ts). 404 for a file this conversation does not have.
 */
/** The line uploadReference writes, read back: the file's title and URI (the offline model reads what was attached). */
export const UPLOAD_REFERENCE_LINE =
  /^\[The user attached the file "(.*)" \([^)]*\): (upload:\/\/\S+) — read it with read_resource/;

async function uploadReference(sessions: McpSessions, uri: string, reuseSince: number): Promise<string> {
  const state = await sessions.availableServer(UPLOADS_SERVER, reuseSince);
  const file = state.resources.find((resource) => resource.uri === uri);
  if (!file) throw new ApiError(404, 'resource_not_found', `This conversation has no uploaded file ${uri}`);
  const size = typeof file.size === 'number' ? `, ${humanSize(file.size)}` : '';
  return `[The user attached the file "${file.title ?? file.name}" (${file.mimeType ?? 'unknown type'}${size}): ${uri} — read it with read_resource when the question needs it]`;
}
