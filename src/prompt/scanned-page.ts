import type { DocumentInfo, ModelView } from '../../shared/api/resources';
import { base64OfBytes, bytesOfBase64 } from '../../shared/base64';
import { documentFormatOf } from '../../shared/documents';
import { humanSize } from '../../shared/human-size';
import type { McpSessions } from '../mcp/sessions';
import { identifier, metadataLine } from './catalog-lines';

/**
 * A scanned page (no text layer) read by number: its picture as an image part, for a model that reads images, or a
 * line saying why there is none. The cache keeps the document's text, not its bytes, so the PDF is read again from
 * its server (nothing cached, nothing converted: ServerLink.readOriginal) and the converter cuts the page's image
 * out of it (`pageImage`, at most INLINE_IMAGE_MAX_BYTES). Asked for rarely, one page at a time: not cached.
 */
export async function scannedPageView(
  sessions: McpSessions,
  at: { server: string; uri: string; page: number; document: DocumentInfo; offset: number },
  options: { images: boolean; maxImageBytes: number },
): Promise<ModelView> {
  const { server, uri, page, document } = at;
  const name = `Page ${page}${document.pageCount ? ` of ${document.pageCount}` : ''} of ${identifier(uri)} (server ${server})`;
  const view = (text: string, images: ModelView['images'] = []): ModelView => ({
    text,
    images,
    window: { offset: at.offset, end: at.offset, total: at.offset },
  });
  const without = (why: string) => view(`[${name} is scanned: no text layer, and its image is not given: ${why}]`);
  if (!options.images) return without('the model in use does not read images');
  if (options.maxImageBytes <= 0) return without('INLINE_IMAGE_MAX_BYTES is 0');
  const converter = sessions.documents?.converter;
  if (!converter) return without('documents are not converted here (DOCUMENT_CONVERTER=off)');
  const original = (await sessions.readOriginal(server, uri)).find((entry) => 'blob' in entry);
  const bytes = original && 'blob' in original ? bytesOfBase64(original.blob) : undefined;
  if (!bytes || documentFormatOf(original?.mimeType, uri, bytes) !== 'pdf')
    return without('the server no longer serves it as a PDF');
  const output = await converter.pageImage(bytes, page, options.maxImageBytes);
  if (!output.ok) return without(metadataLine(output.reason, 200));
  const { image } = output;
  const scaled = image.scaledFrom ? `, scaled from ${image.scaledFrom.width}×${image.scaledFrom.height}` : '';
  return view(
    `[${name} is scanned (no text layer): its image is attached, PNG ${image.width}×${image.height} px${scaled}, ${humanSize(image.bytes.length)}]`,
    [{ mediaType: image.mimeType, base64: base64OfBytes(image.bytes), uri }],
  );
}
