import type { GetPromptResult } from '@modelcontextprotocol/client';
import { tool, zodSchema } from 'ai';
import { z } from 'zod';
import { embeddedDocuments, type EmbeddedDocuments, renderEmbeddedDocument } from '../../prompt/embedded-documents';
import { renderEmbedded } from '../../prompt/render';
import { toolResultPartUri } from '../large-results';
import { keepIn } from '../model-output';
import { asToolError, type ToolHost } from './tool-host';
import type { SyntheticTool } from './tool';

const INPUT = zodSchema(
  z.object({
    server: z.string(),
    name: z.string(),
    arguments: z.record(z.string(), z.string()).default({}),
  }),
);

/** A server's prompt (a message template), fetched with its arguments, as text for the model. */
export const invokePrompt: SyntheticTool = {
  name: 'invoke_prompt',
  group: 'discover',
  offeredWhen: (facts) => facts.prompts > 0,
  sentence: () => "invoke_prompt fetches a server's prompt.",
  create: (host) =>
    tool({
      description: "Fetch one of a server's prompts (message templates) with its arguments; returns its messages.",
      inputSchema: INPUT,
      execute: async ({ server, name, arguments: args }, { abortSignal, toolCallId }) => {
        if (!host.modelPrompts(server))
          throw new Error(`The prompts of server "${server}" are for users only; they cannot be invoked by the model.`);
        // A stop cancels prompts/get on the server too, like a tool call.
        const result = await asToolError(host.sessions.getPrompt(server, name, args, abortSignal));
        // Its documents as their text, the rest of a long one kept like a tool result's (prompt/embedded-documents.ts).
        const found = await embeddedDocuments(
          result.messages.map((m) => m.content),
          host.sessions.documents,
        );
        return renderPrompt(server, name, result, host, { found, toolCallId });
      },
    }),
};

/** A prompt's messages as text for the model: roles kept in order, resources wrapped or described. */
export function renderPrompt(
  server: string,
  name: string,
  result: GetPromptResult,
  host: Pick<ToolHost, 'settings' | 'largeResults'>,
  documents?: { found: EmbeddedDocuments; toolCallId: string } | undefined,
): string {
  const lines = [
    `[Prompt "${name}" from server "${server}"${result.description ? `: ${result.description}` : ''} — ${result.messages.length} message(s)]`,
  ];
  for (const [index, message] of result.messages.entries()) {
    const content = message.content;
    const document = documents?.found.get(index);
    let text: string;
    if (content.type === 'text') text = content.text;
    else if (document)
      text = renderEmbeddedDocument(server, document, {
        windowChars: host.settings.READ_WINDOW_CHARS,
        keep: host.largeResults && keepIn(host.largeResults, server, toolResultPartUri(documents!.toolCallId, index)),
      });
    else if (content.type === 'resource')
      text = renderEmbedded(server, content.resource as { uri: string }, host.settings.READ_WINDOW_CHARS);
    else if (content.type === 'resource_link')
      text = `[Resource link: ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ''} — read it with read_resource]`;
    else if (content.type === 'image' || content.type === 'audio')
      text = `[${content.type === 'image' ? 'Image' : 'Audio'}: ${content.mimeType} — not inlined]`;
    else text = '[Unsupported content]';
    lines.push(`[${message.role}] ${text}`);
  }
  return lines.join('\n');
}
