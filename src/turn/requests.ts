import { createUIMessageStreamResponse } from 'ai';
import type { PendingApproval } from '../../shared/api/conversations';
import { ApiError } from '../errors';
import type { McpSessions } from '../mcp/sessions';
import type { TurnCommand } from './commands';
import { type TurnInput, type TurnInputRequest, turnInput } from './input';
import type { LiveStream } from './live-stream';
import type { TurnSettings } from './host';
import type { TurnRunner } from './runner';

export interface TurnRequestsHost {
  runner: TurnRunner;
  terms: TurnSettings & { acceptsImages(): boolean };
  withMcp<T>(work: (sessions: McpSessions) => Promise<T>): Promise<T>;
  /**
   * A message's files (`useChat` file parts) stored as the conversation's uploads: the message without them, its
   * attachments with them (by reference), and `undo` to take them back if the turn is refused (conversation/uploads.ts).
   */
  fileParts(command: MessageCommand): Promise<{ command: MessageCommand; undo(): Promise<void> } | undefined>;
}

type MessageCommand = Extract<TurnCommand, { kind: 'message' }>;

/**
 * The entry points of a turn, for every transport: a command run (its new
 * input assembled first), a prompt previewed, the running turn resumed.
 */
export class TurnRequests {
  constructor(private readonly host: TurnRequestsHost) {}

  /** Runs what a command asks for: the turn's stream, or undefined while other calls of an approval's step still wait. */
  async run(command: TurnCommand): Promise<LiveStream | undefined> {
    const { runner } = this.host;
    switch (command.kind) {
      case 'message': {
        // Stored before the turn starts (the message names them); a turn refused then (409, 429) takes them back.
        const files = await this.host.fileParts(command);
        try {
          const { newMessages } = await this.input(files?.command ?? command, this.host.terms.model().acceptsImages);
          return await runner.start({ kind: 'message', newMessages });
        } catch (error) {
          await files?.undo();
          throw error;
        }
      }
      case 'prompt': {
        const { newMessages } = await this.input(command, this.host.terms.model().acceptsImages);
        // An empty prompt is not a turn (it once continued the last answer, unchecked).
        if (!newMessages.length)
          throw new ApiError(
            502,
            'prompt_empty',
            `Prompt "${command.name}" of MCP server "${command.server}" gave no messages: there is nothing to send`,
          );
        return runner.start({ kind: 'message', newMessages });
      }
      case 'regenerate':
        return runner.start({ kind: 'regenerate', messageId: command.messageId });
      case 'approvals':
        return runner.approve(command.answers, command.fromClient);
    }
  }

  /** The last answer goes on if nothing of it waits any more — after a client tool's result (the runner decides; a task's end goes through the alarm's poll, tasks/task-poll.ts). */
  continueIfReady(): Promise<LiveStream | undefined> {
    return this.host.runner.continueIfReady();
  }

  /** A turn's input assembled (input.ts), reading through the MCP sessions only when it needs them (attachments, a prompt). */
  input(request: TurnInputRequest, acceptsImages: boolean): Promise<TurnInput> {
    if (request.kind === 'message' && !request.attachments.length)
      return Promise.resolve({ newMessages: [request.message] });
    const settings = this.host.terms.settings();
    return this.host.withMcp((sessions) => turnInput(sessions, request, { settings, acceptsImages }));
  }

  /** A prompt's messages as a turn would get them, without running it (no model needed: a preview). */
  async promptPreview(prompt: Extract<TurnInputRequest, { kind: 'prompt' }>): Promise<Response> {
    const { description, newMessages } = await this.input(prompt, this.host.terms.acceptsImages());
    return Response.json({ server: prompt.server, name: prompt.name, description, messages: newMessages });
  }

  /**
   * The turn being streamed, from its first chunk (204 when none is running). A turn still being set up — a
   * continuation the alarm started when a task ended, say — is waited for: a client that comes back in that
   * moment gets the answer, not "nothing to resume".
   */
  async resume(): Promise<Response> {
    const running = await this.host.runner.streamSoon();
    return running ? createUIMessageStreamResponse({ stream: running.reader() }) : new Response(null, { status: 204 });
  }
}

/**
 * A turn's stream as an SSE response (or a response as it is; no turn: 202
 * with the calls still waiting for approval); an ApiError becomes its JSON
 * error response. The convention for RPC methods that answer a stream.
 */
export async function turnResponse(
  start: () => Promise<LiveStream | Response | undefined>,
  waiting: () => PendingApproval[],
): Promise<Response> {
  try {
    const result = await start();
    if (result instanceof Response) return result;
    if (!result) return Response.json({ pendingApprovals: waiting() }, { status: 202 });
    return createUIMessageStreamResponse({ stream: result.reader() });
  } catch (error) {
    if (error instanceof ApiError) return error.toResponse();
    throw error;
  }
}
