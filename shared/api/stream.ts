import { z } from 'zod';
import { ServerId } from './common';

/**
 * The data of our own parts in a turn's UI message stream (`data-<name>`),
 * next to the AI SDK's parts. (`data-auth-required` is in connections.ts.)
 */

/** One field of an elicitation form: the flat schemas MCP elicitation allows (text, number, yes/no, one or more of a list). */
const ElicitationField = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  enum: z.array(z.string()).optional(),
  default: z.unknown().optional(),
});

/** A server's question to the user, as a `data-elicitation` part carries it and the message keeps it. */
export const ElicitationNotice = z
  .object({
    id: z.string(),
    server: ServerId,
    message: z.string(),
    requestedSchema: z.looseObject({
      properties: z.record(z.string(), ElicitationField).optional(),
      required: z.array(z.string()).optional(),
    }),
    status: z.enum(['pending', 'accept', 'decline', 'cancel', 'expired']).meta({
      description:
        '`pending` until the user answers; `expired` when nobody did in time; `cancel` too when the turn was stopped.',
    }),
    content: z.record(z.string(), z.unknown()).optional().meta({ description: 'What the user sent with `accept`.' }),
  })
  .meta({ id: 'ElicitationNotice' });
export type ElicitationNotice = z.infer<typeof ElicitationNotice>;

/** A tool call's progress (`notifications/progress`), as a transient `data-progress` part (id: the tool call's) carries it. */
export const ToolProgress = z
  .object({
    toolCallId: z.string(),
    server: ServerId,
    tool: z.string(),
    progress: z.number(),
    total: z.number().optional(),
    message: z.string().optional(),
  })
  .meta({ id: 'ToolProgress' });
export type ToolProgress = z.infer<typeof ToolProgress>;

/**
 * A tool call the server runs as a task (MCP Tasks), as the `data-task`
 * part (id: the tool call's) carries it and the message keeps it: updated
 * while the task runs, then final. The tool part stays `input-available`
 * (running) until the task's result replaces it.
 */
export const TaskNotice = z
  .object({
    toolCallId: z.string(),
    server: ServerId,
    tool: z.string(),
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
    /** ms since epoch: when the call became a task, and when it last changed. */
    startedAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'TaskNotice' });
export type TaskNotice = z.infer<typeof TaskNotice>;

/**
 * Where the exact text the model received for one window of a source is, in the conversation's own messages — never
 * a second copy of it: a slice (`from`–`to`, UTF-16 offsets) of a tool call's output text in the same answer (the
 * output itself when it is a string, else its `text`), or of a text part of a user message (an attachment). Text that
 * is in no message (a pinned resource, in the system prompt) comes `inline`, at most SOURCE_TEXT_MAX_CHARS of it.
 */
export const SourceText = z
  .discriminatedUnion('in', [
    z.object({ in: z.literal('tool'), toolCallId: z.string(), from: z.number(), to: z.number() }),
    z.object({ in: z.literal('message'), messageId: z.string(), part: z.number(), from: z.number(), to: z.number() }),
    z.object({
      in: z.literal('inline'),
      text: z.string(),
      truncated: z.boolean().optional().meta({ description: 'The text was longer: this is its beginning.' }),
    }),
  ])
  .meta({ id: 'SourceText' });
export type SourceText = z.infer<typeof SourceText>;

/** One resource an answer read: which, how, which windows of it, and when. */
export const Source = z
  .object({
    n: z.number().int().min(1).meta({ description: 'Its number in this answer (a citation `[n]`), in reading order.' }),
    server: ServerId,
    uri: z.string(),
    title: z
      .string()
      .optional()
      .meta({ description: "The catalog's title (or name) of the resource, when it lists it." }),
    via: z.enum(['read', 'search', 'attachment', 'pinned', 'tool']).meta({
      description:
        '`read`: read_resource (also a read made before the first step); `search`: search_resource passages; `attachment`: attached to the question; `pinned`: in the system prompt (listed when the answer cites it); `tool`: a document embedded in a tool result.',
    }),
    windows: z
      .array(
        z.object({
          offset: z.number().meta({ description: 'First character of the window in the resource text.' }),
          end: z.number(),
          total: z.number().meta({ description: "Characters in the resource's text." }),
          pages: z.string().optional().meta({ description: 'A document\'s pages in the window: "pages 3-4 of 12".' }),
          text: SourceText,
        }),
      )
      .min(1),
    partial: z.boolean().meta({ description: 'The windows do not cover the whole text.' }),
    readAt: z.number().meta({ description: 'When the answer got this text (ms since epoch).' }),
    fetchedAt: z
      .number()
      .optional()
      .meta({ description: 'When the copy read was fetched from its server (ms since epoch); older when cached.' }),
    version: z.string().optional().meta({
      description: "The resource's version as its server lists it (`annotations.lastModified`), when it does.",
    }),
  })
  .meta({ id: 'Source' });
export type Source = z.infer<typeof Source>;

/** The `data-sources` part of an answer (id `sources`, one per answer, kept in the message): what it read. */
export const SourcesData = z.object({ sources: z.array(Source) }).meta({ id: 'SourcesData' });
export type SourcesData = z.infer<typeof SourcesData>;

/**
 * Our data parts by name, for a typed `useChat`: `useChat<UIMessage<unknown, McpOndemandDataParts>>()` makes
 * `part.data` of a `data-sources` part a `SourcesData`, and so on. (A type, not an interface: the AI SDK wants a record.)
 */
export type McpOndemandDataParts = {
  sources: SourcesData;
  task: TaskNotice;
  progress: ToolProgress;
  elicitation: ElicitationNotice;
  notice: { message: string };
};
