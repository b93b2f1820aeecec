import type { UIMessage } from 'ai';
import type { Settings } from '../config';
import type { McpSessions } from '../mcp/sessions';
import { withLanguage } from '../prompt/answer-language';
import { attachmentParts } from '../prompt/attachments';
import { embeddedDocuments } from '../prompt/embedded-documents';
import { promptMessages } from '../prompt/prompt-messages';
import type { TurnCommand } from './commands';

/** The commands that bring new input: a user message (with resources attached to it), or a user-chosen prompt. */
export type TurnInputRequest = Extract<TurnCommand, { kind: 'message' | 'prompt' }>;

export interface TurnInput {
  /** The turn's new messages, ready for the model and the history. */
  newMessages: UIMessage[];
  /** A prompt's description (for previews). */
  description?: string | undefined;
}

/**
 * Assembles a turn's input before the model runs: attached resources read
 * through the cache and added to the user message (limits checked: 413), or
 * a prompt's arguments checked against its declaration, the prompt fetched
 * and its messages rendered (resources wrapped or described, images as image
 * parts for models that accept them).
 */
export async function turnInput(
  sessions: McpSessions,
  request: TurnInputRequest,
  options: { settings: Settings; acceptsImages: boolean; reuseSince?: number | undefined },
): Promise<TurnInput> {
  const { settings, acceptsImages } = options;
  if (request.kind === 'prompt') {
    const result = await sessions.getPrompt(request.server, request.name, request.arguments);
    const documents = await embeddedDocuments(
      result.messages.map((m) => m.content),
      sessions.documents,
    );
    return {
      description: result.description,
      newMessages: withLanguage(
        promptMessages(request.server, request.name, result, { settings, acceptsImages }, documents),
        request.language,
      ),
    };
  }
  const { message, attachments } = request;
  if (!attachments.length) return { newMessages: [message] };
  const { parts, attached } = await attachmentParts(attachments, {
    sessions,
    settings,
    acceptsImages,
    reuseSince: options.reuseSince ?? Date.now(),
  });
  return {
    newMessages: [
      {
        ...message,
        parts: [...message.parts, ...parts],
        metadata: { ...(message.metadata as object | undefined), attachments: attached },
      },
    ],
  };
}
