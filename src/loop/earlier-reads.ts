import type { UIMessage } from 'ai';

/**
 * What the model is sent of resources read in earlier turns. Every
 * `read_resource` result stays in the history (the person sees it), but
 * re-sending all of them on every step of every later turn would make a
 * long conversation cost more than pasting the documents once. So, counting
 * back from the newest, earlier turns' reads are sent whole up to `budget`
 * characters; older ones are replaced by a line that says what was read and
 * how to get it again (a cached read at the edge). The current turn's reads
 * are never touched. The model is told; nothing is cut silently.
 */
export function elideEarlierReads(messages: UIMessage[], budget: number): UIMessage[] {
  const lastUser = messages.findLastIndex((m) => m.role === 'user');
  let kept = 0;
  const out = [...messages];
  for (let i = lastUser - 1; i >= 0; i--) {
    const message = out[i]!;
    if (message.role !== 'assistant') continue;
    let changed = false;
    const parts = [...message.parts].reverse().map((part) => {
      const output = readOutput(part);
      if (!output) return part;
      kept += output.text.length + (output.images ?? []).reduce((sum, image) => sum + (image.base64?.length ?? 0), 0);
      if (kept <= budget) return part;
      changed = true;
      const note = `[Read in an earlier turn and not repeated here: ${output.uri} on server "${output.server}" (${output.text.length.toLocaleString('en')} characters). Call read_resource again if you need it.]`;
      return { ...part, output: { ...output, text: note, images: [] } } as typeof part;
    });
    if (changed) out[i] = { ...message, parts: parts.reverse() };
  }
  return out;
}

interface ReadOutput {
  server: string;
  uri: string;
  text: string;
  images?: Array<{ base64?: string }>;
}

function readOutput(part: UIMessage['parts'][number]): ReadOutput | undefined {
  if (part.type !== 'tool-read_resource' || !('state' in part) || part.state !== 'output-available') return undefined;
  const output = (part as { output?: unknown }).output as Partial<ReadOutput> | undefined;
  return typeof output?.text === 'string' && typeof output.uri === 'string' ? (output as ReadOutput) : undefined;
}
