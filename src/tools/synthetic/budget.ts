import { base64ByteLength } from '../../mcp/contents';
import type { ModelView } from '../../prompt/render';
import type { ToolHost } from './tool-host';

/**
 * Charges what reaches the model against the turn's read budget
 * (MAX_RESOURCE_BYTES_PER_TURN), or refuses the read. The budget counts what
 * reaches the model — this window and its images — not the whole resource:
 * charging a 5 MB document's full size for every window let a turn read two
 * windows of it, not the document.
 */
export function charged<T extends Pick<ModelView, 'text' | 'images'>>(
  host: Pick<ToolHost, 'readBudget'>,
  uri: string,
  output: T,
): T {
  charge(
    host,
    uri,
    new TextEncoder().encode(output.text).byteLength +
      output.images.reduce((sum, image) => sum + base64ByteLength(image.base64), 0),
  );
  return output;
}

export function charge(host: Pick<ToolHost, 'readBudget'>, uri: string, bytes: number): void {
  const { readBudget } = host;
  if (bytes > readBudget.remaining) {
    throw new Error(
      `This turn may read ${readBudget.limit} bytes of resources and has ${readBudget.remaining} left; this part of ${uri} is ${bytes} bytes. Answer with what you have, or ask the user to continue in a new message.`,
    );
  }
  readBudget.remaining -= bytes;
}
