import type { UIMessage } from 'ai';
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
  ctx: {
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
  if (attachments.length > ctx.settings.MAX_ATTACHMENTS) {
    throw new ApiError(
      413,
      'too_many_attachments',
      `${attachments.length} attachments; a message may carry at most ${ctx.settings.MAX_ATTACHMENTS}`,
    );
  }
  const parts: Part[] = [];
  const attached: Array<{ server: string; uri: string }> = [];
  let chars = 0;
  const options = {
    windowChars: ctx.settings.READ_WINDOW_CHARS,
    images: ctx.acceptsImages,
    maxImageBytes: ctx.settings.INLINE_IMAGE_MAX_BYTES,
  };
  for (const attachment of attachments) {
    const view = await viewResource(ctx.sessions, attachment, {
      ...options,
      reuseSince: ctx.reuseSince,
      connect: false,
    });
    chars += shownAsText(view.contents).reduce((sum, c) => sum + ('text' in c ? c.text.length : 0), 0);
    if (chars > ctx.settings.MAX_ATTACHMENT_CHARS) {
      throw new ApiError(
        413,
        'attachments_too_large',
        `Attached text exceeds ${ctx.settings.MAX_ATTACHMENT_CHARS} characters (at ${attachment.uri})`,
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
