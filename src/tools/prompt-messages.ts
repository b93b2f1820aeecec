import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { UIMessage } from 'ai';
import type { Settings } from '../config';
import { describeBinary, humanSize, renderResource } from './render';

type Part = UIMessage['parts'][number];

/**
 * A prompt's messages as conversation messages, in order, roles kept: text
 * as text, embedded resources wrapped as reference material (or described if
 * binary), images as image parts for models that take them (described
 * otherwise). The same rendering as everywhere the model sees resources.
 */
export function promptMessages(
  server: string,
  name: string,
  result: GetPromptResult,
  ctx: { settings: Pick<Settings, 'READ_WINDOW_CHARS' | 'INLINE_IMAGE_MAX_BYTES'>; acceptsImages: boolean },
): UIMessage[] {
  return result.messages.map((message, index) => {
    const content = message.content;
    let part: Part;
    switch (content.type) {
      case 'text':
        part = { type: 'text', text: content.text };
        break;
      case 'resource': {
        const r = content.resource as { uri: string; mimeType?: string; text?: string; blob?: string };
        part =
          typeof r.blob === 'string'
            ? { type: 'text', text: describeBinary({ uri: r.uri, mimeType: r.mimeType, size: Math.floor((r.blob.length * 3) / 4) }, server) }
            : {
                type: 'text',
                text: renderResource(
                  { server, uri: r.uri, contents: [{ uri: r.uri, mimeType: r.mimeType ?? 'text/plain', text: r.text ?? '', size: new TextEncoder().encode(r.text ?? '').byteLength }] },
                  // A prompt's resource is given whole: the user chose to send it.
                  { windowChars: Number.MAX_SAFE_INTEGER, images: false, maxImageBytes: 0 },
                ).text,
              };
        break;
      }
      case 'image': {
        const size = Math.floor((content.data.length * 3) / 4);
        part =
          ctx.acceptsImages && size <= ctx.settings.INLINE_IMAGE_MAX_BYTES
            ? { type: 'file', mediaType: content.mimeType, url: `data:${content.mimeType};base64,${content.data}` }
            : { type: 'text', text: `[Image: ${content.mimeType}, ${humanSize(size)} — not shown to this model]` };
        break;
      }
      case 'resource_link':
        part = { type: 'text', text: `[Resource link: ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''} — read it with read_resource]` };
        break;
      default:
        part = { type: 'text', text: `[${content.type} content — not shown]` };
    }
    return { id: crypto.randomUUID(), role: message.role, parts: [part], metadata: { prompt: { server, name, index } } };
  });
}
