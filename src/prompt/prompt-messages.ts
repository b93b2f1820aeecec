import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { UIMessage } from 'ai';
import type { Settings } from '../config';
import { base64ByteLength } from '../mcp/contents';
import { humanSize } from '../../shared/human-size';
import { type EmbeddedDocuments, renderEmbeddedDocument } from './embedded-documents';
import { renderEmbedded } from './render';

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
  /** Its documents, converted (embedded-documents.ts): shown as a read shows them. */
  documents?: EmbeddedDocuments | undefined,
): UIMessage[] {
  return result.messages.map((message, index) => {
    const content = message.content;
    const document = documents?.get(index);
    let part: Part;
    switch (content.type) {
      case 'text':
        part = { type: 'text', text: content.text };
        break;
      case 'resource':
        // A prompt's resource is given whole: the user chose to send it.
        part = {
          type: 'text',
          text: document
            ? renderEmbeddedDocument(server, document, { windowChars: Number.MAX_SAFE_INTEGER })
            : renderEmbedded(server, content.resource as { uri: string }, Number.MAX_SAFE_INTEGER),
        };
        break;
      case 'image': {
        const size = base64ByteLength(content.data);
        part =
          ctx.acceptsImages && size <= ctx.settings.INLINE_IMAGE_MAX_BYTES
            ? { type: 'file', mediaType: content.mimeType, url: `data:${content.mimeType};base64,${content.data}` }
            : { type: 'text', text: `[Image: ${content.mimeType}, ${humanSize(size)} — not shown to this model]` };
        break;
      }
      case 'resource_link':
        part = {
          type: 'text',
          text: `[Resource link: ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''} — read it with read_resource]`,
        };
        break;
      default:
        part = { type: 'text', text: `[${content.type} content — not shown]` };
    }
    return {
      id: crypto.randomUUID(),
      role: message.role,
      parts: [part],
      metadata: { prompt: { server, name, index } },
    };
  });
}
